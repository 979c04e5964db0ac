// What changed between two builds, one change per fact, the headline figures a release gate
// reads, and the CI gates (--fail-on).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/align.h"
#include "model/capture.h"

namespace trtlens {

struct DiffChange {
  std::string kind;  // fusion added removed precision type tactic format reformat time memory
                     // option version device perf
  std::string what;  // sub-kind or field: "merged", "output 0", "layer", "node", "Precision"
  nlohmann::ordered_json base;  // value or null
  nlohmann::ordered_json head;
  std::vector<std::string> base_layers, head_layers, onnx_nodes;
  std::optional<double> delta;  // head - base, where numeric
  std::string unit;             // "ms", "bytes", "MiB", "layers", "qps"
};

// The figures of one side. Counts and sums are the analysis stage's (Build::totals), latency the
// best source of the run (Build::latency); nullopt = the inputs do not say.
struct DiffSide {
  std::string label;  // input paths joined by ", "
  std::string trt_version;
  size_t layers = 0;
  std::optional<size_t> running_layers, reformats;  // reformats: running reformat layers
  std::optional<uint64_t> reformat_bytes, weights_bytes, peak_activation_bytes;
  std::optional<double> reformat_ms, sum_layer_ms, engine_size_mib;
  Latency latency;
};

// How many aligned layers (or ONNX nodes) went from one compute precision to another.
struct PrecisionTransition {
  std::string from, to;  // "FP16", "INT8"; "-" for a layer only on one side
  size_t layers = 0;     // aligned running layers (precision = first input's dtype)
  size_t nodes = 0;      // ONNX nodes (through provenance), where both sides carry them
};

// One headline figure, base against head (computed here so every renderer prints the same).
struct HeadlineFigure {
  std::string key;    // latency sum_layer_ms running_reformats reformat_ms running_layers
                      // weights_bytes peak_activation_bytes engine_size_mib
  std::string label;  // "latency (median)"
  std::optional<double> base, head, delta, percent;  // delta = head - base; percent of base
  std::string unit;                                  // "ms", "layers", "bytes", "MiB"
  std::string note;  // where the figure came from, or why it is weak
};

struct DiffResult {
  const Build* base = nullptr;
  const Build* head = nullptr;
  Alignment alignment;
  std::vector<DiffChange> changes;
  DiffSide base_side, head_side;
  std::vector<PrecisionTransition> transitions;  // changed ones only, most layers first
  std::map<std::string, size_t> fusion_changes;  // "merged" -> n, from alignment.fusion_groups
  std::vector<HeadlineFigure> headline;
  std::string latency_source;  // "times", or "times vs performance-summary" when they differ
};

// A layer's compute precision: its first input's dtype (TREx's convention), else its output's.
std::string layer_precision(const Layer& l);
// The dtype of a layer's first output ("" when unknown).
std::string output_dtype(const Layer& l);
// True for a layer that computes: not a reformat and not elided (Layer::role when the analysis
// stage set it; a names-based test only while it is Unknown).
bool computes(const Layer& l);

// The figures of one build (what `diff` and `compare` print per side).
DiffSide diff_side(const Capture& capture, const Build& build);

DiffResult diff_builds(const Capture& base_capture, const Build& base, const Capture& head_capture,
                       const Build& head);

// --fail-on rules: latency:+5%  layer-time:+20%  reformats:+1  precision-drop  new-fp32.
struct GateRule {
  std::string text, name;
  double threshold = 0;  // percent for latency/layer-time, count for reformats
};
// Throws std::invalid_argument with a one-line reason.
GateRule parse_gate_rule(const std::string& text);

struct GateResult {
  std::string rule;
  bool evaluated = true;  // false: the inputs lack what the rule needs (an input error)
  bool breached = false;
  std::string message;
  std::string warning;  // the figure is weaker than the rule implies (e.g. not a measurement)
  std::optional<double> base, head;  // the figures compared, where numeric
};
std::vector<GateResult> evaluate_gates(const DiffResult& d, const std::vector<GateRule>& rules);

}  // namespace trtlens
