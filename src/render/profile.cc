#include "render/profile.h"

#include <cmath>
#include <cstdio>

#include "analysis/time.h"
#include "render/escape.h"
#include "render/views.h"
#include "render/runs.h"

namespace trtlens {

using ojson = nlohmann::ordered_json;

namespace {

std::string num(double v, int decimals = 4) {
  if (!std::isfinite(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string opt(const std::optional<double>& v, int decimals = 4) {
  return v ? num(*v, decimals) : "-";
}

ojson opt_json(const std::optional<double>& v) { return v ? ojson(*v) : ojson(nullptr); }

ojson key_values_json(const KeyValues& kv) {
  ojson j = ojson::object();
  for (const auto& [k, v] : kv) j[k] = v;
  return j;
}

ojson stats_json(const Stats& s) {
  return {{"count", s.count},
          {"min", s.min},
          {"max", s.max},
          {"mean", s.mean},
          {"median", s.median},
          {"p90", s.p90},
          {"p95", s.p95},
          {"p99", s.p99},
          {"stddev", s.stddev},
          {"cv_percent", s.cv_percent},
          {"drift_percent", s.drift_percent}};
}

ojson group_json(const TimeGroup& g) {
  return {{"key", g.key},
          {"layers", g.layers},
          {"total_ms", g.total_ms},
          {"average_ms", g.average_ms},
          {"percentage", g.percentage}};
}

// The CUDA events around each layer add time, so Σ averages usually exceeds GPU compute time.
bool sums_differ(const BuildProfile& p) {
  return p.gpu_compute_ms && *p.gpu_compute_ms > 0 &&
         std::fabs(p.sum_average_ms - *p.gpu_compute_ms) > 0.1 * *p.gpu_compute_ms;
}

void write_section(const std::string& title, const TextTable& t, const std::string& format,
                   std::ostream& os) {
  os << (format == "md" ? "### " : "") << title << "\n" << (format == "md" ? "\n" : "");
  write_table(t, format, os);
  os << '\n';
}

void write_list(const char* label, const std::vector<std::string>& names, std::ostream& os) {
  if (names.empty()) return;
  os << label << " (" << names.size() << "):\n";
  for (size_t i = 0; i < names.size() && i < 20; ++i)
    os << "  " << escape_terminal(names[i]) << '\n';
  if (names.size() > 20) os << "  ... " << names.size() - 20 << " more (trtlens json lists all)\n";
}

}  // namespace

TextTable profile_layers_table(const Build& b) {
  TextTable t;
  t.headers = {"#", "layer", "type", "precision", "total ms", "avg ms", "median ms", "%"};
  t.right_align = {true, false, false, false, true, true, true, true};
  for (size_t i = 0; i < b.layers.size(); ++i) {
    const Layer& l = b.layers[i];
    const LayerTime& tm = l.time;
    if (!tm.total_ms && !tm.average_ms && !tm.percentage) continue;
    t.rows.push_back({std::to_string(i), l.name, l.type.empty() ? "?" : l.type,
                      precision_or_unknown(l), opt(tm.total_ms), opt(tm.average_ms),
                      opt(tm.median_ms), opt(tm.percentage, 2)});
  }
  return t;
}

TextTable time_groups_table(const std::vector<TimeGroup>& groups, const std::string& key_header) {
  TextTable t;
  t.headers = {key_header, "layers", "total ms", "avg ms", "%"};
  t.right_align = {false, true, true, true, true};
  for (const auto& g : groups)
    t.rows.push_back({g.key, std::to_string(g.layers), num(g.total_ms), num(g.average_ms),
                      num(g.percentage, 2)});
  return t;
}

TextTable top_layers_table(const Build& b, const std::vector<size_t>& top) {
  TextTable t;
  t.headers = {"#", "layer", "type", "avg ms", "%"};
  t.right_align = {true, false, false, true, true};
  for (size_t i : top) {
    const Layer& l = b.layers[i];
    t.rows.push_back({std::to_string(i), l.name, l.type.empty() ? "?" : l.type,
                      opt(l.time.average_ms), opt(l.time.percentage, 2)});
  }
  return t;
}

TextTable perf_table(const RunInfo& r) {
  TextTable t;
  t.headers = {"metric", "stat", "value", "unit"};
  t.right_align = {false, false, true, false};
  for (const auto& f : r.perf)
    t.rows.push_back({f.metric, f.stat.empty() ? "-" : f.stat, num(f.value, 6), f.unit});
  return t;
}

TextTable trace_table(const TimingTrace& tr) {
  TextTable t;
  t.headers = {"ms",  "count", "min", "max",  "mean",   "median",
               "p90", "p95",   "p99", "CV %", "drift %"};
  t.right_align = std::vector<bool>(t.headers.size(), true);
  t.right_align[0] = false;
  auto row = [&](const char* name, const Stats& s) {
    if (!s.count) return;
    t.rows.push_back({name, std::to_string(s.count), num(s.min), num(s.max), num(s.mean),
                      num(s.median), num(s.p90), num(s.p95), num(s.p99), num(s.cv_percent, 2),
                      num(s.drift_percent, 2)});
  };
  row("latency", tr.latency);
  row("GPU compute", tr.compute);
  return t;
}

void write_time_summary(const Build& b, std::ostream& os) {
  const BuildProfile& p = b.profile;
  if (!p.present) return;
  os << "  profile: " << escape_terminal(p.source) << " (" << p.format;
  if (p.count) os << ", " << *p.count << " iterations";
  os << "): " << p.rows.size() << " rows, " << p.joined << " joined";
  if (p.joined_by_suffix) os << " (" << p.joined_by_suffix << " by suffix or prefix)";
  os << ", " << p.unmatched_rows.size() << " unmatched rows, " << p.unmatched_layers.size()
     << " layers without a row\n";
  os << "  sum of per-layer averages: " << num(p.sum_average_ms) << " ms";
  if (p.gpu_compute_ms) os << "; GPU compute time " << num(*p.gpu_compute_ms) << " ms";
  os << '\n';
  if (sums_differ(p))
    os << "  note: per-layer times include the profiler's CUDA-event overhead; their sum differs"
          " from the engine's GPU compute time by more than 10 %\n";
}

void write_runs_summary(const Capture& c, std::ostream& os) {
  for (const auto& r : c.runs) {
    os << "run: " << escape_terminal(r.path) << ':' << r.line;
    if (!r.trt_version.empty()) os << " TensorRT " << escape_terminal(r.trt_version);
    if (!r.trt_version_from.empty()) os << " (" << escape_terminal(r.trt_version_from) << ')';
    os << '\n';
    if (!r.command_line.empty()) os << "  command: " << escape_terminal(r.command_line) << '\n';
    write_run_outcome(r, os);
    for (const auto& [k, v] : r.device)
      if (k == "Selected Device" || k == "Compute Capability")
        os << "  " << escape_terminal(k) << ": " << escape_terminal(v) << '\n';
    for (const auto& f : r.perf)
      if ((f.metric == "Throughput" && f.stat.empty()) ||
          ((f.metric == "Latency" || f.metric == "GPU Compute Time") && f.stat == "median"))
        os << "  " << escape_terminal(f.metric) << (f.stat.empty() ? "" : " " + f.stat) << ": "
           << num(f.value, 4) << ' ' << escape_terminal(f.unit) << '\n';
    if (r.times) {
      const TimingTrace& t = *r.times;
      os << "  times: " << t.records.size() << " queries (keys of TRT " << t.key_set << ")"
         << (t.truncated ? ", truncated" : "") << "; latency median " << num(t.latency.median)
         << " ms, p99 " << num(t.latency.p99) << " ms; throughput " << num(t.throughput_qps, 1)
         << " qps\n";
    }
    for (const auto& w : r.warnings) os << "  warning: " << escape_terminal(w) << '\n';
  }
}

void write_profile_report(const Capture& c, const std::vector<const Build*>& builds,
                          const std::vector<std::vector<size_t>>& tops, const std::string& format,
                          std::ostream& os) {
  if (format == "csv") {
    for (const Build* b : builds) write_csv(profile_layers_table(*b), os);
    return;
  }
  for (size_t i = 0; i < builds.size(); ++i) {
    const Build& b = *builds[i];
    os << (format == "md" ? "## " : "") << "build " << b.id << (b.final ? " (final)" : "") << ", "
       << to_string(b.kind) << ", " << format_layer_counts(b.totals) << '\n';
    if (!b.profile.present) {
      os << "  no profile for this build\n\n";
      continue;
    }
    write_time_summary(b, os);
    if (b.profile.reformat.layers)
      os << "  reformat layers: " << b.profile.reformat.layers << ", "
         << num(b.profile.reformat.average_ms) << " ms average ("
         << num(b.profile.reformat.percentage, 2) << " %)\n";
    for (const auto& w : b.profile.warnings) os << "  warning: " << escape_terminal(w) << '\n';
    os << '\n';
    write_section("per layer", profile_layers_table(b), format, os);
    write_section("by layer type", time_groups_table(b.profile.by_type, "type"), format, os);
    write_section("by output precision", time_groups_table(b.profile.by_precision, "precision"),
                  format, os);
    write_section("top " + std::to_string(tops[i].size()) + " by average",
                  top_layers_table(b, tops[i]), format, os);
    write_list("profile rows that joined no layer", b.profile.unmatched_rows, os);
    write_list("layers without a profile row", b.profile.unmatched_layers, os);
  }
  for (const auto& r : c.runs) {
    os << (format == "md" ? "## " : "") << "run " << escape_terminal(r.path) << ':' << r.line
       << (r.times ? "" : std::string(" ") + to_string(r.status)) << '\n';
    if (!r.perf.empty()) write_section("performance summary", perf_table(r), format, os);
    if (r.times)
      write_section("times (" + std::to_string(r.times->records.size()) + " queries)",
                    trace_table(*r.times), format, os);
  }
}

ojson layer_time_json(const LayerTime& t) {
  if (!t.total_ms && !t.average_ms && !t.median_ms && !t.percentage) return nullptr;
  ojson j = {{"total_ms", opt_json(t.total_ms)},
             {"average_ms", opt_json(t.average_ms)},
             {"median_ms", opt_json(t.median_ms)},
             {"percentage", opt_json(t.percentage)}};
  if (!t.profile_row.empty()) j["profile_row"] = t.profile_row;
  return j;
}

ojson build_profile_json(const BuildProfile& p) {
  if (!p.present) return nullptr;
  ojson j;
  j["source"] = p.source;
  j["line"] = p.line;
  j["format"] = p.format;
  j["count"] = p.count ? ojson(*p.count) : ojson(nullptr);
  j["rows"] = p.rows.size();
  j["joined"] = p.joined;
  j["joined_by_suffix"] = p.joined_by_suffix;
  j["sum_average_ms"] = p.sum_average_ms;
  j["sum_percentage"] = p.sum_percentage;
  j["gpu_compute_ms"] = opt_json(p.gpu_compute_ms);
  if (!p.gpu_compute_from.empty()) j["gpu_compute_from"] = p.gpu_compute_from;
  if (p.total)
    j["total"] = {{"total_ms", opt_json(p.total->total_ms)},
                  {"average_ms", opt_json(p.total->average_ms)},
                  {"median_ms", opt_json(p.total->median_ms)}};
  j["by_type"] = ojson::array();
  for (const auto& g : p.by_type) j["by_type"].push_back(group_json(g));
  j["by_precision"] = ojson::array();
  for (const auto& g : p.by_precision) j["by_precision"].push_back(group_json(g));
  j["reformat"] = group_json(p.reformat);
  j["unmatched_rows"] = p.unmatched_rows;
  j["unmatched_layers"] = p.unmatched_layers;
  j["warnings"] = p.warnings;
  return j;
}

ojson run_json(const RunInfo& r) {
  ojson j;
  j["path"] = r.path;
  j["line"] = r.line;
  j["trt_version"] = r.trt_version.empty() ? ojson(nullptr) : ojson(r.trt_version);
  j["status"] = nullptr;  // an --exportTimes file has no outcome
  j["command_line"] = r.command_line.empty() ? ojson(nullptr) : ojson(r.command_line);
  j["model_options"] = key_values_json(r.model_options);
  j["build_options"] = key_values_json(r.build_options);
  j["system_options"] = key_values_json(r.system_options);
  j["inference_options"] = key_values_json(r.inference_options);
  j["reporting_options"] = key_values_json(r.reporting_options);
  j["device"] = key_values_json(r.device);
  j["perf"] = ojson::array();
  for (const auto& f : r.perf)
    j["perf"].push_back(
        {{"metric", f.metric}, {"stat", f.stat}, {"value", f.value}, {"unit", f.unit}});
  j["trace_averages"] = ojson::array();
  for (const auto& a : r.trace_averages)
    j["trace_averages"].push_back({{"runs", a.runs},
                                   {"line", a.line},
                                   {"gpu_ms", opt_json(a.gpu_ms)},
                                   {"host_ms", opt_json(a.host_ms)},
                                   {"enqueue_ms", opt_json(a.enqueue_ms)},
                                   {"end_to_end_ms", opt_json(a.end_to_end_ms)}});
  j["warnings"] = r.warnings;
  add_run_outcome_json(r, j);
  if (r.times) {
    const TimingTrace& t = *r.times;
    j["times"] = {{"source", t.source},
                  {"key_set", t.key_set},
                  {"queries", t.records.size()},
                  {"truncated", t.truncated},
                  {"walltime_ms", t.walltime_ms},
                  {"throughput_qps", t.throughput_qps},
                  {"latency", stats_json(t.latency)},
                  {"compute", stats_json(t.compute)}};
  }
  return j;
}

}  // namespace trtlens
