// What changed between two builds, one change per fact, plus the CI gates (--fail-on).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/align.h"
#include "analysis/summary.h"  // is_reformat
#include "model/capture.h"

namespace trtlens {

struct DiffChange {
  std::string kind;  // fusion added removed precision type tactic format reformat time memory
                     // option version device perf
  std::string what;  // sub-kind or field: "merged", "output 0", "Precision", "Latency median"
  nlohmann::ordered_json base;  // value or null
  nlohmann::ordered_json head;
  std::vector<std::string> base_layers, head_layers, onnx_nodes;
  std::optional<double> delta;  // head - base, where numeric
  std::string unit;             // "ms", "bytes", "MiB", "layers", "qps"
};

struct DiffSide {
  std::string label;  // input paths joined by ", "
  std::string trt_version;
  size_t layers = 0, reformats = 0;
  uint64_t reformat_bytes = 0;
  std::optional<double> reformat_ms, total_ms;  // sums of per-layer average times
  std::optional<double> latency_ms;             // performance summary: Latency median (or mean)
};

struct DiffResult {
  const Build* base = nullptr;
  const Build* head = nullptr;
  Alignment alignment;
  std::vector<DiffChange> changes;
  DiffSide base_side, head_side;
};

// A layer's compute precision: its first input's dtype (TREx's convention), else its output's.
std::string layer_precision(const Layer& l);

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
};
std::vector<GateResult> evaluate_gates(const DiffResult& d, const std::vector<GateRule>& rules);

}  // namespace trtlens
