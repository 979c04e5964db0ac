#include "analysis/provenance.h"

#include <algorithm>
#include <deque>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "analysis/layer_names.h"

namespace trtlens {
namespace {

// Keys view the model's own strings (the model is not changed while an index lives): copies of
// every node and tensor name as keys were a sixth of a large names-only build's peak.
class NodeIndex {
 public:
  explicit NodeIndex(const OnnxModel& m) : model_(m) {
    for (size_t i = 0; i < m.nodes.size(); ++i) {
      for (const auto& o : m.nodes[i].outputs) producer_.emplace(o.name, i);
      for (const auto& in : m.nodes[i].inputs) consumer_.emplace(in.name, i);  // first wins
    }
    for (const auto& v : m.initializers) initializers_.insert(v.name);
  }
  // A node or tensor name the input cut short, completed where only one name begins so.
  std::optional<std::string> node_by_prefix(const std::string& cut) const {
    sort_names();
    return unique_prefix_match(node_names_, cut);
  }
  std::optional<std::string> tensor_by_prefix(const std::string& cut) const {
    sort_names();
    return unique_prefix_match(tensor_names_, cut);
  }
  std::optional<size_t> node(const std::string& name) const {
    const OnnxNode* n = model_.find(name);
    if (!n) return std::nullopt;
    return size_t(n - model_.nodes.data());
  }
  std::optional<size_t> producer(const std::string& tensor) const {
    auto it = producer_.find(tensor);
    if (it != producer_.end()) return it->second;
    it = consumer_.find(tensor);  // a graph input: the range starts at its first consumer
    if (it != consumer_.end()) return it->second;
    return std::nullopt;
  }
  bool initializer(const std::string& name) const { return initializers_.count(name) > 0; }

 private:
  // The sorted name lists only prefix matching reads: built on its first use, since most
  // engines' names all match in full and sorting every name is a large part of the analysis.
  void sort_names() const {
    if (sorted_) return;
    sorted_ = true;
    for (const auto& n : model_.nodes) node_names_.push_back(n.name);
    for (const auto* map : {&producer_, &consumer_})
      for (const auto& [name, i] : *map) tensor_names_.emplace_back(name);
    for (auto* v : {&node_names_, &tensor_names_}) {
      std::sort(v->begin(), v->end());
      v->erase(std::unique(v->begin(), v->end()), v->end());
    }
  }

  const OnnxModel& model_;
  std::unordered_map<std::string_view, size_t> producer_, consumer_;
  std::unordered_set<std::string_view> initializers_;
  mutable bool sorted_ = false;
  mutable std::vector<std::string> node_names_, tensor_names_;  // sorted
};

// Keeps the first node of each name (a model file and a parse section may both list them).
void dedupe_nodes(OnnxModel& m) {
  std::set<std::string> seen;
  std::vector<OnnxNode> kept;
  for (auto& n : m.nodes)
    if (seen.insert(n.name).second) kept.push_back(std::move(n));
  for (size_t i = 0; i < kept.size(); ++i) kept[i].index = int(i);
  m.nodes = std::move(kept);
}

// Without a model file, the layer names are the only complete record of the nodes (a log's
// parse section may be cut short): nodes they name that the list lacks are added, inferred.
void infer_nodes(OnnxModel& m, const Build& b) {
  // Views of the listed nodes' names and of `added`, a deque so that its strings stay put.
  std::unordered_set<std::string_view> seen;
  seen.reserve(m.nodes.size() + b.layers.size());
  for (const auto& n : m.nodes) seen.insert(n.name);
  // A name the layer cut short is the listed node it begins, not a node of its own. The sorted
  // list is made when a name is not listed in full: most logs list every node they name.
  std::vector<std::string> listed;
  bool sorted = false;
  auto cut_short = [&](const std::string& name) {
    if (!sorted) {
      sorted = true;
      for (const auto& n : m.nodes) listed.push_back(n.name);
      std::sort(listed.begin(), listed.end());
      listed.erase(std::unique(listed.begin(), listed.end()), listed.end());
    }
    return unique_prefix_match(listed, name).has_value();
  };
  // A local set: each push_back would make is_initializer() rebuild its index (quadratic).
  std::unordered_set<std::string> inits;
  for (const auto& v : m.initializers) inits.insert(v.name);
  // The names first, then the node list sized once: a node is large, and growth by doubling
  // held up to three times the nodes at once.
  std::deque<std::string> added;
  auto add = [&](const std::string& name) {
    if (inits.count(name) || looks_like_initializer(name)) {
      if (inits.insert(name).second) m.initializers.push_back(OnnxValue{name, "", {}, false});
      return;
    }
    if (seen.count(name) || cut_short(name)) return;
    added.push_back(name);
    seen.insert(added.back());
  };
  for (const auto& l : b.layers) {
    auto meta = metadata_node_names(l.metadata);
    if (!meta.empty()) {
      for (const auto& n : meta) add(n);
      continue;
    }
    ParsedLayerName p = parse_layer_name(l.name);
    if (p.kind == LayerNameKind::Foreign) {
      for (const auto* end : {&p.range_first, &p.range_last}) {
        auto parts = fused_node_names(*end);
        if (parts.empty()) parts.push_back(*end);
        for (const auto& part : parts) add(part);
      }
      continue;
    }
    for (const auto& n : fused_node_names(p)) add(n);
  }
  seen = {};  // before its strings move
  m.nodes.reserve(m.nodes.size() + added.size());
  for (auto& name : added) {
    OnnxNode n;
    n.op = op_from_node_name(name);
    n.name = std::move(name);
    n.index = int(m.nodes.size());
    n.inferred = true;
    m.nodes.push_back(std::move(n));
  }
}

struct Resolver {
  const OnnxModel& model;
  const NodeIndex& index;
  bool have_model;  // the node list came from a model or a parse section, not from names

  // A piece of a fused name: node, initializer, or nothing.
  enum class What { Node, NodeByPrefix, Initializer, Internal, Unmatched };
  What resolve(const std::string& piece, std::string& out) const {
    if (is_internal_name(piece)) return What::Internal;
    if (index.node(piece)) {
      out = piece;
      return What::Node;
    }
    const std::string stripped = strip_trt_additions(piece);
    if (index.node(stripped)) {
      out = stripped;
      return What::Node;
    }
    if (index.initializer(piece) || index.initializer(stripped) ||
        (!have_model && looks_like_initializer(stripped))) {
      out = index.initializer(piece) ? piece : stripped;
      return What::Initializer;
    }
    for (const std::string* cut : {&piece, &stripped})
      if (auto full = index.node_by_prefix(*cut)) {
        out = *full;
        return What::NodeByPrefix;
      }
    out = stripped;
    return What::Unmatched;
  }

  // A ForeignNode endpoint: a node name, a fused name or a tensor name, or the one node or
  // tensor such a name cut short begins (`completed` says which).
  std::optional<size_t> endpoint(const std::string& name, bool first,
                                 std::string& completed) const {
    if (auto i = index.node(name)) return i;
    if (auto i = index.node(strip_trt_additions(name))) return i;
    auto parts = fused_node_names(name);
    if (parts.size() > 1) {
      std::optional<size_t> best;
      for (const auto& p : parts)
        if (auto i = index.node(p))
          if (!best || (first ? *i < *best : *i > *best)) best = i;
      if (best) return best;
    }
    if (auto i = index.producer(name)) return i;
    if (auto full = index.node_by_prefix(name)) {
      completed = *full;
      return index.node(*full);
    }
    if (auto full = index.tensor_by_prefix(name)) {
      completed = *full;
      return index.producer(*full);
    }
    return std::nullopt;
  }
};

// `nodes` gets the ONNX nodes the layer computes (its onnx_nodes).
LayerProvenance map_layer(const Layer& l, const Resolver& r, std::vector<std::string>& nodes,
                          std::vector<std::string>& notes) {
  nodes.clear();
  LayerProvenance lp;
  ParsedLayerName p = parse_layer_name(l.name);
  auto meta = metadata_node_names(l.metadata);
  if (!meta.empty()) {
    lp.from_metadata = true;
    lp.kind =
        p.kind == LayerNameKind::Foreign || p.kind == LayerNameKind::Myelin ? "myelin" : "onnx";
    std::vector<std::string> unmatched;
    for (const auto& n : meta) {
      if (r.index.node(n)) {
        nodes.push_back(n);
      } else if (auto full = r.index.node_by_prefix(n)) {
        nodes.push_back(*full);
        lp.prefix_matches.emplace_back(n, *full);
      } else {
        unmatched.push_back(n);
      }
    }
    if (!unmatched.empty()) {
      lp.note = "Metadata names " + std::to_string(unmatched.size()) +
                " node(s) the ONNX node list lacks: " + unmatched.front();
      notes.push_back("layer '" + l.name + "': " + lp.note);
    }
    return lp;
  }
  switch (p.kind) {
    case LayerNameKind::Reformat:
      lp.kind = "reformat";
      lp.attached_to = p.attached_to;
      return lp;
    case LayerNameKind::Copy:
      lp.kind = "copy";
      lp.attached_to = p.attached_to;
      return lp;
    case LayerNameKind::Internal:
      lp.kind = "internal";
      return lp;
    case LayerNameKind::Myelin:
      lp.kind = "myelin";
      lp.note = "Myelin sub-layer without Metadata: its ONNX nodes are not named";
      return lp;
    case LayerNameKind::Foreign: {
      lp.kind = "myelin";
      std::string first_full, last_full;
      auto a = r.endpoint(p.range_first, true, first_full),
           b = r.endpoint(p.range_last, false, last_full);
      if (!first_full.empty()) lp.prefix_matches.emplace_back(p.range_first, first_full);
      if (!last_full.empty()) lp.prefix_matches.emplace_back(p.range_last, last_full);
      if (p.range_ambiguous) {
        lp.note = "ForeignNode range holds more than one '...': cannot tell where it splits";
      } else if (!a || !b) {
        lp.note = "ForeignNode endpoint '" + (!a ? p.range_first : p.range_last) +
                  "' matches no ONNX node or tensor";
      } else if (*a > *b) {
        lp.note = "ForeignNode range runs backwards in graph order (" + p.range_first + " after " +
                  p.range_last + "): not expanded";
      } else {
        for (size_t i = *a; i <= *b; ++i) nodes.push_back(r.model.nodes[i].name);
      }
      if (!lp.note.empty()) notes.push_back("layer '" + l.name + "': " + lp.note);
      return lp;
    }
    case LayerNameKind::Fused:
      break;
  }
  std::vector<std::string> unmatched;
  bool internal = false;
  for (const auto& part : p.parts) {
    std::string name;
    switch (r.resolve(part, name)) {
      case Resolver::What::NodeByPrefix:
        lp.prefix_matches.emplace_back(part, name);
        [[fallthrough]];
      case Resolver::What::Node:
        if (std::find(nodes.begin(), nodes.end(), name) == nodes.end()) nodes.push_back(name);
        break;
      case Resolver::What::Initializer:
        lp.initializers.push_back(name);
        break;
      case Resolver::What::Internal:
        internal = true;
        break;
      case Resolver::What::Unmatched:
        unmatched.push_back(part);
        break;
    }
  }
  lp.kind = !nodes.empty() ? "onnx" : internal ? "internal" : "other";
  if (!unmatched.empty()) {
    lp.note = std::to_string(unmatched.size()) +
              " part(s) of the name match no ONNX node: " + unmatched.front();
    notes.push_back("layer '" + l.name + "': " + lp.note);
  }
  return lp;
}

std::string precision_of(const Layer& l) {
  return l.outputs.empty() ? "" : l.outputs.front().dtype;
}

// Node -> the layer that computes it (the first layer to name it), by the node's position: a map
// keyed by name was a tenth of a large names-only build's peak. Every name a layer's provenance
// lists is a node of the model.
class LayerOf {
 public:
  explicit LayerOf(const OnnxModel& m) : m_(m), at_(m.nodes.size(), -1) {}
  int find(const std::string& node) const {
    const OnnxNode* n = m_.find(node);
    return n ? at_[size_t(n - m_.nodes.data())] : -1;
  }
  void emplace(const std::string& node, size_t layer) {
    if (const OnnxNode* n = m_.find(node)) {
      int& at = at_[size_t(n - m_.nodes.data())];
      if (at < 0) at = int(layer);
    }
  }

 private:
  const OnnxModel& m_;
  std::vector<int> at_;
};

// What the log says about a node no layer names.
void explain_missing(OnnxNode& n, const OnnxModel& m, const LayerOf& layer_of, const Build& b) {
  auto names_it = [&](const std::string& s) {
    return s == n.name || strip_trt_additions(s) == n.name;
  };
  auto where = [](const FusionEvent& e) { return " (line " + std::to_string(e.source.line) + ")"; };
  for (const auto& e : m.events) {
    if (e.kind == "remove" && names_it(e.subject)) {
      n.fate = NodeFate::Eliminated;
      n.reason = "removed by TensorRT" + where(e);
      return;
    }
    if (e.kind == "eliminate-concat" && names_it(e.subject)) {
      n.fate = NodeFate::Eliminated;
      n.reason = "concatenation eliminated: its inputs are written in place" + where(e);
      return;
    }
    if (e.kind == "fold" && names_it(e.subject)) {
      n.fate = NodeFate::Eliminated;
      n.reason = "constant folded by " + e.pass + where(e);
      return;
    }
    if (e.kind == "fuse" && (names_it(e.subject) || names_it(e.other))) {
      const std::string partner = names_it(e.subject) ? e.other : e.subject;
      int at = layer_of.find(strip_trt_additions(partner));
      if (at >= 0) {
        const Layer& l = b.layers[size_t(at)];
        n.fate = NodeFate::Fused;
        n.layer_index = at;
        n.precision = precision_of(l);
        n.fused_with = {strip_trt_additions(partner)};
        n.reason =
            e.pass + " fused it with " + partner + where(e) + "; the layer name does not show it";
      } else {
        n.fate = NodeFate::Eliminated;
        n.reason = e.pass + " fused it with " + partner + where(e);
      }
      return;
    }
  }
  if (n.op == "Constant") {
    n.fate = NodeFate::Eliminated;
    n.reason = "Constant: folded into the layers that read it (no layer names it)";
    return;
  }
  n.fate = NodeFate::Unknown;
  n.reason = "no layer of the final build names it";
}

}  // namespace

void compute_provenance(Capture& c) {
  OnnxModel& m = c.onnx;
  dedupe_nodes(m);
  m.layers.clear();
  m.notes.clear();
  Build* b = nullptr;
  for (auto& build : c.builds)
    if (build.final) b = &build;
  if (!b) {
    for (auto& n : m.nodes) n.reason = "no engine layer listing in the inputs";
    return;
  }
  bool have_model = false;  // a model file lists every node: names it lacks are not nodes
  for (const auto& s : m.sources) have_model = have_model || s.rfind("onnx-file:", 0) == 0;
  if (!have_model) infer_nodes(m, *b);
  NodeIndex index(m);
  Resolver r{m, index, have_model};

  LayerOf layer_of(m);
  m.layers.reserve(b->layers.size());
  std::vector<size_t> foreign;
  for (size_t li = 0; li < b->layers.size(); ++li) {
    Layer& l = b->layers[li];
    LayerProvenance lp = map_layer(l, r, l.onnx_nodes, m.notes);
    if (lp.kind == "myelin" && !lp.from_metadata)
      foreign.push_back(li);
    else
      for (const auto& n : l.onnx_nodes) layer_of.emplace(n, li);
    m.layers.push_back(std::move(lp));
  }
  // A ForeignNode range spans graph order; nodes of it that another layer names are that layer's.
  for (size_t li : foreign) {
    auto& nodes = b->layers[li].onnx_nodes;
    std::vector<std::string> kept;
    for (const auto& n : nodes)
      if (layer_of.find(n) < 0) kept.push_back(n);
    nodes = std::move(kept);
    for (const auto& n : nodes) layer_of.emplace(n, li);
  }

  std::set<std::string> by_prefix;
  for (const auto& lp : m.layers)
    for (const auto& [cut, full] : lp.prefix_matches) by_prefix.insert(full);
  for (auto& n : m.nodes) {
    n.layer_index = -1;
    n.fused_with.clear();
    n.reason.clear();
    n.precision = {};
    n.matched_by = by_prefix.count(n.name) ? "prefix" : "";
    const int at = layer_of.find(n.name);
    if (at < 0) {
      explain_missing(n, m, layer_of, *b);
      continue;
    }
    const Layer& l = b->layers[size_t(at)];
    const LayerProvenance& lp = m.layers[size_t(at)];
    n.layer_index = at;  // the other nodes of the layer are what it is fused with
    n.precision = precision_of(l);
    if (lp.kind == "myelin")
      n.fate = NodeFate::InMyelin;
    else
      n.fate = l.onnx_nodes.size() == 1 ? NodeFate::Standalone : NodeFate::Fused;
    if (!lp.initializers.empty() && l.onnx_nodes.size() == 1 && n.fate == NodeFate::Standalone)
      n.reason = "with initializer " + lp.initializers.front();
  }
}

ProvenanceCounts provenance_counts(const Capture& c) {
  ProvenanceCounts k;
  k.nodes = c.onnx.nodes.size();
  for (const auto& n : c.onnx.nodes) {
    k.inferred += n.inferred ? 1 : 0;
    ++k.by_fate[n.fate];
    ++k.by_op[n.op.empty() ? "?" : n.op][n.fate];
  }
  k.layers = c.onnx.layers.size();
  for (const auto& l : c.onnx.layers) ++k.layers_by_kind[std::string(l.kind)];
  const auto& counts = c.onnx.layer_counts;
  if (!counts.empty()) k.network_layers = counts.front().layers;
  for (const auto& lc : counts) {
    if (lc.stage == "reformat layers") {
      k.with_reformats = lc.layers;
      break;  // later counters belong to another build
    }
    k.after_fusion = lc.layers;
  }
  if (const Build* b = c.final_build()) {
    k.running_layers = b->totals.running_layers;
    k.reformat_layers = b->totals.reformat_layers;
    k.elided_layers = b->totals.elided_layers;
  }
  k.headline = provenance_headline(k);
  return k;
}

std::string provenance_headline(const ProvenanceCounts& k) {
  std::string s;
  if (k.nodes) s = std::to_string(k.nodes) + " ONNX nodes";
  if (k.nodes && k.inferred == k.nodes)
    s += " named by layers";
  else if (k.inferred)
    s += " (" + std::to_string(k.inferred) + " known only from layer names)";
  if (k.network_layers)
    s += (s.empty() ? "" : " (") + std::to_string(*k.network_layers) + " network layers" +
         (s.empty() ? "" : ")");
  if (k.layers == 0 && !k.after_fusion) return s.empty() ? "no ONNX nodes and no layers" : s;
  if (!s.empty()) s += " -> ";
  if (!k.after_fusion && !k.with_reformats && k.running_layers && k.reformat_layers &&
      k.elided_layers) {
    // No counters in the input: the build's roles (a name alone cannot tell an elided copy
    // from a reformat that runs).
    s += std::to_string(*k.running_layers - *k.reformat_layers) + " layers after fusion -> " +
         std::to_string(*k.running_layers) + " with " + std::to_string(*k.reformat_layers) +
         " reformat layers";
    if (*k.elided_layers) s += " (and " + std::to_string(*k.elided_layers) + " elided)";
    return s;
  }
  auto reformats = k.layers_by_kind.count("reformat") ? k.layers_by_kind.at("reformat") : 0;
  int64_t fused = k.after_fusion ? *k.after_fusion : int64_t(k.layers - reformats);
  int64_t total = k.with_reformats ? *k.with_reformats : int64_t(k.layers);
  s += std::to_string(fused) + " layers after fusion -> " + std::to_string(total) + " with " +
       std::to_string(total - fused) + " reformat layers";
  return s;
}

}  // namespace trtlens
