// Reformat cost, grouped by why the reformat exists.
#include <algorithm>

#include "analysis/findings/rules.h"
#include "analysis/summary.h"
#include "io/units.h"

namespace trtlens::findings {
namespace {

using ojson = nlohmann::ordered_json;

struct Item {
  int layer;
  ojson json;
  uint64_t bytes = 0;
  bool bytes_known = false;
  double avg_ms = 0, share = 0;
};

struct Group {
  const char* id;
  const char* why;
  const char* hint;
  std::vector<Item> items = {};
};

std::string layout_of(const Tensor& t) {
  std::string s = t.dtype.empty() ? "?" : t.dtype;
  if (t.vector_width) s += " vec" + std::to_string(t.vector_width);
  if (!t.format.empty()) s = t.format;
  return s;
}

ojson dims_json(const Tensor& t) { return t.has_dims ? ojson(t.dims) : ojson(nullptr); }

}  // namespace

void reformat_rules(const BuildView& v, std::vector<Finding>& out) {
  Group qdq{"reformat-qdq", "made from Q/DQ nodes",
            "Expected at quantization boundaries; many of them mean Q/DQ placement breaks "
            "fusion (put Q/DQ only on the inputs of quantizable ops)."};
  Group io{"reformat-io", "converting a graph input/output",
           "Feed and read the engine in the precision/format it wants "
           "(--inputIOFormats/--outputIOFormats) to drop these."};
  Group prec{"reformat-precision", "changing precision between layers",
             "Two neighbours chose different precisions; give them the same precision "
             "(Q/DQ or layer precision constraints) so no conversion is needed."};
  Group layout{"reformat-layout", "changing only layout/vectorisation",
               "Neighbours want different tensor layouts; aligned channel counts usually let "
               "them agree."};
  const auto& layers = v.build.layers;
  for (size_t i = 0; i < layers.size(); ++i) {
    const Layer& l = layers[i];
    if (!is_reformat(l) || l.inputs.empty() || l.outputs.empty()) continue;
    const Tensor& from = l.inputs.front();
    const Tensor& to = l.outputs.front();
    std::string origin = l.attributes.string("Origin");
    bool at_io = v.graph_inputs.count(from.name) || v.graph_outputs.count(to.name);
    Group* g = origin == "QDQ"                                                        ? &qdq
               : at_io                                                                ? &io
               : (from.dtype != to.dtype && !from.dtype.empty() && !to.dtype.empty()) ? &prec
                                                                                      : &layout;
    Item it;
    it.layer = int(i);
    auto in_b = tensor_bytes(from), out_b = tensor_bytes(to);
    it.bytes = in_b.value_or(0) + out_b.value_or(0);
    it.bytes_known = in_b && out_b;
    it.avg_ms = v.avg_ms(int(i)).value_or(0);
    it.share = v.share(int(i)).value_or(0);
    ojson between = ojson::object();
    auto p = v.producer.find(from.name);
    between["from"] = p != v.producer.end() ? ojson(layers[size_t(p->second)].name)
                                            : ojson("graph input " + from.name);
    ojson to_list = ojson::array();
    if (auto c = v.consumers.find(to.name); c != v.consumers.end())
      for (int ci : c->second) to_list.push_back(layers[size_t(ci)].name);
    if (v.graph_outputs.count(to.name)) to_list.push_back("graph output " + to.name);
    between["to"] = to_list;
    it.json = {{"layer", l.name},
               {"conversion", (from.dtype.empty() ? "?" : from.dtype) + " -> " +
                                  (to.dtype.empty() ? "?" : to.dtype)},
               {"from_format", layout_of(from)},
               {"to_format", layout_of(to)},
               {"from_dims", dims_json(from)},
               {"to_dims", dims_json(to)},
               {"origin", origin.empty() ? ojson(nullptr) : ojson(origin)},
               {"between", between},
               {"bytes", (in_b && out_b) ? ojson(it.bytes) : ojson(nullptr)}};
    if (v.has_time) {
      it.json["avg_ms"] = it.avg_ms;
      it.json["time_share_percent"] = it.share;
    }
    g->items.push_back(std::move(it));
  }
  for (Group* g : {&qdq, &io, &prec, &layout}) {
    if (g->items.empty()) continue;
    // Worst first: by time when profiled, by bytes moved otherwise.
    std::stable_sort(g->items.begin(), g->items.end(), [&](const Item& a, const Item& b) {
      if (v.has_time && a.avg_ms != b.avg_ms) return a.avg_ms > b.avg_ms;
      return a.bytes > b.bytes;
    });
    uint64_t bytes = 0;
    double ms = 0, share = 0;
    bool sized = false;
    for (const auto& it : g->items)
      bytes += it.bytes, ms += it.avg_ms, share += it.share, sized = sized || it.bytes_known;
    std::string msg = std::to_string(g->items.size()) + " reformat layer" +
                      (g->items.size() == 1 ? " " : "s ") + g->why +
                      (sized ? (g->items.size() == 1 ? " moves " : " move ") + human_bytes(bytes) +
                                   " per inference"
                             : std::string(" (tensor sizes not given)"));
    if (v.has_time) msg += ", " + fmt(share, 1) + "% of layer time";
    const auto& worst = g->items.front().json;
    msg += "; worst: " + worst["layer"].get<std::string>() + " (" +
           worst["conversion"].get<std::string>() + ")";
    Finding f = make_finding(
        v, g->id, v.has_time && share >= 5.0 ? Severity::Warning : Severity::Info, msg, g->hint);
    ojson items = ojson::array();
    for (const auto& it : g->items) {
      add_layer(f, v.build.layers[size_t(it.layer)]);
      items.push_back(it.json);
    }
    f.evidence = {
        {"count", g->items.size()},
        {"bytes_moved", sized ? nlohmann::ordered_json(bytes) : nlohmann::ordered_json(nullptr)}};
    if (v.has_time) {
      f.evidence["avg_ms"] = ms;
      f.evidence["time_share_percent"] = share;
    }
    f.evidence["items"] = std::move(items);
    out.push_back(std::move(f));
  }
}

// A Slice whose output dtype differs from its input's converts while it copies (TREx's
// SliceLinter): the conversion is hidden in a data-movement layer.
void slice_rules(const BuildView& v, std::vector<Finding>& out) {
  for (const Layer& l : v.build.layers) {
    if (l.type != "Slice" && parameter_type(l) != "Slice") continue;
    if (l.inputs.empty() || l.outputs.empty()) continue;
    const std::string& a = l.inputs[0].dtype;
    const std::string& b = l.outputs[0].dtype;
    if (a.empty() || b.empty() || a == b) continue;
    Finding f = make_finding(v, "slice-dtype", Severity::Info,
                             "Slice '" + l.name + "' converts " + a + " to " + b,
                             "A Slice that changes the data type hides a conversion; check that "
                             "the precision on each side is the one intended.");
    add_layer(f, l);
    f.evidence = {{"from", a}, {"to", b}};
    out.push_back(std::move(f));
  }
}

}  // namespace trtlens::findings
