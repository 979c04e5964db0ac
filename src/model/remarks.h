// What TensorRT did and did not do, and why: DLA placement and fallbacks as printed, the
// build tuner's iterations, and the remarks the analysis derives from them (LLVM-remark style).
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/source.h"

namespace trtlens {

struct DiffResult;  // analysis/diff.h

// One "[GpuLayer] KIND: name" / "[DlaLayer] name" line of an INFO-level build (TRT 8.5+).
struct DevicePlacement {
  std::string layer;   // verbatim
  std::string kind;    // "CONVOLUTION", "SHUFFLE", ... ("" when the line gave none)
  std::string device;  // "GPU" / "DLA"
  SourceLoc source;
  int run = 0;
};

// A layer TensorRT moved from DLA to the GPU, in any of the warning syntaxes.
struct DlaFallback {
  std::string layer;        // the network layer named by the warning
  std::string kind;         // "SLICE", "Gather", ... where the warning names one
  std::string reason;       // TensorRT's reason text ("" when it gave none)
  std::string syntax;       // "8.x", "10.x", "precision", "dynamic-shape"
  SourceLoc source;         // the warning
  SourceLoc reason_source;  // the separate reason line (10.x), line 0 when none
  int run = 0;
};

// A precision fallback TensorRT announced for a tensor ("Missing scale and zero-point for
// tensor X, expect fall back to non-int8 implementation for any layer consuming or producing
// given tensor").
struct PrecisionFallback {
  std::string tensor;
  std::string reason;  // the message as printed
  SourceLoc source;
  int run = 0;
};

// One iteration of TensorRT 11.1's build tuner (a log's banners and lines, or a cache line).
struct TunerIteration {
  int iter = -1;
  std::string route;
  bool begun = false, ended = false, aborted = false, crash = false;
  std::string error_message;
  std::optional<double> gpu_time_ms;
  std::vector<std::pair<std::string, double>> accuracy_loss;  // tensor -> loss
  std::string accuracy_algorithm;
  bool accuracy_failed = false;
  SourceLoc source;       // TASK_BEGIN / "Tuning iteration [i]" / the cache line
  uint64_t end_line = 0;  // TASK_END / TASK_ABORT: the builds between belong to this iteration
};

struct TuningRun {
  std::string path;
  std::string from;                                 // "log" or "cache"
  std::optional<int> expanded;                      // "Expanded to N build route configurations"
  std::vector<std::pair<std::string, int>> phases;  // "Tuning <phase>: N iterations."
  std::string default_route;
  int best_iter = -1;
  std::string best_route;
  std::optional<double> best_gpu_ms;
  std::optional<int> summary_ok, summary_total;
  nlohmann::ordered_json header = nlohmann::ordered_json::object();  // cache header, as given
  std::vector<TunerIteration> iterations;
  SourceLoc best_source;
  // Filled by analysis: what the tuner changed, the build of the best route against the build
  // of the default route (build ids; -1 when the inputs lack one) and the diff of the two;
  // `comparison_note` says why there is none.
  int default_iter = -1;
  int default_build = -1, best_build = -1;
  std::shared_ptr<const DiffResult> best_vs_default;
  std::string comparison_note;
};

// An explanation (analysis): kind "passed" (TensorRT did it), "missed" (it did not, with the
// reason it gave or the evidence), "analysis" (a fact worth knowing).
struct Remark {
  std::string kind;
  std::string category;  // "precision", "fusion", "reformat", "dla", "tuner"
  int build = -1;
  std::string layer;
  std::vector<std::string> onnx_nodes;
  std::string reason;
  std::vector<SourceLoc> evidence;
  std::string scope;  // the ONNX scope ("/model.22") remarks are grouped and deduplicated by
  int repeats = 1;    // identical remarks folded into this one
  std::optional<double> time_ms;  // reformats: average time, where profiled
  std::optional<uint64_t> bytes;  // reformats: bytes moved (input + output)
};

}  // namespace trtlens
