// Time: per-layer profile rows, timing traces and runtime logs (options, device, performance
// summary).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/maybe.h"

namespace trtlens {

struct LayerTime {
  Maybe<double> total_ms, average_ms, median_ms, percentage;
  std::string profile_row;  // the profile's name for this layer when it differs
};

// Layers of one type / output precision / the reformat layers, summed (analysis).
struct TimeGroup {
  std::string key;
  int layers = 0;
  double total_ms = 0, average_ms = 0, percentage = 0;
};

// One row of a per-layer profile (--exportProfile JSON or a --dumpProfile table), as given.
struct ProfileRow {
  std::string name;  // verbatim (tables: trimmed of alignment padding)
  Maybe<double> total_ms, average_ms, median_ms, percentage;  // absent when non-finite
  uint64_t line = 0;
};

struct BuildProfile {
  bool present = false;
  std::string source;            // path of the profile
  std::optional<int64_t> count;  // iterations ("count" / "=== Profile (N iterations ) ===")
  std::vector<std::string> unmatched_rows;    // profile rows that joined no layer
  std::vector<std::string> unmatched_layers;  // layers with no profile row
  std::string format;  // "export-json", "table-8.2", "table-8.4", "table-8.6"
  uint64_t line = 0;   // where the profile starts in `source`
  std::vector<ProfileRow> rows;
  std::optional<ProfileRow> total;    // the table's "Total" row
  std::vector<std::string> warnings;  // auxiliary streams, non-finite numbers ...
  int joined = 0;                     // rows joined to a layer (analysis)
  int joined_by_suffix = 0;           // of which through " [profile N]" or a truncated name
  double sum_average_ms = 0;          // Σ per-layer averages (analysis)
  double sum_percentage = 0;
  std::optional<double> gpu_compute_ms;          // the run's GPU Compute Time (median, else mean)
  std::string gpu_compute_from;                  // "path: performance summary" / "path: times"
  std::vector<TimeGroup> by_type, by_precision;  // sorted by average, largest first
  TimeGroup reformat;                            // Reformat layers / "Reformatting CopyNode"
};

// One labelled figure of a performance summary: "Latency" / "percentile(99%)" = 2.34 ms.
struct PerfFigure {
  std::string metric;  // "Throughput", "Latency", "GPU Compute Time", ...
  std::string stat;    // "min", "max", "mean", "median", "percentile(90%)", "" for scalars
  double value = 0;
  std::string unit;  // "ms", "qps", "s"
};

// One query of an --exportTimes trace; NaN where the key set lacks the field.
struct TimeRecord {
  double start_enq, end_enq, start_in, end_in, start_compute, end_compute, start_out, end_out,
      in_ms, compute_ms, out_ms, latency_ms, end_to_end_ms;
};

struct Stats {
  size_t count = 0;
  double min = 0, max = 0, mean = 0, median = 0, p90 = 0, p95 = 0, p99 = 0, stddev = 0;
  double cv_percent = 0;     // stddev / mean * 100
  double drift_percent = 0;  // mean of the first 10 % of queries against the rest
};

struct TimingTrace {
  std::string source;
  std::string key_set;  // "7.0", "7.2", "8.0-8.2", "8.4+"
  bool truncated = false;
  // A deque: 5M records grow without a reallocation copying them (104 B each plus the deque's
  // block overhead, about 128 B per record in all).
  std::deque<TimeRecord> records;
  // Statistics (analysis).
  Stats latency, compute;
  double walltime_ms = 0, throughput_qps = 0;
};

// "Average on 10 runs - GPU latency: 1.8 ms - Host latency: 1.9 ms (enqueue 0.4 ms)".
struct TraceAverage {
  int runs = 0;
  uint64_t line = 0;
  std::optional<double> gpu_ms, host_ms, enqueue_ms, end_to_end_ms;
};

using KeyValues = std::vector<std::pair<std::string, std::string>>;

// How a run ended, judged from what its log shows (analysis).
enum class RunStatus {
  Unknown,   // an excerpt: no banner, no trailer, no error
  Running,   // started (banner) and the log ends without an end, not inside a build
  Passed,    // "&&&& PASSED"
  Failed,    // "&&&& FAILED", or error lines and then the log ends
  Crashed,   // assertion, signal, abort, or a trtexec log that stops mid-build
  TimedOut,  // a job runner's time limit
  Cut,       // the file ends mid-line
};
const char* to_string(RunStatus s);

// The stages of an engine build and run, in the order TensorRT goes through them.
enum class RunPhase {
  None,
  Parsing,           // reading the ONNX model
  Optimization,      // graph optimisation and fusion
  TacticSelection,   // timing kernels for each layer
  EngineGeneration,  // tactics chosen, the engine is laid out
  Serialization,     // the engine is written out
  Inference,         // loading and running an engine
};
const char* to_string(RunPhase p);

struct PhaseMark {
  RunPhase phase = RunPhase::None;
  uint64_t line = 0;
  std::string text;  // the line that showed it
};

// What tactic selection was doing last: the node being timed, its formats and the tactics.
struct TacticAttempt {
  std::string node;
  std::string runner;                // implementation class in "Timing Runner: X (CaskConvolution)"
  std::string formats;               // "Float(150528,50176,224,1) -> Half(...)"
  std::vector<std::string> tactics;  // tactics tried for `node` (in order), the first kKept
  uint64_t tried = 0;                 // how many were tried (more than `tactics` holds past kKept)
  uint64_t line = 0;
  // A block of millions of tactic lines (a hostile log) must not keep each id as text.
  static constexpr size_t kKept = 10000;
};

// One error or warning line from TensorRT, the ONNX parser or trtexec.
struct LogRecord {
  char severity = 'E';      // 'E' (error, internal error, fatal) or 'W'
  std::optional<int> code;  // "Error Code N"
  std::string category;     // "Internal Error", "OutOfMemory", "UNSUPPORTED_NODE", ...
  std::string message;      // the text, without prefixes, code and category
  std::string origin;       // where TensorRT says it was raised: "network.cpp::validate::2924"
  std::string node;         // a node or layer the message names ("" when none)
  bool tensorrt = false;    // raised inside TensorRT (its logger tag or an error code)
  uint64_t line = 0;
  // Analysis: `node` linked to the ONNX model and the engine.
  std::string onnx_node;            // the ONNX node of that name, when the model lists it
  std::vector<std::string> layers;  // engine layers built from it
};

// Records of one kind: same severity, code, category and message with names and numbers
// replaced ("Could not find any implementation for node <name>.").
struct RecordGroup {
  char severity = 'E';
  std::optional<int> code;
  std::string category;
  std::string pattern;
  size_t count = 0;
  uint64_t first_line = 0;
  std::vector<std::string> nodes;  // distinct nodes named, in order
};

// How the process stopped when it did not print a trailer: an assertion, a signal, a limit.
struct RunStop {
  std::string kind;  // assertion, aborted, segfault, bus-error, killed, exception, timeout
  uint64_t line = 0;
  std::string text;
};

// One trtexec run (or one group of runtime sections in a log).
struct RunInfo {
  std::string path;
  uint64_t line = 0;
  std::string trt_version;
  std::string trt_version_from;  // the line that named it: "banner", "TensorRT version", ...
  std::string command_line;
  std::string banner;  // the last "&&&& X" state printed: RUNNING, PASSED, FAILED, WAIVED
  uint64_t banner_line = 0;
  KeyValues model_options, build_options, inference_options, reporting_options, system_options,
      device;
  std::vector<PerfFigure> perf;
  std::vector<std::string> warnings;
  std::vector<TraceAverage> trace_averages;
  std::optional<TimingTrace> times;  // an --exportTimes file is a run of its own
  int build_run = -1;                // Build::run of the same log, -1 for a times file
  // What went wrong: error and warning lines, how the process stopped, where it was.
  std::vector<LogRecord> records;
  std::optional<RunStop> stop;
  PhaseMark last_phase;
  std::optional<TacticAttempt> tactic;  // the last tactic selection seen
  uint64_t cut_at = 0;                  // the file ends mid-line here
  // Analysis.
  RunStatus status = RunStatus::Unknown;
  std::string status_reason;        // "&&&& FAILED at line 40", "Assertion ... at line 12"
  std::vector<RecordGroup> groups;  // errors first, then by count

  // The value of `key` in the build options ("" when absent).
  std::string build_option(const std::string& key) const;
};

// `name` without a trailing " [profile N]" (the suffix TensorRT gives the layers of the second
// and later optimization profiles); `name` itself when it has none.
inline std::string_view strip_profile_suffix(std::string_view name) {
  if (name.empty() || name.back() != ']') return name;
  size_t open = name.rfind(" [profile ");
  if (open == std::string_view::npos) return name;
  std::string_view digits = name.substr(open + 10, name.size() - open - 11);
  if (digits.empty()) return name;
  for (char c : digits)
    if (c < '0' || c > '9') return name;
  return name.substr(0, open);
}

}  // namespace trtlens
