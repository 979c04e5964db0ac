#include "store/trend.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

namespace trtlens {
namespace {

struct MetricInfo {
  TrendMetric metric;
  const char* name;
  const char* column;  // builds column (empty: computed)
  const char* unit;
};

constexpr MetricInfo kMetrics[] = {
    {TrendMetric::Latency, "latency", "latency_median_ms", "ms"},
    {TrendMetric::LayerTime, "layer-time", "sum_layer_ms", "ms"},
    {TrendMetric::Reformats, "reformats", "reformat_layers", "layers"},
    {TrendMetric::Weights, "weights", "weights_bytes", "bytes"},
    {TrendMetric::PeakActivation, "peak-activation", "peak_activation_bytes", "bytes"},
    {TrendMetric::Precision, "precision", "", "FP32 layers"},
};

const MetricInfo& info(TrendMetric m) {
  for (const auto& i : kMetrics)
    if (i.metric == m) return i;
  return kMetrics[0];
}

std::optional<double> as_double(const sql::Value& v) {
  if (auto* i = std::get_if<int64_t>(&v)) return double(*i);
  if (auto* d = std::get_if<double>(&v)) return *d;
  return std::nullopt;
}

struct LayerRow {
  std::string type, precision;
  std::optional<double> ms;
};

std::unordered_map<std::string, LayerRow> layers_of(Store& store, int64_t build_id,
                                                    std::vector<std::string>& order) {
  sql::Stmt s(store.db(),
              "SELECT name, type, precision, average_ms FROM layers WHERE build_id = ? "
              "AND role <> 'elided' ORDER BY idx");
  s.bind(1, build_id);
  std::unordered_map<std::string, LayerRow> out;
  while (s.step()) {
    std::string name = s.text(0);
    if (out.count(name)) continue;  // duplicate names: the first stands for them
    order.push_back(name);
    out[name] = LayerRow{s.text(1), s.text(2),
                         s.is_null(3) ? std::nullopt : as_double(s.value(3))};
  }
  return out;
}

std::vector<LayerChange> layer_changes(Store& store, int64_t base_id, int64_t head_id) {
  std::vector<std::string> base_order, head_order;
  auto base = layers_of(store, base_id, base_order);
  auto head = layers_of(store, head_id, head_order);
  std::vector<LayerChange> out, times;
  constexpr size_t kEach = 10;
  size_t added = 0, removed = 0;
  for (const auto& name : head_order) {
    auto it = base.find(name);
    const LayerRow& h = head[name];
    if (it == base.end()) {
      if (added++ < kEach) out.push_back({name, "added", "", h.type + " " + h.precision, h.ms});
      continue;
    }
    const LayerRow& b = it->second;
    if (b.precision != h.precision) out.push_back({name, "precision", b.precision, h.precision, {}});
    if (b.type != h.type) out.push_back({name, "type", b.type, h.type, {}});
    if (b.ms && h.ms && *b.ms != *h.ms) {
      std::ostringstream bs, hs;
      bs << *b.ms;
      hs << *h.ms;
      times.push_back({name, "time", bs.str(), hs.str(), *h.ms - *b.ms});
    }
  }
  for (const auto& name : base_order)
    if (!head.count(name) && removed++ < kEach)
      out.push_back({name, "removed", base[name].type + " " + base[name].precision, "",
                     base[name].ms ? std::optional<double>(-*base[name].ms) : std::nullopt});
  std::stable_sort(times.begin(), times.end(), [](const LayerChange& a, const LayerChange& b) {
    return std::fabs(*a.delta_ms) > std::fabs(*b.delta_ms);
  });
  if (times.size() > 5) times.resize(5);
  out.insert(out.end(), times.begin(), times.end());
  return out;
}

}  // namespace

std::optional<TrendMetric> parse_trend_metric(const std::string& name) {
  for (const auto& i : kMetrics)
    if (name == i.name) return i.metric;
  return std::nullopt;
}
const char* to_string(TrendMetric m) { return info(m).name; }
const char* unit_of(TrendMetric m) { return info(m).unit; }

Trend compute_trend(Store& store, const std::string& model, const std::string& target,
                    TrendMetric metric, double jump_percent) {
  Trend t;
  t.model = model;
  t.target = target;
  t.metric = metric;
  const MetricInfo& mi = info(metric);
  // The column name comes from the fixed table above, never from the user.
  std::string value_col = mi.column[0] ? std::string("h.") + mi.column : "NULL";
  if (metric == TrendMetric::Latency)
    value_col = "CASE WHEN h.latency_source IN ('times', 'performance-summary') "
                "THEN h.latency_median_ms END";
  sql::Stmt s(store.db(),
              "SELECT h.capture_id, h.id, h.date, COALESCE(h.trt_version, "
              "h.capture_trt_version), h.git_revision, h.target, h.latency_source, " +
                  value_col +
                  " FROM build_history h WHERE h.model IS ? AND (? = '' OR h.target IS ?) "
                  "ORDER BY h.date, h.capture_id, h.build_index");
  s.bind(1, model).bind(2, target).bind(3, target);
  while (s.step()) {
    TrendPoint p;
    p.capture_id = s.int64(0);
    p.build_id = s.int64(1);
    p.date = s.text(2);
    p.trt_version = s.text(3);
    p.git_revision = s.text(4);
    p.target = s.text(5);
    p.latency_source = s.text(6);
    p.value = as_double(s.value(7));
    t.points.push_back(std::move(p));
  }
  if (metric == TrendMetric::Precision) {
    sql::Stmt mix(store.db(), "SELECT precision, layers FROM precision_mix WHERE build_id = ?");
    for (auto& p : t.points) {
      mix.bind(1, p.build_id);
      int64_t fp32 = 0;
      while (mix.step()) {
        p.precision_layers[mix.text(0)] = mix.int64(1);
        if (mix.text(0) == "FP32") fp32 = mix.int64(1);
      }
      mix.reset();
      p.value = double(fp32);
    }
  }
  const TrendPoint* prev = nullptr;
  for (size_t i = 0; i < t.points.size(); ++i) {
    TrendPoint& p = t.points[i];
    if (!p.value) continue;
    if (prev) {
      double b = *prev->value;
      if (b != 0)
        p.change_percent = (*p.value - b) / std::fabs(b) * 100;
      else if (*p.value != 0)
        p.change_percent = INFINITY;
      if (p.change_percent && std::fabs(*p.change_percent) >= jump_percent)
        t.jumps.push_back({i, layer_changes(store, prev->build_id, p.build_id)});
    }
    prev = &p;
  }
  return t;
}

std::vector<TrendGate> parse_trend_gates(const std::string& spec) {
  std::vector<TrendGate> out;
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    size_t colon = item.find(':');
    if (colon == std::string::npos)
      throw std::invalid_argument("'" + item + "': expected METRIC:+N or METRIC:+N%");
    TrendGate g;
    g.text = item;
    auto m = parse_trend_metric(item.substr(0, colon));
    if (!m) throw std::invalid_argument("'" + item.substr(0, colon) + "' is not a metric");
    g.metric = *m;
    std::string lim = item.substr(colon + 1);
    if (!lim.empty() && lim.back() == '%') {
      g.percent = true;
      lim.pop_back();
    }
    size_t pos = 0;
    try {
      g.limit = std::stod(lim, &pos);
    } catch (const std::exception&) {
      pos = 0;
    }
    if (lim.empty() || pos != lim.size() || !std::isfinite(g.limit) || g.limit < 0)
      throw std::invalid_argument("'" + item + "': the limit must be a number >= 0, like +5%");
    out.push_back(g);
  }
  if (out.empty()) throw std::invalid_argument("no gate given");
  return out;
}

void evaluate_gates(Store& store, const std::string& model, const std::string& target,
                    std::vector<TrendGate>& gates) {
  for (auto& g : gates) {
    Trend t = compute_trend(store, model, target, g.metric, INFINITY);
    std::vector<const TrendPoint*> with;
    for (const auto& p : t.points)
      if (p.value) with.push_back(&p);
    if (t.points.empty()) {
      g.note = "no stored build of this model";
      continue;
    }
    if (!t.points.back().value) {
      g.note = "the newest build has no " + std::string(to_string(g.metric)) + " figure";
      continue;
    }
    if (with.size() < 2) {
      g.note = "no previous build with a " + std::string(to_string(g.metric)) + " figure";
      continue;
    }
    g.base = *with[with.size() - 2]->value;
    g.head = *with.back()->value;
    g.evaluated = true;
    double rise = *g.head - *g.base;
    // As diff's gates: a rise of at least the limit fails.
    if (g.percent)
      g.failed = *g.base != 0 ? rise / std::fabs(*g.base) * 100 >= g.limit : rise > 0;
    else
      g.failed = rise >= g.limit;
  }
}

}  // namespace trtlens
