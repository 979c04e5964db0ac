#include "render/provenance.h"

#include <re2/re2.h>

#include <set>

#include "analysis/provenance.h"
#include "io/units.h"
#include "render/escape.h"
#include "render/json.h"

namespace trtlens {
namespace {

using ojson = nlohmann::ordered_json;

bool keep(const OnnxNode& n, const re2::RE2* filter) {
  return !filter || RE2::PartialMatch(n.name, *filter);
}

const NodeFate kFates[] = {NodeFate::Standalone, NodeFate::Fused, NodeFate::InMyelin,
                           NodeFate::Eliminated, NodeFate::Unknown};

}  // namespace

TextTable provenance_nodes_table(const OnnxModel& m, const Build* final, const re2::RE2* filter) {
  TextTable t;
  t.headers = {"#", "node", "op", "fate", "layer", "precision", "fused with", "reason"};
  t.right_align = {true, false, false, false, false, false, false, false};
  for (const auto& n : m.nodes) {
    if (!keep(n, filter)) continue;
    std::string name = n.name + (n.unnamed ? " (unnamed)" : "");
    t.rows.push_back({std::to_string(n.index), name, n.op, to_string(n.fate), node_layer(final, n),
                      n.precision, join(fused_with(final, n)), n.reason});
  }
  return t;
}

TextTable provenance_layers_table(const Build& b, const OnnxModel& m, const re2::RE2* filter) {
  std::set<std::string> wanted;
  if (filter)
    for (const auto& n : m.nodes)
      if (keep(n, filter) && !node_layer(&b, n).empty()) wanted.insert(node_layer(&b, n));
  TextTable t;
  t.headers = {"#", "layer", "type", "kind", "precision", "ONNX nodes", "notes"};
  t.right_align = {true, false, false, false, false, false, false};
  for (size_t i = 0; i < b.layers.size() && i < m.layers.size(); ++i) {
    const Layer& l = b.layers[i];
    const LayerProvenance& lp = m.layers[i];
    if (filter && !wanted.count(l.name)) continue;
    std::string nodes = join(l.onnx_nodes);
    if (!lp.initializers.empty())
      nodes += (nodes.empty() ? "" : "; ") + std::string("initializers: ") + join(lp.initializers);
    std::string notes = lp.note;
    if (!lp.attached_to.empty())
      notes = (lp.kind == "copy" ? "copy of tensor " : "serves ") + lp.attached_to +
              (notes.empty() ? "" : "; " + notes);
    if (lp.from_metadata) notes = "from Metadata" + (notes.empty() ? "" : "; " + notes);
    for (const auto& [cut, full] : lp.prefix_matches)
      notes +=
          (notes.empty() ? "" : "; ") + std::string("name cut short: ") + cut + "... = " + full;
    t.rows.push_back({std::to_string(i), l.name, l.type, std::string(lp.kind),
                      l.outputs.empty() ? "" : l.outputs.front().dtype, nodes, notes});
  }
  return t;
}

TextTable provenance_fate_table(const Capture& c) {
  const ProvenanceCounts& k = c.onnx.counts;
  TextTable t;
  t.headers = {"fate", "nodes"};
  t.right_align = {false, true};
  for (NodeFate f : kFates)
    t.rows.push_back({to_string(f), std::to_string(k.by_fate.count(f) ? k.by_fate.at(f) : 0)});
  for (const auto& [kind, n] : k.layers_by_kind)
    t.rows.push_back({"layers: " + kind, std::to_string(n)});
  return t;
}

TextTable provenance_op_table(const Capture& c) {
  const ProvenanceCounts& k = c.onnx.counts;
  TextTable t;
  t.headers = {"op", "nodes"};
  for (NodeFate f : kFates) t.headers.push_back(to_string(f));
  t.right_align.assign(t.headers.size(), true);
  t.right_align[0] = false;
  for (const auto& [op, fates] : k.by_op) {
    size_t total = 0;
    for (const auto& [f, n] : fates) total += n;
    std::vector<std::string> row = {op, std::to_string(total)};
    for (NodeFate f : kFates) row.push_back(std::to_string(fates.count(f) ? fates.at(f) : 0));
    t.rows.push_back(std::move(row));
  }
  return t;
}

ojson onnx_json(const OnnxModel& m, const Build* final) {
  ojson j;
  j["sources"] = m.sources;
  j["nodes"] = ojson::array();
  for (const auto& n : m.nodes) {
    ojson e;
    e["name"] = n.name;
    e["op"] = n.op.empty() ? ojson(nullptr) : ojson(n.op);
    e["index"] = n.index;
    if (n.unnamed) e["unnamed"] = true;
    if (n.inferred) e["inferred"] = true;
    if (!n.matched_by.empty()) e["matched_by"] = n.matched_by;
    e["fate"] = to_string(n.fate);
    const std::string& layer = node_layer(final, n);
    e["layer"] = layer.empty() ? ojson(nullptr) : ojson(layer);
    e["fused_with"] = fused_with(final, n);
    e["precision"] = n.precision.empty() ? ojson(nullptr) : ojson(n.precision);
    e["reason"] = n.reason.empty() ? ojson(nullptr) : ojson(n.reason);
    j["nodes"].push_back(std::move(e));
  }
  j["initializers"] = ojson::array();
  for (const auto& v : m.initializers) {
    ojson e = {{"name", v.name}, {"dtype", v.dtype.empty() ? ojson(nullptr) : ojson(v.dtype)}};
    e["dims"] = v.has_dims ? ojson(v.dims) : ojson(nullptr);
    j["initializers"].push_back(std::move(e));
  }
  j["layers"] = ojson::array();
  for (size_t i = 0; i < m.layers.size(); ++i) {
    const LayerProvenance& l = m.layers[i];
    const std::string& name =
        final && i < final->layers.size() ? final->layers[i].name : std::string();
    const std::vector<std::string> none;
    const std::vector<std::string>& nodes =
        final && i < final->layers.size() ? final->layers[i].onnx_nodes : none;
    ojson e = {{"layer", name}, {"kind", l.kind}, {"nodes", nodes}};
    if (!l.initializers.empty()) e["initializers"] = l.initializers;
    if (!l.attached_to.empty()) e["attached_to"] = l.attached_to;
    if (l.from_metadata) e["from_metadata"] = true;
    if (!l.note.empty()) e["note"] = l.note;
    if (!l.prefix_matches.empty()) {
      e["prefix_matches"] = ojson::array();
      for (const auto& [cut, full] : l.prefix_matches)
        e["prefix_matches"].push_back(
            {{"printed", cut}, {"matched", full}, {"matched_by", "prefix"}});
    }
    j["layers"].push_back(std::move(e));
  }
  j["layer_counts"] = ojson::array();
  for (const auto& c : m.layer_counts)
    j["layer_counts"].push_back(
        {{"stage", c.stage}, {"layers", c.layers}, {"line", c.source.line}});
  j["events"] = ojson::array();
  for (const auto& e : m.events)
    j["events"].push_back({{"kind", e.kind},
                           {"pass", e.pass},
                           {"subject", e.subject},
                           {"other", e.other},
                           {"line", e.source.line}});
  j["notes"] = m.notes;
  return j;
}

void write_provenance(const Capture& c, const std::string& format, const re2::RE2* filter,
                      std::ostream& os) {
  const Build* b = c.final_build();
  const ProvenanceCounts& k = c.onnx.counts;
  if (format == "json") {
    ojson j = onnx_json(c.onnx, c.final_build());
    if (filter) {
      ojson kept = ojson::array();
      for (size_t i = 0; i < c.onnx.nodes.size(); ++i)
        if (keep(c.onnx.nodes[i], filter)) kept.push_back(j["nodes"][i]);
      j["nodes"] = kept;
    }
    j["summary"] = k.headline;
    os << dump_json(j) << '\n';
    return;
  }
  const bool table = format == "table";
  auto heading = [&](const std::string& h) {
    if (table)
      os << h << '\n';
    else if (format == "md")
      os << "\n### " << escape_markdown(h) << "\n\n";
  };
  if (format != "csv") {
    os << (format == "md" ? escape_markdown(k.headline) : escape_terminal(k.headline)) << '\n';
    if (k.inferred == k.nodes && k.nodes)
      os << "(no .onnx and no parse section: nodes are read from layer names; pass --onnx for "
            "ops, graph order and eliminated nodes)\n";
    if (table) os << '\n';
  }
  heading("ONNX nodes");
  write_table(provenance_nodes_table(c.onnx, c.final_build(), filter), format, os);
  if (format == "csv") return;  // one table per CSV document
  if (b) {
    if (table) os << '\n';
    heading("Engine layers (build " + std::to_string(b->id) + ")");
    write_table(provenance_layers_table(*b, c.onnx, filter), format, os);
  }
  if (filter) return;
  if (table) os << '\n';
  heading("Counts by fate");
  write_table(provenance_fate_table(c), format, os);
  if (table) os << '\n';
  heading("Counts by op type");
  write_table(provenance_op_table(c), format, os);
  if (!c.onnx.notes.empty()) {
    if (table) os << '\n';
    heading("Could not decide");
    for (const auto& n : c.onnx.notes)
      os << "  " << (format == "md" ? escape_markdown(n) : escape_terminal(n)) << '\n';
  }
}

}  // namespace trtlens
