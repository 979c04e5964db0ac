#include "render/dot.h"

#include <re2/re2.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <memory>
#include <set>
#include <sstream>

#include "analysis/summary.h"
#include "render/escape.h"
#include "render/views.h"

namespace trtlens {
namespace {

using Vertex = EngineGraphImpl::vertex_descriptor;

// Text inside a DOT quoted string. Graphviz decodes HTML entities in plain labels too, so a
// literal '&' is written as an entity to come out unchanged.
std::string dot_text(std::string_view s) {
  std::string amp;
  amp.reserve(s.size());
  for (char c : s) {
    if (c == '&')
      amp += "&amp;";
    else
      amp.push_back(c);
  }
  return escape_dot(amp);
}

// Breaks a long name into lines of about `width` characters, preferring separators.
std::vector<std::string> wrap(std::string_view s, size_t width, size_t max_lines) {
  std::vector<std::string> lines;
  while (!s.empty()) {
    if (lines.size() + 1 == max_lines && s.size() > width) {
      lines.emplace_back(std::string(s.substr(0, width - 3)) + "...");
      return lines;
    }
    if (s.size() <= width) {
      lines.emplace_back(s);
      break;
    }
    size_t cut = width;
    for (size_t i = width; i > width / 2; --i) {
      char c = s[i - 1];
      if (c == ' ' || c == '+' || c == '/' || c == '_' || c == ',' || c == '.') {
        cut = i;
        break;
      }
    }
    // Never split a UTF-8 sequence.
    while (cut < s.size() && (static_cast<unsigned char>(s[cut]) & 0xc0) == 0x80) ++cut;
    lines.emplace_back(s.substr(0, cut));
    s.remove_prefix(cut);
  }
  return lines;
}

std::string join_label(const std::vector<std::string>& lines) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i) out += "\\n";
    out += dot_text(lines[i]);
  }
  return out;
}

const char* kPalette[] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462",
                          "#b3de69", "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f"};

std::string type_color(const std::string& type) {
  uint32_t h = 2166136261u;  // FNV-1a: stable across platforms, unlike std::hash
  for (unsigned char c : type) h = (h ^ c) * 16777619u;
  return kPalette[h % (sizeof kPalette / sizeof *kPalette)];
}

}  // namespace

std::string precision_color(const std::string& dtype) {
  static const std::map<std::string, std::string> colors = {
      {"FP32", "#a6cee3"},  {"FP16", "#b2df8a"},  {"BF16", "#ccebc5"},  {"FP8", "#fb9a99"},
      {"FP4", "#f4cae4"},   {"INT8", "#fdbf6f"},  {"UINT8", "#fee0b6"}, {"INT4", "#ffff99"},
      {"INT32", "#cab2d6"}, {"INT64", "#bc80bd"}, {"BOOL", "#d9d9d9"}};
  auto it = colors.find(dtype);
  return it == colors.end() ? "#ffffff" : it->second;
}

// One colour per kind of change, so a graph where every layer changed tactic still shows
// where the precision or the fusion changed.
std::string diff_color(const std::string& status) {
  static const std::map<std::string, std::string> colors = {
      {"added", "#b2df8a"},     {"removed", "#fb9a99"}, {"fusion", "#cab2d6"},
      {"precision", "#fdbf6f"}, {"type", "#ffff99"},    {"reformat", "#80b1d3"},
      {"format", "#a6cee3"},    {"tactic", "#e5e5e5"},  {"time", "#fff2ae"},
      {"memory", "#f4cae4"},    {"changed", "#fdbf6f"}};
  auto it = colors.find(status);
  return it == colors.end() ? "#ffffff" : it->second;
}

namespace {

// White -> red by fraction of the maximum.
std::string heat_color(double fraction) {
  fraction = std::clamp(fraction, 0.0, 1.0);
  int gb = int(255 - fraction * 200);
  char buf[8];
  std::snprintf(buf, sizeof buf, "#ff%02x%02x", gb, gb);
  return buf;
}

std::optional<double> layer_memory_bytes(const Layer& l) {
  const LayerMemory& m = l.memory;
  if (m.output_bytes || m.weight_bytes)
    return double(m.output_bytes.value_or(0) + m.weight_bytes.value_or(0));
  if (m.device_persistent || m.scratch)
    return double(m.device_persistent.value_or(0) + m.scratch.value_or(0));
  return std::nullopt;
}

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (b >= 1024 && u < 3) {
    b /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", b, units[u]);
  return buf;
}

std::string format_ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", ms);
  return buf;
}

std::vector<std::string> layer_tooltip(const Layer& l) {
  std::vector<std::string> t = {l.name, l.type};
  if (l.tactic) t.push_back("tactic " + *l.tactic);
  for (const auto& in : l.inputs) t.push_back("in: " + in.name + " " + format_tensor(in));
  for (const auto& out : l.outputs) t.push_back("out: " + out.name + " " + format_tensor(out));
  if (!l.onnx_nodes.empty()) {
    t.push_back("ONNX:");
    size_t shown = std::min<size_t>(l.onnx_nodes.size(), 30);
    for (size_t i = 0; i < shown; ++i) t.push_back("  " + l.onnx_nodes[i]);
    if (shown < l.onnx_nodes.size())
      t.push_back("  ... " + std::to_string(l.onnx_nodes.size() - shown) + " more");
  }
  return t;
}

// Scopes as a tree so clusters nest like the ONNX module hierarchy.
struct ScopeNode {
  std::map<std::string, std::unique_ptr<ScopeNode>> children;
  std::vector<std::string> members;  // node statements
};

void emit_scope(const ScopeNode& s, const std::string& path, int& counter, std::ostream& os,
                int depth) {
  for (const auto& [name, child] : s.children) {
    std::string here = path + "/" + name;
    os << std::string(size_t(depth) * 2, ' ') << "subgraph cluster_" << counter++ << " {\n"
       << std::string(size_t(depth) * 2 + 2, ' ') << "label=\"" << dot_text(here)
       << "\"; style=\"rounded,dashed\"; color=\"#888888\"; fontsize=9;\n";
    emit_scope(*child, here, counter, os, depth + 1);
    os << std::string(size_t(depth) * 2, ' ') << "}\n";
  }
  for (const auto& m : s.members) os << std::string(size_t(depth) * 2, ' ') << m;
}

}  // namespace

std::string layer_scope(const Layer& l) {
  const std::string& from = !l.onnx_nodes.empty() ? l.onnx_nodes.front() : l.name;
  if (from.empty() || from[0] != '/') return "";
  size_t slash = from.rfind('/');
  return slash == 0 ? "" : from.substr(0, slash);
}

DotGraph engine_dot(const Build& b, const DotOptions& o) {
  static const std::set<std::string> kColorBy = {"type", "precision", "time", "memory", "diff"};
  if (!kColorBy.count(o.color_by))
    throw std::invalid_argument(
        "--color-by: expected type, precision, time, memory or diff, not '" + o.color_by + "'");
  if (o.layout != "auto" && o.layout != "dot" && o.layout != "sfdp")
    throw std::invalid_argument("--layout: expected auto, dot or sfdp, not '" + o.layout + "'");
  const EngineGraphImpl& g = b.graph.g;
  const size_t nv = boost::num_vertices(g);
  DotGraph out;

  // Which vertices to draw.
  std::vector<char> keep(nv, 1);
  if (!o.focus.empty()) {
    RE2 re(o.focus, RE2::Quiet);
    if (!re.ok()) throw std::invalid_argument("--focus: " + re.error());
    std::fill(keep.begin(), keep.end(), 0);
    std::vector<int> dist(nv, -1);
    std::deque<Vertex> queue;
    size_t matched = 0;
    for (Vertex v = 0; v < nv; ++v) {
      const GraphVertex& gv = g[v];
      const std::string& name =
          gv.kind == VertexKind::Layer ? b.layers[size_t(gv.layer)].name : gv.tensor;
      if (RE2::PartialMatch(name, re)) {
        dist[v] = 0;
        queue.push_back(v);
        ++matched;
      }
    }
    while (!queue.empty()) {
      Vertex v = queue.front();
      queue.pop_front();
      keep[v] = 1;
      if (dist[v] >= o.radius) continue;
      auto visit = [&](Vertex w) {
        if (dist[w] < 0) {
          dist[w] = dist[v] + 1;
          queue.push_back(w);
        }
      };
      for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) visit(boost::target(*e, g));
      for (auto [e, end] = boost::in_edges(v, g); e != end; ++e) visit(boost::source(*e, g));
    }
    size_t kept = size_t(std::count(keep.begin(), keep.end(), 1));
    out.notes.push_back("focus '" + o.focus + "': " + std::to_string(matched) + " match(es), " +
                        std::to_string(kept) + " of " + std::to_string(nv) +
                        " nodes drawn (radius " + std::to_string(o.radius) + ")");
  }
  size_t drawn = size_t(std::count(keep.begin(), keep.end(), 1));
  const bool over_budget = drawn > o.budget_nodes;

  // Edges to draw; tensors with many readers become one stub edge under the budget.
  struct DrawEdge {
    Vertex from, to;
    const GraphEdge* e;
  };
  std::vector<DrawEdge> edges;
  std::map<std::pair<Vertex, std::string>, size_t> fanout;
  for (auto [e, end] = boost::edges(g); e != end; ++e) {
    Vertex s = boost::source(*e, g), t = boost::target(*e, g);
    if (keep[s] && keep[t]) {
      edges.push_back({s, t, &g[*e]});
      ++fanout[{s, g[*e].tensor}];
    }
  }
  std::vector<std::pair<Vertex, std::pair<std::string, size_t>>> stubs;
  if (over_budget) {
    std::set<std::pair<Vertex, std::string>> stubbed;
    for (const auto& [key, n] : fanout)
      if (n > o.stub_fanout) {
        stubbed.insert(key);
        stubs.push_back({key.first, {key.second, n}});
      }
    if (!stubbed.empty()) {
      size_t before = edges.size();
      std::erase_if(edges, [&](const DrawEdge& d) {
        return stubbed.count({d.from, d.e->tensor}) > 0;
      });
      out.notes.push_back("layout budget: " + std::to_string(stubbed.size()) +
                          " tensor(s) read by more than " + std::to_string(o.stub_fanout) +
                          " layers drawn as stubs (" + std::to_string(before - edges.size()) +
                          " edges left out)");
    }
  }
  bool edge_labels = o.edge_labels;
  if (edge_labels && over_budget) {
    edge_labels = false;
    out.notes.push_back("layout budget: edge labels dropped above " +
                        std::to_string(o.budget_nodes) + " nodes (tensor info stays in tooltips)");
  }

  // Long skip edges (many layers apart in engine order) are what makes dot super-linear.
  size_t long_skips = 0;
  for (const auto& d : edges) {
    const GraphVertex &a = g[d.from], &c = g[d.to];
    if (a.kind == VertexKind::Layer && c.kind == VertexKind::Layer &&
        std::abs(a.layer - c.layer) > 50)
      ++long_skips;
  }
  out.engine = o.layout == "sfdp" ? "sfdp" : "dot";
  if (o.layout == "auto" && over_budget &&
      (drawn > o.sfdp_nodes || long_skips * 100 >= edges.size())) {
    out.engine = "sfdp";
    out.notes.push_back("layout budget: " + std::to_string(drawn) + " nodes, " +
                        std::to_string(long_skips) +
                        " long skip edges: using sfdp (no top-to-bottom order; use --focus or "
                        "--layout dot for a layered drawing)");
  }

  // Colour scale for time/memory.
  double max_value = 0;
  size_t with_value = 0;
  auto value_of = [&](const Layer& l) -> std::optional<double> {
    if (o.color_by == "time") return l.time.average_ms ? l.time.average_ms : l.time.total_ms;
    if (o.color_by == "memory") return layer_memory_bytes(l);
    return std::nullopt;
  };
  if (o.color_by == "time" || o.color_by == "memory") {
    for (const auto& l : b.layers)
      if (auto v = value_of(l)) {
        max_value = std::max(max_value, *v);
        ++with_value;
      }
    if (with_value == 0)
      out.notes.push_back("--color-by " + o.color_by + ": no per-layer " + o.color_by +
                          " in the inputs; nodes left white");
  }

  std::ostringstream os;
  os << "digraph engine {\n"
     << "  graph [rankdir=TB, fontname=\"Helvetica\", fontsize=10, tooltip=\"engine graph\"";
  if (out.engine == "dot" && over_budget) {
    os << ", nslimit=2, nslimit1=2, mclimit=0.22, remincross=false, searchsize=20, "
          "splines=false";
    out.notes.push_back("layout budget: " + std::to_string(drawn) + " nodes > " +
                        std::to_string(o.budget_nodes) +
                        ": dot with bounded network-simplex/mincross and straight edges");
  }
  if (out.engine == "sfdp") os << ", overlap=scale, splines=false, outputorder=edgesfirst";
  os << "];\n"
     << "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=9, "
        "fillcolor=\"#ffffff\"];\n"
     << "  edge [fontname=\"Helvetica\", fontsize=8, color=\"#555555\", arrowsize=0.6];\n";

  auto vid = [&](Vertex v) {
    const GraphVertex& gv = g[v];
    if (gv.kind == VertexKind::Layer) return "L" + std::to_string(gv.layer);
    return (gv.kind == VertexKind::Input ? "I" : "O") + std::to_string(v);
  };

  ScopeNode root;
  for (Vertex v = 0; v < nv; ++v) {
    if (!keep[v]) continue;
    const GraphVertex& gv = g[v];
    std::ostringstream n;
    if (gv.kind != VertexKind::Layer) {
      bool in = gv.kind == VertexKind::Input;
      n << vid(v) << " [shape=" << (in ? "invhouse" : "house")
        << ", style=filled, fillcolor=\"#e0e0e0\", label=\"" << join_label(wrap(gv.tensor, 32, 3))
        << "\\n(" << (in ? "input" : "output") << ")\", tooltip=\"" << dot_text(gv.tensor)
        << "\"];\n";
      root.members.push_back(n.str());
      continue;
    }
    const Layer& l = b.layers[size_t(gv.layer)];
    std::vector<std::string> lines = wrap(l.name, 32, 4);
    std::string precision = l.outputs.empty() ? std::string() : l.outputs.front().dtype;
    lines.push_back(l.type + (precision.empty() ? "" : " " + precision));
    if (l.time.average_ms || l.time.total_ms) {
      std::string t = format_ms(l.time.average_ms ? *l.time.average_ms : *l.time.total_ms);
      if (l.time.percentage) {
        char buf[32];
        std::snprintf(buf, sizeof buf, " (%.1f%%)", *l.time.percentage);
        t += buf;
      }
      lines.push_back(t);
    }
    if (auto m = layer_memory_bytes(l)) lines.push_back("mem " + human_bytes(*m));
    if (o.expand_onnx && !l.onnx_nodes.empty()) {
      lines.push_back("ONNX (" + std::to_string(l.onnx_nodes.size()) + "):");
      size_t shown = std::min<size_t>(l.onnx_nodes.size(), 12);
      for (size_t i = 0; i < shown; ++i)
        for (auto& w : wrap(l.onnx_nodes[i], 30, 2)) lines.push_back("  " + w);
      if (shown < l.onnx_nodes.size())
        lines.push_back("  ... " + std::to_string(l.onnx_nodes.size() - shown) + " more");
    }
    std::string fill;
    if (o.color_by == "type")
      fill = type_color(l.type);
    else if (o.color_by == "precision")
      fill = precision_color(precision);
    else if (o.color_by == "diff") {
      auto it = o.diff_status.find(l.name);
      fill = diff_color(it == o.diff_status.end() ? "" : it->second);
    } else if (auto v = value_of(l))
      fill = heat_color(max_value > 0 ? *v / max_value : 0);
    else
      fill = "#f0f0f0";
    n << vid(v) << " [label=\"" << join_label(lines) << "\", tooltip=\""
      << join_label(layer_tooltip(l)) << "\", fillcolor=\"" << fill << "\"";
    if (l.role == LayerRole::Reformat)
      n << ", shape=box, style=\"filled,dashed\", color=\"#b15928\", penwidth=1.5";
    else if (l.role == LayerRole::Elided)  // no kernel: TensorRT aliased its input
      n << ", shape=box, style=\"filled,dotted\", color=\"#9e9e9e\", fontcolor=\"#757575\"";
    n << "];\n";
    std::string scope = o.cluster_by_scope ? layer_scope(l) : "";
    ScopeNode* at = &root;
    if (!scope.empty()) {
      std::string_view rest(scope);
      rest.remove_prefix(1);
      while (!rest.empty()) {
        size_t slash = rest.find('/');
        std::string part(rest.substr(0, slash));
        auto& child = at->children[part];
        if (!child) child = std::make_unique<ScopeNode>();
        at = child.get();
        if (slash == std::string_view::npos) break;
        rest.remove_prefix(slash + 1);
      }
    }
    at->members.push_back(n.str());
  }
  int cluster_counter = 0;
  emit_scope(root, "", cluster_counter, os, 1);
  out.nodes = drawn;

  for (const auto& d : edges) {
    const GraphEdge& e = *d.e;
    // The producer's view of the tensor (the consumer's for graph inputs).
    const Tensor* t = nullptr;
    if (g[d.from].kind == VertexKind::Layer && e.producer_output >= 0)
      t = &b.layers[size_t(g[d.from].layer)].outputs[size_t(e.producer_output)];
    else if (g[d.to].kind == VertexKind::Layer && e.consumer_input >= 0)
      t = &b.layers[size_t(g[d.to].layer)].inputs[size_t(e.consumer_input)];
    std::string info = t ? format_tensor(*t) : "";
    std::vector<std::string> tip = {e.tensor};
    if (!info.empty() && info != e.tensor) tip.push_back(info);
    os << "  " << vid(d.from) << " -> " << vid(d.to) << " [tooltip=\"" << join_label(tip) << "\"";
    if (edge_labels)
      os << ", label=\"" << join_label(wrap(e.tensor, 24, 2))
         << (info.empty() || info == e.tensor ? "" : "\\n" + dot_text(info)) << "\"";
    os << "];\n";
  }
  int s = 0;
  for (const auto& [from, tensor_n] : stubs) {
    std::string id = "S" + std::to_string(s++);
    std::string text = tensor_n.first + " -> " + std::to_string(tensor_n.second) + " readers";
    os << "  " << id << " [shape=note, style=filled, fillcolor=\"#fff7bc\", fontsize=8, label=\""
       << join_label(wrap(text, 28, 2)) << "\", tooltip=\"" << dot_text(text) << "\"];\n"
       << "  " << vid(from) << " -> " << id << " [style=dashed];\n";
  }
  out.edges = edges.size() + stubs.size();
  os << "}\n";
  out.dot = os.str();
  return out;
}

}  // namespace trtlens
