#include "analysis/diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "analysis/summary.h"
#include "model/values.h"

namespace trtlens {
namespace {

using json = nlohmann::ordered_json;

// Canonical layout label, comparable across versions: dtype plus vector width; the verbatim
// format string only when both sides gave one.
std::string format_label(const Tensor& t, bool verbatim) {
  if (verbatim) return t.format;
  std::string s = t.dtype.empty() ? "?" : t.dtype;
  if (t.vector_width > 0) s += ":" + std::to_string(t.vector_width);
  return s;
}

bool quantized(const std::string& dtype) {
  return dtype == "INT8" || dtype == "FP8" || dtype == "INT4" || dtype == "FP4";
}

std::string fmt_num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

KeyValues merged(const std::vector<RunInfo>& runs, KeyValues RunInfo::*field) {
  KeyValues out;
  std::unordered_set<std::string> seen;
  for (const auto& r : runs)
    for (const auto& kv : r.*field)
      if (seen.insert(kv.first).second) out.push_back(kv);
  return out;
}

const RunInfo* perf_run(const Capture& c) {
  const RunInfo* found = nullptr;
  for (const auto& r : c.runs)
    if (!r.perf.empty()) found = &r;  // the last run that measured
  return found;
}

// A running reformat (Layer::role, set by the analysis stage).
bool reformat_layer(const Layer& l) { return l.role == LayerRole::Reformat; }

DiffSide side_of(const Capture& c, const Build& b) {
  DiffSide s;
  for (const auto& in : c.inputs) s.label += (s.label.empty() ? "" : ", ") + in.path;
  s.trt_version = b.trt_version;
  if (s.trt_version.empty())
    for (const auto& r : c.runs)
      if (!r.trt_version.empty()) s.trt_version = r.trt_version;
  s.layers = b.layers.size();
  // The build's own totals (analysis/classify), so diff prints what summary and json print.
  const BuildTotals& t = b.totals;
  s.running_layers = t.running_layers;
  s.reformats = t.reformat_layers;
  s.reformat_bytes = t.reformat_bytes;
  s.reformat_ms = t.reformat_ms;
  s.sum_layer_ms = t.sum_layer_ms;
  s.weights_bytes = t.weights_bytes;
  s.peak_activation_bytes = t.peak_activation_bytes;
  s.engine_size_mib = b.memory.engine_size_mib;
  s.latency = b.latency;
  return s;
}

// Sum of the layers' average times; nullopt unless every layer has one.
std::optional<double> group_time(const Build& b, const std::vector<int>& layers) {
  double sum = 0;
  for (int i : layers) {
    const auto& ms = b.layers[size_t(i)].time.average_ms;
    if (!ms) return std::nullopt;
    sum += *ms;
  }
  return sum;
}

json opt_json(const std::optional<uint64_t>& v) { return v ? json(*v) : json(); }
json opt_json(const std::optional<double>& v) { return v ? json(*v) : json(); }

class Differ {
 public:
  Differ(const Capture& bc, const Build& b, const Capture& hc, const Build& h, DiffResult& out)
      : bc_(bc), b_(b), hc_(hc), h_(h), out_(out) {}

  void run() {
    out_.alignment = align_layers(b_, h_);
    fusion();
    for (const auto& p : out_.alignment.pairs) pair(p);
    node_precision();
    transitions();
    reformats();
    build_memory();
    version();
    key_values("option", merged(bc_.runs, &RunInfo::build_options),
               merged(hc_.runs, &RunInfo::build_options));
    key_values("device", merged(bc_.runs, &RunInfo::device), merged(hc_.runs, &RunInfo::device));
    perf();
    headline();
  }

 private:
  DiffChange& add(const std::string& kind, const std::string& what, json base, json head) {
    DiffChange c;
    c.kind = kind;
    c.what = what;
    c.base = std::move(base);
    c.head = std::move(head);
    if (c.base.is_number() && c.head.is_number())
      c.delta = c.head.get<double>() - c.base.get<double>();
    out_.changes.push_back(std::move(c));
    return out_.changes.back();
  }

  void fusion() {
    for (const auto& g : out_.alignment.fusion_groups) {
      auto& c = add("fusion", g.what, json(), json());
      for (int i : g.base) c.base_layers.push_back(b_.layers[size_t(i)].name);
      for (int i : g.head) c.head_layers.push_back(h_.layers[size_t(i)].name);
      c.base = int64_t(g.base.size());
      c.head = int64_t(g.head.size());
      c.delta = double(g.head.size()) - double(g.base.size());
      c.unit = "layers";
      c.onnx_nodes = g.nodes;
      // Time of the whole group, when every layer of both sides has one.
      std::optional<double> bt = group_time(b_, g.base), ht = group_time(h_, g.head);
      if (bt && ht && *bt != *ht) {
        DiffChange t = out_.changes.back();
        t.kind = "time";
        t.what = "fusion group";
        t.base = *bt;
        t.head = *ht;
        t.delta = *ht - *bt;
        t.unit = "ms";
        out_.changes.push_back(std::move(t));
      }
    }
  }

  void pair(const LayerPair& p) {
    if (p.base < 0 || p.head < 0) {
      if (p.fusion_group >= 0) return;
      const Layer& l = p.base >= 0 ? b_.layers[size_t(p.base)] : h_.layers[size_t(p.head)];
      if (reformat_layer(l)) return;            // counted by reformats()
      if (l.role == LayerRole::Elided) return;  // costs nothing: in the running-layer count
      auto& c = add(p.base >= 0 ? "removed" : "added", l.type, p.base >= 0 ? json(l.name) : json(),
                    p.base >= 0 ? json() : json(l.name));
      (p.base >= 0 ? c.base_layers : c.head_layers).push_back(l.name);
      c.onnx_nodes = l.onnx_nodes;
      return;
    }
    const Layer& bl = b_.layers[size_t(p.base)];
    const Layer& hl = h_.layers[size_t(p.head)];
    auto layer_change = [&](const std::string& kind, const std::string& what, json b,
                            json h) -> DiffChange& {
      auto& c = add(kind, what, std::move(b), std::move(h));
      c.base_layers = {bl.name};
      c.head_layers = {hl.name};
      return c;
    };
    if (p.fusion_group < 0) {
      if (bl.type != hl.type) layer_change("type", "type", bl.type, hl.type);
      if (bl.tactic && hl.tactic && *bl.tactic != *hl.tactic)
        layer_change("tactic", "tactic", *bl.tactic, *hl.tactic);
      else if (!bl.tactic_name.empty() && !hl.tactic_name.empty() &&
               bl.tactic_name != hl.tactic_name)
        layer_change("tactic", "kernel", bl.tactic_name, hl.tactic_name);
      formats(bl, hl, "input", bl.inputs, hl.inputs, layer_change);
      formats(bl, hl, "output", bl.outputs, hl.outputs, layer_change);
      precision(bl, hl, layer_change);
      if (bl.time.average_ms && hl.time.average_ms && *bl.time.average_ms != *hl.time.average_ms) {
        auto& c = layer_change("time", "layer", *bl.time.average_ms, *hl.time.average_ms);
        c.unit = "ms";
      }
    }
    auto mem = [&](const char* what, const std::optional<uint64_t>& b,
                   const std::optional<uint64_t>& h) {
      if (b && h && *b != *h) layer_change("memory", what, *b, *h).unit = "bytes";
    };
    mem("host persistent", bl.memory.host_persistent, hl.memory.host_persistent);
    mem("device persistent", bl.memory.device_persistent, hl.memory.device_persistent);
    mem("scratch", bl.memory.scratch, hl.memory.scratch);
  }

  // Compute precision (first input) and output dtype of a computing layer pair; the compute
  // precision is what the transition headline and the precision gates count.
  template <class F>
  void precision(const Layer& bl, const Layer& hl, F& layer_change) {
    if (!computes(bl) || !computes(hl)) return;
    std::string bp = layer_precision(bl), hp = layer_precision(hl);
    if (!bp.empty() && !hp.empty()) {
      ++layer_transitions_[{bp, hp}];
      if (bp != hp) layer_change("precision", "layer", bp, hp);
    }
    std::string bo = output_dtype(bl), ho = output_dtype(hl);
    if (!bo.empty() && !ho.empty() && bo != ho) layer_change("precision", "layer output", bo, ho);
  }

  template <class F>
  void formats(const Layer&, const Layer&, const std::string& side, const std::vector<Tensor>& b,
               const std::vector<Tensor>& h, F& layer_change) {
    for (size_t i = 0; i < std::min(b.size(), h.size()); ++i) {
      // Layout only (vector width, channel order): a dtype change alone is a precision fact.
      bool verbatim = !b[i].format.empty() && !h[i].format.empty();
      bool layout_changed = b[i].vector_width != h[i].vector_width;
      // Equal strings parse alike: most tensors keep their format, and parsing is the cost.
      if (verbatim && !layout_changed && b[i].format != h[i].format)
        layout_changed =
            parse_format(b[i].format).channel_last != parse_format(h[i].format).channel_last;
      if (!layout_changed) continue;
      layer_change("format", side + " " + std::to_string(i), format_label(b[i], verbatim),
                   format_label(h[i], verbatim));
    }
  }

  // Per ONNX node carried by both sides, where the layers holding it are partners or in one
  // fusion group (across separate exports, equal node names can be different nodes).
  void node_precision() {
    std::vector<int> partner(b_.layers.size(), -1), bgroup(b_.layers.size(), -1),
        hgroup(h_.layers.size(), -1);
    for (const auto& p : out_.alignment.pairs) {
      if (p.base >= 0) {
        partner[size_t(p.base)] = p.head;
        bgroup[size_t(p.base)] = p.fusion_group;
      }
      if (p.head >= 0) hgroup[size_t(p.head)] = p.fusion_group;
    }
    std::unordered_map<std::string, int> head_of_node;
    for (size_t h = 0; h < h_.layers.size(); ++h)
      for (const auto& n : h_.layers[h].onnx_nodes) head_of_node.emplace(n, int(h));
    std::unordered_set<std::string> done;
    for (size_t b = 0; b < b_.layers.size(); ++b) {
      const Layer& bl = b_.layers[b];
      if (!computes(bl)) continue;
      std::string bp = layer_precision(bl);
      for (const auto& n : bl.onnx_nodes) {
        auto it = head_of_node.find(n);
        if (it == head_of_node.end() || !done.insert(n).second) continue;
        int h = it->second;
        bool related = partner[b] == h || (bgroup[b] >= 0 && bgroup[b] == hgroup[size_t(h)]);
        const Layer& hl = h_.layers[size_t(h)];
        if (!related || !computes(hl)) continue;
        std::string hp = layer_precision(hl);
        if (bp.empty() || hp.empty()) continue;
        ++node_transitions_[{bp, hp}];
        if (bp == hp) continue;
        auto& c = add("precision", "node", bp, hp);
        c.base_layers = {bl.name};
        c.head_layers = {hl.name};
        c.onnx_nodes = {n};
      }
    }
  }

  void transitions() {
    std::map<std::pair<std::string, std::string>, PrecisionTransition> all;
    for (const auto& [k, n] : layer_transitions_) all[k].layers = n;
    for (const auto& [k, n] : node_transitions_) all[k].nodes = n;
    for (auto& [k, t] : all) {
      if (k.first == k.second) continue;
      t.from = k.first;
      t.to = k.second;
      out_.transitions.push_back(t);
    }
    std::stable_sort(out_.transitions.begin(), out_.transitions.end(),
                     [](const PrecisionTransition& x, const PrecisionTransition& y) {
                       return std::tie(y.layers, y.nodes) < std::tie(x.layers, x.nodes);
                     });
    for (const auto& g : out_.alignment.fusion_groups) ++out_.fusion_changes[g.what];
  }

  void reformats() {
    const DiffSide &bs = out_.base_side, &hs = out_.head_side;
    std::vector<std::string> removed, added;
    for (const auto& p : out_.alignment.pairs) {
      if (p.base >= 0 && p.head < 0 && reformat_layer(b_.layers[size_t(p.base)]))
        removed.push_back(b_.layers[size_t(p.base)].name);
      if (p.head >= 0 && p.base < 0 && reformat_layer(h_.layers[size_t(p.head)]))
        added.push_back(h_.layers[size_t(p.head)].name);
    }
    if (bs.reformats != hs.reformats || !removed.empty() || !added.empty()) {
      auto& c = add("reformat", "count", opt_json(bs.reformats), opt_json(hs.reformats));
      c.unit = "layers";
      c.base_layers = std::move(removed);
      c.head_layers = std::move(added);
    }
    if (bs.reformat_bytes && hs.reformat_bytes && *bs.reformat_bytes != *hs.reformat_bytes)
      add("reformat", "bytes", *bs.reformat_bytes, *hs.reformat_bytes).unit = "bytes";
    if (bs.reformat_ms && hs.reformat_ms && *bs.reformat_ms != *hs.reformat_ms)
      add("reformat", "time", *bs.reformat_ms, *hs.reformat_ms).unit = "ms";
  }

  void build_memory() {
    const BuildMemory &b = b_.memory, &h = h_.memory;
    auto u = [&](const char* what, const std::optional<uint64_t>& x,
                 const std::optional<uint64_t>& y) {
      if ((x || y) && x != y) add("memory", what, opt_json(x), opt_json(y)).unit = "bytes";
    };
    auto d = [&](const char* what, const std::optional<double>& x, const std::optional<double>& y,
                 const char* unit) {
      if ((x || y) && x != y) add("memory", what, opt_json(x), opt_json(y)).unit = unit;
    };
    u("total host persistent", b.total_host_persistent, h.total_host_persistent);
    u("total device persistent", b.total_device_persistent, h.total_device_persistent);
    u("total scratch", b.total_scratch, h.total_scratch);
    u("total activation", b.total_activation, h.total_activation);
    u("total weights", b.total_weights, h.total_weights);
    d("engine size", b.engine_size_mib, h.engine_size_mib, "MiB");
    d("context memory", b.context_memory_mib, h.context_memory_mib, "MiB");
    u("peak live activations", b.peak_live_bytes, h.peak_live_bytes);
  }

  void version() {
    const auto &x = out_.base_side.trt_version, &y = out_.head_side.trt_version;
    if (x != y)
      add("version", "TensorRT", x.empty() ? json() : json(x), y.empty() ? json() : json(y));
  }

  void key_values(const char* kind, const KeyValues& b, const KeyValues& h) {
    std::unordered_map<std::string, std::string> hm(h.begin(), h.end());
    std::unordered_set<std::string> bkeys;
    for (const auto& [k, v] : b) {
      bkeys.insert(k);
      auto it = hm.find(k);
      if (it == hm.end())
        add(kind, k, v, json());
      else if (it->second != v)
        add(kind, k, v, it->second);
    }
    for (const auto& [k, v] : h)
      if (!bkeys.count(k)) add(kind, k, json(), v);
  }

  void perf() {
    const RunInfo *br = perf_run(bc_), *hr = perf_run(hc_);
    if (!br || !hr) return;
    auto key = [](const PerfFigure& f) {
      return f.stat.empty() ? f.metric : f.metric + " " + f.stat;
    };
    std::unordered_map<std::string, const PerfFigure*> hm;
    for (const auto& f : hr->perf) hm.emplace(key(f), &f);
    for (const auto& f : br->perf) {
      auto it = hm.find(key(f));
      if (it == hm.end() || it->second->value == f.value) continue;
      add("perf", key(f), f.value, it->second->value).unit = f.unit;
    }
  }

  void headline() {
    const DiffSide &b = out_.base_side, &h = out_.head_side;
    auto fig = [&](const char* key, std::string label, std::optional<double> x,
                   std::optional<double> y, const char* unit) -> HeadlineFigure& {
      HeadlineFigure f;
      f.key = key;
      f.label = std::move(label);
      f.base = x;
      f.head = y;
      f.unit = unit;
      if (x && y) {
        f.delta = *y - *x;
        if (*x != 0) f.percent = (*y - *x) / *x * 100;
      }
      out_.headline.push_back(std::move(f));
      return out_.headline.back();
    };
    auto dbl = [](const auto& v) { return v ? std::optional<double>(double(*v)) : std::nullopt; };
    const Latency &bl = b.latency, &hl = h.latency;
    out_.latency_source = bl.source == hl.source
                              ? to_string(bl.source)
                              : std::string(to_string(bl.source)) + " vs " + to_string(hl.source);
    bool median = bl.median_ms && hl.median_ms;
    bool sums =
        bl.source == Latency::Source::ProfileSum && hl.source == Latency::Source::ProfileSum;
    auto& lat = fig("latency",
                    sums     ? "latency (profile sum)"
                    : median ? "latency (median)"
                             : "latency (mean)",
                    median ? bl.median_ms : bl.mean_ms, median ? hl.median_ms : hl.mean_ms, "ms");
    lat.note = out_.latency_source;
    if (bl.source == Latency::Source::None || hl.source == Latency::Source::None)
      lat.note += "; a side has no latency";
    else if (!bl.measured() || !hl.measured())
      lat.note += "; a sum of per-layer profile times is not a measurement";
    if (bl.source == Latency::Source::Times && hl.source == Latency::Source::Times)
      lat.note +=
          "; " + std::to_string(bl.queries) + " vs " + std::to_string(hl.queries) + " queries";
    if (bl.p99_ms || hl.p99_ms) fig("latency_p99", "latency (p99)", bl.p99_ms, hl.p99_ms, "ms");
    fig("sum_layer_ms", "sum of layer times", b.sum_layer_ms, h.sum_layer_ms, "ms");
    fig("running_reformats", "running reformats", dbl(b.reformats), dbl(h.reformats), "layers");
    fig("reformat_ms", "reformat time", b.reformat_ms, h.reformat_ms, "ms");
    fig("running_layers", "running layers", dbl(b.running_layers), dbl(h.running_layers), "layers");
    fig("weights_bytes", "weights", dbl(b.weights_bytes), dbl(h.weights_bytes), "bytes");
    fig("peak_activation_bytes", "peak activations", dbl(b.peak_activation_bytes),
        dbl(h.peak_activation_bytes), "bytes");
    fig("engine_size_mib", "engine size", b.engine_size_mib, h.engine_size_mib, "MiB");
  }

  std::map<std::pair<std::string, std::string>, size_t> layer_transitions_, node_transitions_;
  const Capture& bc_;
  const Build& b_;
  const Capture& hc_;
  const Build& h_;
  DiffResult& out_;
};

}  // namespace

std::string output_dtype(const Layer& l) {
  return l.outputs.empty() ? std::string() : l.outputs.front().dtype.str();
}

bool computes(const Layer& l) {
  if (l.role != LayerRole::Unknown) return l.role == LayerRole::Runs;
  return !is_reformat(l) && l.type != "NoOp";
}

std::string layer_precision(const Layer& l) {
  for (const auto* ts : {&l.inputs, &l.outputs})
    if (!ts->empty() && !ts->front().dtype.empty()) return ts->front().dtype;
  return "";
}

DiffSide diff_side(const Capture& capture, const Build& build) { return side_of(capture, build); }

DiffResult diff_builds(const Capture& base_capture, const Build& base, const Capture& head_capture,
                       const Build& head) {
  DiffResult out;
  out.base = &base;
  out.head = &head;
  out.base_side = side_of(base_capture, base);
  out.head_side = side_of(head_capture, head);
  Differ(base_capture, base, head_capture, head, out).run();
  return out;
}

GateRule parse_gate_rule(const std::string& text) {
  GateRule r;
  r.text = text;
  size_t colon = text.find(':');
  r.name = text.substr(0, colon);
  std::string value = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (r.name == "precision-drop" || r.name == "new-fp32") {
    if (!value.empty()) throw std::invalid_argument("--fail-on " + text + ": takes no value");
    return r;
  }
  bool percent = r.name == "latency" || r.name == "layer-time";
  if (!percent && r.name != "reformats")
    throw std::invalid_argument("--fail-on " + text +
                                ": unknown rule (latency:+N%, layer-time:+N%, reformats:+N, "
                                "precision-drop, new-fp32)");
  std::string v = value;
  if (!v.empty() && v[0] == '+') v.erase(0, 1);
  if (percent) {
    if (v.empty() || v.back() != '%')
      throw std::invalid_argument("--fail-on " + text + ": expected a percentage such as +5%");
    v.pop_back();
  }
  size_t pos = 0;
  try {
    r.threshold = std::stod(v, &pos);
  } catch (const std::exception&) {
    pos = std::string::npos;
  }
  if (v.empty() || pos != v.size() || r.threshold < 0)
    throw std::invalid_argument("--fail-on " + text + ": '" + value + "' is not a threshold");
  return r;
}

namespace {

std::string ms_text(double v) { return fmt_num(v) + " ms"; }

// Latency gates compare like with like: two measurements (an --exportTimes trace or a
// performance summary: median, else mean), or, when neither side has one, two profile sums
// (with a warning: a per-layer profile is not an end-to-end measurement). One side measured
// and the other not cannot be judged.
void latency_gate(const DiffResult& d, const GateRule& r, GateResult& g) {
  const Latency &b = d.base_side.latency, &h = d.head_side.latency;
  auto figure = [](const Latency& l) { return l.median_ms ? l.median_ms : l.mean_ms; };
  if (b.source == Latency::Source::None || h.source == Latency::Source::None || !figure(b) ||
      !figure(h)) {
    g.evaluated = false;
    g.message =
        "no latency on both sides (give an --exportTimes trace, a run log or a profile "
        "for base and head)";
    return;
  }
  if (b.measured() != h.measured()) {
    g.evaluated = false;
    g.message = std::string("cannot compare a measured latency with a sum of layer times (") +
                to_string(b.source) + " vs " + to_string(h.source) + ")";
    return;
  }
  double x = *figure(b), y = *figure(h);
  if (x <= 0) {
    g.evaluated = false;
    g.message = "base latency is not positive";
    return;
  }
  g.base = x;
  g.head = y;
  double pct = (y - x) / x * 100;
  g.breached = pct >= r.threshold;
  std::string src = b.source == h.source
                        ? to_string(b.source)
                        : std::string(to_string(b.source)) + " vs " + to_string(h.source);
  const char* what = !b.measured()                ? "profile sum "
                     : b.median_ms && h.median_ms ? "median latency "
                                                  : "mean latency ";
  g.message = std::string(what) + ms_text(x) + " -> " + ms_text(y) + " (" + (pct >= 0 ? "+" : "") +
              fmt_num(pct) + "%, " + src + ")";
  if (!b.measured())
    g.warning = "both sides are sums of per-layer profile times, not measured latency";
  else if (b.source != h.source)
    g.warning = "the two sides measured latency differently (" + src + ")";
}

}  // namespace

std::vector<GateResult> evaluate_gates(const DiffResult& d, const std::vector<GateRule>& rules) {
  std::vector<GateResult> out;
  for (const auto& r : rules) {
    GateResult g;
    g.rule = r.text;
    if (r.name == "latency") {
      latency_gate(d, r, g);
    } else if (r.name == "layer-time") {
      if (!d.base_side.sum_layer_ms || !d.head_side.sum_layer_ms) {
        g.evaluated = false;
        g.message = "no per-layer times on both sides (give a profile for base and head)";
      } else {
        int n = 0;
        std::string worst;
        double worst_pct = -1e300;
        for (const auto& c : d.changes) {
          if (c.kind != "time" || !c.base.is_number() || c.base.get<double>() <= 0) continue;
          double pct = *c.delta / c.base.get<double>() * 100;
          if (pct < r.threshold) continue;
          ++n;
          if (pct > worst_pct) {
            worst_pct = pct;
            worst = (c.head_layers.empty() ? std::string("?") : c.head_layers.front()) + " +" +
                    fmt_num(pct) + "%";
          }
        }
        g.breached = n > 0;
        g.message = std::to_string(n) +
                    " layer(s) or group(s) slower by >= " + fmt_num(r.threshold) + "%" +
                    (n ? " (worst: " + worst + ")" : "");
      }
    } else if (r.name == "reformats") {
      const auto &b = d.base_side.reformats, &h = d.head_side.reformats;
      if (!b || !h) {
        g.evaluated = false;
        g.message = "the inputs do not say which layers are reformats (names-only listing)";
      } else {
        double delta = double(*h) - double(*b);
        g.base = double(*b);
        g.head = double(*h);
        g.breached = delta >= r.threshold;
        g.message = "running reformat layers " + std::to_string(*b) + " -> " + std::to_string(*h);
      }
    } else {
      bool drop = r.name == "precision-drop";
      std::vector<std::string> hits;
      for (const auto& c : d.changes) {
        if (c.kind != "precision" || (c.what != "layer" && c.what != "node")) continue;
        std::string b = c.base.get<std::string>(), h = c.head.get<std::string>();
        bool hit = drop ? (quantized(b) && !quantized(h)) : (h == "FP32" && b != "FP32");
        if (hit)
          hits.push_back((c.onnx_nodes.empty() ? c.head_layers.front() : c.onnx_nodes.front()) +
                         ": " + b + " -> " + h);
      }
      if (!drop)
        for (const auto& p : d.alignment.pairs)
          if (p.base < 0 && p.head >= 0 && p.fusion_group < 0) {
            const Layer& l = d.head->layers[size_t(p.head)];
            if (computes(l) && layer_precision(l) == "FP32")
              hits.push_back(l.name + ": new layer in FP32");
          }
      g.breached = !hits.empty();
      g.head = double(hits.size());
      g.message = std::to_string(hits.size()) + (drop ? " layer(s)/node(s) no longer quantized"
                                                      : " layer(s)/node(s) newly in FP32");
      if (!hits.empty()) g.message += " (first: " + hits.front() + ")";
    }
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace trtlens
