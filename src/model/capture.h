// The model: everything known about one run on a target (ARCHITECTURE §1 "assemble").
// Ingesters fill it through model/assembler.h; analyses annotate it; renderers read it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/attributes.h"
#include "model/engine_graph.h"
#include "model/findings.h"
#include "model/memory.h"
#include "model/onnx.h"
#include "model/shared_text.h"
#include "model/remarks.h"
#include "model/source.h"
#include "model/timing.h"

namespace trtlens {

struct Diagnostic {
  Severity severity = Severity::Warning;
  SourceLoc where;
  std::string message;
};

struct Tensor {
  std::string name;
  SharedText dtype;  // canonical (values.h); empty when the input did not say
  bool dtype_known = true;
  std::vector<int64_t> dims;
  bool has_dims = false;
  int vector_axis = -1;
  int vector_width = 0;
  SharedText format;     // verbatim format string where the input gave one
  SharedText location;   // "Device" / "Host" where given
};

// What a layer does at run time. Filled once by the analysis stage; every command and renderer
// reads it instead of judging from names or types itself.
enum class LayerRole {
  Unknown,   // the input cannot tell (a names-only listing)
  Runs,      // runs a kernel
  Elided,    // NoOp, or another layer TensorRT reports as costing nothing (aliases its input)
  Reformat,  // a Reformat / MyelinReformat kernel that runs
};
const char* to_string(LayerRole r);

struct Layer {
  std::string name;  // verbatim
  // Type, tactic, kernel name and device: texts an engine repeats, shared.
  SharedText type;                   // implementation class: Layer(<type>) / LayerType
  std::optional<SharedText> tactic;  // canonical 0x%016x
  SharedText tactic_name;
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
  std::string metadata;  // verbatim (TRT 8.6+; may contain \x1E/\x1F)
  std::optional<int> stream_id;
  // Other keys, as given, in one compact JSON text (empty, allocating nothing, when none).
  Attributes attributes;
  SourceLoc source;

  // Annotations added by later stages.
  LayerMemory memory;
  LayerTime time;
  std::vector<std::string> onnx_nodes;
  LayerRole role = LayerRole::Unknown;
  // Where the layer runs ("GPU" / "DLA") when the input says; the fallback reason (analysis).
  SharedText device;
  std::string fallback_reason;
};

// Where a layer listing came from.
enum class ListingKind {
  EngineLayerInfo,  // "Engine Layer Information:" block, Layer(T): lines
  LayerInfoDump,    // --dumpLayerInfo text ("Layer Information:" / "Layers:")
  LayerJson,        // --exportLayerInfo JSON
  Profile,          // only a profile was given: layers are its rows
  DeviceList,       // INFO-level "[GpuLayer] KIND: name" / "[DlaLayer] name" lines only
};
const char* to_string(ListingKind k);

// Per-build figures, computed once by the analysis stage (`json` builds[].totals); summary,
// report, diff and dot print these and never recompute them. nullopt = unknown.
struct BuildTotals {
  size_t layers = 0;
  std::optional<size_t> running_layers, elided_layers, reformat_layers;
  std::optional<uint64_t> reformat_bytes;       // Σ input + output bytes of running reformats
  std::optional<double> reformat_ms;            // Σ average time of running reformats
  std::optional<uint64_t> weights_bytes;        // Σ stored weight bytes, every weight-bearing key
  std::optional<uint64_t> activation_io_bytes;  // Σ input + output bytes over running layers
  std::optional<double> sum_layer_ms;           // Σ per-layer average time (a profile)
  std::optional<uint64_t> peak_activation_bytes;  // liveness estimate
};

// The latency of the run a build belongs to, from the best source present: an --exportTimes
// trace, else trtexec's performance summary, else the sum of a per-layer profile (which is not
// a measurement of end-to-end latency). Filled by analysis/time.
struct Latency {
  enum class Source { None, Times, PerfSummary, ProfileSum } source = Source::None;
  std::string from;  // the file the figure came from
  std::optional<double> median_ms, mean_ms, p99_ms, cv_percent;
  size_t queries = 0;  // timed queries (trace records); 0 when not known
  bool measured() const { return source == Source::Times || source == Source::PerfSummary; }
};
const char* to_string(Latency::Source s);

// What the summary views list, counted once by analysis/summary.
struct BuildCounts {
  std::vector<std::pair<std::string, size_t>> types;       // most frequent first
  std::vector<std::pair<std::string, size_t>> precisions;  // output precision, most frequent first
  std::vector<Tensor> inputs;   // graph inputs as their first consumer lists them
  std::vector<Tensor> outputs;  // graph outputs as their producer lists them
};

struct Binding {
  std::string name;
  std::string io_mode;  // "Input"/"Output" where given (TRT 11)
  Tensor tensor;        // dtype/dims where given
};

struct Build {
  int id = 0;
  bool final = false;
  ListingKind kind = ListingKind::EngineLayerInfo;
  SourceLoc source;
  std::string trt_version;
  std::string trt_version_from;  // the kind of line that named it ("banner", "library name" ...)
  int run = 0;              // index of the trtexec run (&&&& RUNNING) within its file
  bool names_only = false;  // layer names without tensors (layer_names_only verbosity)
  std::vector<Layer> layers;
  std::vector<Binding> bindings;
  std::vector<std::string> enriched_by;  // other listings merged into this one ("path:line")
  EngineGraph graph;

  BuildMemory memory;
  BuildProfile profile;
  // Analysis results.
  BuildTotals totals;
  BuildCounts counts;
  Latency latency;
};

// Builds and layers move, never copy, when their vectors grow.
static_assert(std::is_nothrow_move_constructible_v<Layer> &&
              std::is_nothrow_move_constructible_v<Build>);

struct InputFile {
  std::string path;
  std::string kind;  // build-log, layer-json, profile-json, times-json, onnx, bundle
  uint64_t lines = 0;
  uint64_t unrecognized = 0;
  bool gzip = false;
};

struct Capture {
  std::vector<InputFile> inputs;
  std::vector<Build> builds;
  std::vector<Diagnostic> diagnostics;

  std::vector<RunInfo> runs;  // one per trtexec run / runtime log section group
  // What a capture bundle's manifest says of itself: model, trt_version, date, name, host.
  KeyValues labels;
  OnnxModel onnx;
  std::vector<Finding> findings;

  std::vector<DevicePlacement> placements;  // as printed; joined to builds by the assembler
  std::vector<DlaFallback> dla_fallbacks;
  std::vector<PrecisionFallback> precision_fallbacks;
  std::vector<TuningRun> tuning;
  std::vector<Remark> remarks;  // analysis/remarks

  const Build* final_build() const;
};

// The name of the final build's layer that computes `n` ("" when none); `final` is
// Capture::final_build().
const std::string& node_layer(const Build* final, const OnnxNode& n);
// The other ONNX nodes in the layer that computes `n` (or the partner a fusion line named).
std::vector<std::string> fused_with(const Build* final, const OnnxNode& n);

}  // namespace trtlens
