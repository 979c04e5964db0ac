#include "analysis/time.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "analysis/summary.h"

namespace trtlens {
namespace {

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

void join_profile(Build& b) {
  BuildProfile& p = b.profile;
  for (auto& l : b.layers) l.time = LayerTime{};
  p.unmatched_rows.clear();
  p.unmatched_layers.clear();
  p.joined = p.joined_by_suffix = 0;
  p.sum_average_ms = p.sum_percentage = 0;

  std::unordered_map<std::string_view, size_t> exact, stripped;
  exact.reserve(b.layers.size());
  stripped.reserve(b.layers.size());
  for (size_t i = 0; i < b.layers.size(); ++i) {
    exact.emplace(b.layers[i].name, i);
    stripped.emplace(strip_profile_suffix(b.layers[i].name), i);
  }
  std::vector<bool> taken(b.layers.size(), false);
  auto find = [&](const std::string& row, bool& by_suffix) -> std::optional<size_t> {
    by_suffix = false;
    if (auto it = exact.find(row); it != exact.end()) return it->second;
    by_suffix = true;
    std::string_view base = strip_profile_suffix(row);
    if (auto it = exact.find(base); it != exact.end()) return it->second;
    if (auto it = stripped.find(base); it != stripped.end()) return it->second;
    // A table cell cut short with "...": join only when exactly one free layer fits.
    if (ends_with(row, "...") && row.size() > 3) {
      std::string_view head = std::string_view(row).substr(0, row.size() - 3);
      std::optional<size_t> only;
      for (size_t i = 0; i < b.layers.size(); ++i) {
        if (taken[i] || b.layers[i].name.compare(0, head.size(), head) != 0) continue;
        if (only) return std::nullopt;
        only = i;
      }
      return only;
    }
    return std::nullopt;
  };

  for (const auto& row : p.rows) {
    if (row.average_ms) p.sum_average_ms += *row.average_ms;
    if (row.percentage) p.sum_percentage += *row.percentage;
    bool by_suffix = false;
    auto idx = find(row.name, by_suffix);
    if (!idx || taken[*idx]) {
      p.unmatched_rows.push_back(row.name);
      continue;
    }
    taken[*idx] = true;
    LayerTime& t = b.layers[*idx].time;
    t.total_ms = row.total_ms;
    t.average_ms = row.average_ms;
    t.median_ms = row.median_ms;
    t.percentage = row.percentage;
    if (row.name != b.layers[*idx].name) t.profile_row = row.name;
    ++p.joined;
    if (by_suffix) ++p.joined_by_suffix;
  }
  for (size_t i = 0; i < b.layers.size(); ++i)
    if (!taken[i]) p.unmatched_layers.push_back(b.layers[i].name);
}

void add_to(TimeGroup& g, const LayerTime& t) {
  ++g.layers;
  g.total_ms += t.total_ms.value_or(0);
  g.average_ms += t.average_ms.value_or(0);
  g.percentage += t.percentage.value_or(0);
}

std::vector<TimeGroup> sorted_groups(std::map<std::string, TimeGroup>& m) {
  std::vector<TimeGroup> out;
  for (auto& [k, g] : m) {
    g.key = k;
    out.push_back(g);
  }
  std::stable_sort(out.begin(), out.end(), [](const TimeGroup& a, const TimeGroup& b) {
    return a.average_ms > b.average_ms;
  });
  return out;
}

}  // namespace

void group_times(Build& b) {
  if (!b.profile.present) return;
  std::map<std::string, TimeGroup> types, precisions;
  b.profile.reformat = TimeGroup{"reformat"};
  for (const auto& l : b.layers) {
    if (!l.time.average_ms && !l.time.total_ms) continue;
    add_to(types[l.type.empty() ? "?" : l.type], l.time);
    add_to(precisions[precision_or_unknown(l)], l.time);
    if (l.role == LayerRole::Reformat) add_to(b.profile.reformat, l.time);
  }
  b.profile.by_type = sorted_groups(types);
  b.profile.by_precision = sorted_groups(precisions);
}

namespace {

std::optional<double> gpu_compute_of(const RunInfo& r) {
  std::optional<double> mean;
  for (const auto& f : r.perf) {
    if (f.metric != "GPU Compute Time" || f.unit != "ms") continue;
    if (f.stat == "median") return f.value;
    if (f.stat == "mean") mean = f.value;
  }
  if (mean) return mean;
  if (r.times && r.times->compute.count) return r.times->compute.median;
  return std::nullopt;
}

// The run a build's profile compares with: the same log and run first, then any run.
void find_gpu_compute(const Capture& c, Build& b) {
  const RunInfo* best = nullptr;
  for (const auto& r : c.runs) {
    if (!gpu_compute_of(r)) continue;
    bool same = r.path == b.source.path && r.build_run == b.run;
    if (same || !best) best = &r;
    if (same) break;
  }
  if (!best) return;
  b.profile.gpu_compute_ms = gpu_compute_of(*best);
  b.profile.gpu_compute_from =
      best->path + (best->times ? " (times, median computeMs)" : " (performance summary)");
}

// Host latency of a performance summary ("Latency: ... median = X ms, percentile(99%) = Y ms").
bool perf_latency(const RunInfo& r, Latency& out) {
  bool any = false;
  for (const auto& f : r.perf) {
    if ((f.metric != "Latency" && f.metric != "Host Latency") || f.unit != "ms") continue;
    if (f.stat == "median") out.median_ms = f.value, any = true;
    if (f.stat == "mean") out.mean_ms = f.value, any = true;
    if (f.stat == "percentile(99%)") out.p99_ms = f.value;
  }
  return any;
}

// The best latency source of the run a build belongs to: its own log and run first, then a
// times file given beside it (such runs have build_run == -1), then a profile's sum.
void find_latency(const Capture& c, Build& b) {
  b.latency = Latency{};
  const RunInfo* own = nullptr;
  const RunInfo* trace = nullptr;
  for (const auto& r : c.runs) {
    if (r.path == b.source.path && r.build_run == b.run) own = &r;
    if (r.times && r.times->latency.count && !trace) trace = &r;
  }
  if (own && own->times && own->times->latency.count) trace = own;
  if (trace) {
    const Stats& s = trace->times->latency;
    Latency& l = b.latency;
    l.source = Latency::Source::Times;
    l.from = trace->times->source.empty() ? trace->path : trace->times->source;
    l.median_ms = s.median;
    l.mean_ms = s.mean;
    l.p99_ms = s.p99;
    l.cv_percent = s.cv_percent;
    l.queries = s.count;
    return;
  }
  for (const RunInfo* r : {own}) {
    Latency l;
    if (r && perf_latency(*r, l)) {
      l.source = Latency::Source::PerfSummary;
      l.from = r->path;
      b.latency = l;
      return;
    }
  }
  for (const auto& r : c.runs) {
    Latency l;
    if (perf_latency(r, l)) {
      l.source = Latency::Source::PerfSummary;
      l.from = r.path;
      b.latency = l;
      return;
    }
  }
  if (b.profile.present && b.profile.joined > 0) {
    b.latency.source = Latency::Source::ProfileSum;
    b.latency.from = b.profile.source;
    b.latency.median_ms = b.profile.sum_average_ms;
    if (b.profile.count) b.latency.queries = size_t(*b.profile.count);
  }
}

void trace_stats(TimingTrace& t) {
  std::vector<double> lat, comp;
  for (const auto& r : t.records) {
    if (std::isfinite(r.latency_ms)) lat.push_back(r.latency_ms);
    if (std::isfinite(r.compute_ms)) comp.push_back(r.compute_ms);
  }
  t.latency = compute_stats(lat);
  t.compute = compute_stats(comp);
  t.walltime_ms = t.throughput_qps = 0;
  if (t.records.empty()) return;
  const TimeRecord& first = t.records.front();
  const TimeRecord& last = t.records.back();
  double start = std::isfinite(first.start_enq) ? first.start_enq : first.start_in;
  double end = std::isfinite(last.end_out) ? last.end_out : last.end_compute;
  if (std::isfinite(start) && std::isfinite(end) && end > start) {
    t.walltime_ms = end - start;
    t.throughput_qps = double(t.records.size()) / t.walltime_ms * 1000.0;
  }
}

}  // namespace

std::string precision_or_unknown(const Layer& l) {
  std::string p = output_precision(l);
  return p.empty() ? "?" : p;
}

std::vector<size_t> top_layers(const Build& b, size_t n) {
  std::vector<size_t> idx;
  for (size_t i = 0; i < b.layers.size(); ++i)
    if (b.layers[i].time.average_ms) idx.push_back(i);
  std::stable_sort(idx.begin(), idx.end(), [&](size_t x, size_t y) {
    return *b.layers[x].time.average_ms > *b.layers[y].time.average_ms;
  });
  if (idx.size() > n) idx.resize(n);
  return idx;
}

double trtexec_percentile(const std::vector<double>& sorted, float p) {
  if (sorted.empty()) return 0;
  const int32_t all = int32_t(sorted.size());
  const int32_t exclude = static_cast<int32_t>((1 - p / 100) * float(all));
  return sorted[size_t(std::max(all - 1 - exclude, 0))];
}

Stats compute_stats(const std::vector<double>& values) {
  Stats s;
  s.count = values.size();
  if (values.empty()) return s;
  std::vector<double> v = values;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
  size_t m = v.size() / 2;
  s.median = v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
  s.p90 = trtexec_percentile(v, 90);
  s.p95 = trtexec_percentile(v, 95);
  s.p99 = trtexec_percentile(v, 99);
  double sq = 0;
  for (double x : v) sq += (x - s.mean) * (x - s.mean);
  s.stddev = std::sqrt(sq / double(v.size()));
  s.cv_percent = s.mean != 0 ? s.stddev / s.mean * 100 : 0;
  // Drift: in query order, not sorted.
  if (values.size() >= 2) {
    size_t head = std::max<size_t>(1, values.size() / 10);
    double a = std::accumulate(values.begin(), values.begin() + long(head), 0.0) / double(head);
    double b = std::accumulate(values.begin() + long(head), values.end(), 0.0) /
               double(values.size() - head);
    s.drift_percent = b != 0 ? (a / b - 1) * 100 : 0;
  }
  return s;
}

void analyze_time(Capture& capture) {
  for (auto& r : capture.runs)
    if (r.times) trace_stats(*r.times);
  for (auto& b : capture.builds) {
    if (b.profile.present) {
      join_profile(b);
      find_gpu_compute(capture, b);
    }
    find_latency(capture, b);
  }
}

}  // namespace trtlens
