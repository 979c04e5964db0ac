// Time: per-layer profile rows, timing traces and runtime logs (options, device, performance
// summary). Owned by the time work (issue 4); others read these fields.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace trtlens {

struct LayerTime {
  std::optional<double> total_ms, average_ms, median_ms, percentage;
  std::string profile_row;  // the profile's name for this layer when it differs
};

struct BuildProfile {
  bool present = false;
  std::string source;            // path of the profile
  std::optional<int64_t> count;  // iterations ("count" / "=== Profile (N iterations ) ===")
  std::vector<std::string> unmatched_rows;    // profile rows that joined no layer
  std::vector<std::string> unmatched_layers;  // layers with no profile row
};

// One labelled figure of a performance summary: "Latency" / "percentile(99%)" = 2.34 ms.
struct PerfFigure {
  std::string metric;  // "Throughput", "Latency", "GPU Compute Time", ...
  std::string stat;    // "min", "max", "mean", "median", "percentile(90%)", "" for scalars
  double value = 0;
  std::string unit;    // "ms", "qps", "s"
};

using KeyValues = std::vector<std::pair<std::string, std::string>>;

// One trtexec run (or one group of runtime sections in a log).
struct RunInfo {
  std::string path;
  uint64_t line = 0;
  std::string trt_version;
  std::string command_line;
  std::string status;  // RUNNING, PASSED, FAILED
  KeyValues model_options, build_options, inference_options, reporting_options, system_options,
      device;
  std::vector<PerfFigure> perf;
  std::vector<std::string> warnings;

  // The value of `key` in the build options ("" when absent).
  std::string build_option(const std::string& key) const;
};

}  // namespace trtlens
