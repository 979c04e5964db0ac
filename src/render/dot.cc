#include "render/dot.h"

#include <re2/re2.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <memory>
#include <set>
#include <sstream>
#include <unordered_map>

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

// Text inside a Graphviz HTML-like label (the legend): entities for markup, and control bytes,
// which Graphviz's XML parser rejects, as '?'.
std::string legend_text(std::string_view s) {
  size_t cut = std::min<size_t>(s.size(), 40);
  while (cut < s.size() && cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xc0) == 0x80) --cut;
  std::string clean(s.substr(0, cut));
  for (char& c : clean)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return escape_html(clean);
}

// Breaks a long name into lines of about `width` characters, preferring separators.
std::vector<std::string> wrap(std::string_view s, size_t width, size_t max_lines) {
  std::vector<std::string> lines;
  while (!s.empty()) {
    if (lines.size() + 1 == max_lines && s.size() > width) {
      size_t cut = width - 3;
      while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xc0) == 0x80) --cut;
      lines.emplace_back(std::string(s.substr(0, cut)) + "...");
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
                          "#b3de69", "#fccde5", "#bc80bd", "#ccebc5", "#ffed6f", "#a6cee3"};
const char* kOtherColor = "#eeeeee";
const char* kNoDataColor = "#f0f0f0";

const std::vector<std::pair<std::string, std::string>>& precision_colors() {
  static const std::vector<std::pair<std::string, std::string>> colors = {
      {"FP32", "#a6cee3"},  {"FP16", "#b2df8a"},  {"BF16", "#ccebc5"},  {"FP8", "#fb9a99"},
      {"FP4", "#f4cae4"},   {"INT8", "#fdbf6f"},  {"UINT8", "#fee0b6"}, {"INT4", "#ffff99"},
      {"INT32", "#cab2d6"}, {"INT64", "#bc80bd"}, {"BOOL", "#d9d9d9"}};
  return colors;
}

const std::vector<std::pair<std::string, std::string>>& diff_colors();

}  // namespace

std::string precision_color(const std::string& dtype) {
  for (const auto& [k, c] : precision_colors())
    if (k == dtype) return c;
  return "#ffffff";
}

std::string diff_color(const std::string& status) {
  for (const auto& [k, c] : diff_colors())
    if (k == status) return c;
  return "#ffffff";
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

const std::vector<std::pair<std::string, std::string>>& diff_colors() {
  // One colour per kind of change, so a graph where every layer changed tactic still shows
  // where the precision or the fusion changed.
  static const std::vector<std::pair<std::string, std::string>> colors = {
      {"added", "#b2df8a"},     {"removed", "#fb9a99"}, {"fusion", "#cab2d6"},
      {"precision", "#fdbf6f"}, {"type", "#ffff99"},    {"reformat", "#80b1d3"},
      {"format", "#a6cee3"},    {"tactic", "#e5e5e5"},  {"time", "#fff2ae"},
      {"memory", "#f4cae4"},    {"changed", "#fdbf6f"}, {"unchanged", "#ffffff"}};
  return colors;
}

// The layer's footprint (inputs + weights + outputs), or its known lower bound.
std::optional<double> layer_memory_bytes(const Layer& l) {
  const LayerMemory& m = l.memory;
  if (m.footprint_floor_bytes) return double(*m.footprint_floor_bytes);
  return std::nullopt;
}

std::optional<double> layer_ms(const Layer& l) {
  return l.time.average_ms ? l.time.average_ms : l.time.total_ms;
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
  if (l.role != LayerRole::Unknown) t.push_back(std::string("role: ") + to_string(l.role));
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

// The first `depth` components of a scope ("/a/b/c", 2 -> "/a/b").
std::string scope_prefix(const std::string& scope, size_t depth) {
  size_t at = 0;
  for (size_t d = 0; d < depth; ++d) {
    at = scope.find('/', at + 1);
    if (at == std::string::npos) return scope;
  }
  return scope.substr(0, at);
}

// A collapsed group: consecutive layers (engine order) under one name.
struct Group {
  std::string name;
  size_t first = 0, count = 0;  // layers [first, first + count)
  double ms = 0, bytes = 0;
  size_t with_ms = 0, with_bytes = 0;
};

// Splits the drawn layers into runs that share an ONNX scope prefix, as deep as keeps the run
// count within `max_groups`; very long runs are cut into numbered parts, and layers without a
// scope are grouped by position, so the overview has a bounded number of boxes (about
// max_groups) whatever the names look like.
std::vector<Group> make_groups(const Build& b, const std::vector<char>& layer_drawn,
                               size_t max_groups) {
  std::vector<size_t> idx;
  std::vector<std::string> scope;
  for (size_t i = 0; i < b.layers.size(); ++i)
    if (layer_drawn[i]) {
      idx.push_back(i);
      scope.push_back(layer_scope(b.layers[i]));
    }
  size_t n = idx.size();
  size_t max_depth = 0;
  for (const auto& s : scope)
    max_depth = std::max<size_t>(max_depth, size_t(std::count(s.begin(), s.end(), '/')));
  auto key = [&](size_t k, size_t depth) {
    return scope[k].empty() ? std::string() : scope_prefix(scope[k], depth);
  };
  auto runs_at = [&](size_t depth) {
    size_t runs = 0;
    for (size_t k = 0; k < n; ++k)
      if (k == 0 || key(k, depth) != key(k - 1, depth)) ++runs;
    return runs;
  };
  size_t depth = 1;
  for (size_t d = max_depth; d >= 1; --d)
    if (runs_at(d) <= max_groups) {
      depth = d;
      break;
    }
  // Unnamed runs are cut into about 200 boxes (fewer when max_groups is small); a named run is cut
  // only when it holds more than a twentieth of the engine (one scope around everything says
  // nothing).
  const size_t unnamed_boxes = std::min<size_t>(200, max_groups / 2);
  size_t unnamed_share = std::max<size_t>(1, (n + unnamed_boxes - 1) / unnamed_boxes);
  size_t named_share = std::max(unnamed_share, (n + 19) / 20);
  std::vector<Group> groups;
  size_t k = 0;
  while (k < n) {
    std::string name = key(k, depth);
    size_t end = k + 1;
    while (end < n && key(end, depth) == name && idx[end] == idx[end - 1] + 1) ++end;
    size_t len = end - k;
    size_t share = name.empty() ? unnamed_share : named_share;
    size_t parts = (len + share - 1) / share;
    for (size_t p = 0; p < parts; ++p) {
      Group g;
      g.first = idx[k + p * share];
      g.count = std::min(share, len - p * share);
      std::string range =
          "layers " + std::to_string(g.first) + "-" + std::to_string(g.first + g.count - 1);
      g.name = name.empty() ? range : (parts > 1 ? name + " (" + range + ")" : name);
      groups.push_back(std::move(g));
    }
    k = end;
  }
  for (auto& g : groups)
    for (size_t i = g.first; i < g.first + g.count; ++i) {
      if (auto ms = layer_ms(b.layers[i])) g.ms += *ms, ++g.with_ms;
      if (auto m = layer_memory_bytes(b.layers[i])) g.bytes += *m, ++g.with_bytes;
    }
  return groups;
}

struct Legend {
  std::vector<std::pair<std::string, std::string>> swatches;  // label, colour
  std::string scale_title;                                    // time/memory
  std::vector<std::pair<std::string, std::string>> scale;     // value label, colour
  bool groups = false, stubs = false, skips = false, reformats = false, elided = false;
};

std::string legend_node(const Legend& lg, const std::string& title) {
  std::ostringstream os;
  os << "  legend [id=\"legend\", shape=plaintext, margin=0, tooltip=\"legend\", label=<"
     << "<table border=\"1\" cellborder=\"0\" cellspacing=\"2\" cellpadding=\"2\" "
        "bgcolor=\"#ffffff\" "
        "color=\"#999999\"><tr><td colspan=\"2\"><b>"
     << legend_text(title) << "</b></td></tr>";
  for (const auto& [label, color] : lg.swatches)
    os << "<tr><td bgcolor=\"" << color << "\" border=\"1\" width=\"18\"> </td><td align=\"left\">"
       << legend_text(label) << "</td></tr>";
  if (!lg.scale.empty()) {
    os << "<tr><td colspan=\"2\" align=\"left\">" << legend_text(lg.scale_title)
       << "</td></tr><tr><td colspan=\"2\"><table border=\"0\" cellspacing=\"0\" "
          "cellpadding=\"2\"><tr>";
    for (const auto& [label, color] : lg.scale)
      os << "<td bgcolor=\"" << color << "\" border=\"1\"><font point-size=\"7\">"
         << legend_text(label) << "</font></td>";
    os << "</tr></table></td></tr>";
  }
  // Graphviz's HTML tables draw no dashed cell borders, so the styles are named in words next
  // to a cell in the style's colours.
  auto style_row = [&](const char* fill, const char* border, const char* text) {
    os << "<tr><td bgcolor=\"" << fill << "\" color=\"" << border
       << "\" border=\"2\" width=\"18\"> </td><td align=\"left\">" << text << "</td></tr>";
  };
  if (lg.reformats) style_row("#ffffff", "#b15928", "reformat: dashed brown border");
  if (lg.elided) style_row("#ffffff", "#aaaaaa", "elided (costs nothing): dotted grey");
  if (lg.stubs) style_row("#fff7bc", "#999999", "stub: tensor read by many layers");
  if (lg.skips) style_row("#dbe9f6", "#999999", "long skip: arrow from far above, at its reader");
  if (lg.groups) style_row("#ffffff", "#1f3b57", "group of layers: double border");
  style_row("#e0e0e0", "#999999", "graph input / output: house shape");
  os << "</table>>];\n";
  return os.str();
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
  const EngineGraphImpl& g = b.graph.g();
  const size_t nv = boost::num_vertices(g);
  DotGraph out;
  out.layer_node_id.assign(b.layers.size(), "");

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
          gv.kind == VertexKind::Layer ? b.layers[size_t(gv.layer)].name : b.graph.tensor_of(gv);
      if (RE2::PartialMatch(name, re)) {
        dist[v] = 0;
        queue.push_back(v);
        ++matched;
      }
    }
    if (matched == 0)
      throw std::invalid_argument("--focus '" + o.focus +
                                  "' matches no layer or graph input/output name");
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
  std::vector<char> layer_drawn(b.layers.size(), 0);
  size_t drawn_layers = 0;
  for (Vertex v = 0; v < nv; ++v)
    if (keep[v] && g[v].kind == VertexKind::Layer) {
      layer_drawn[size_t(g[v].layer)] = 1;
      ++drawn_layers;
    }

  // Large engines: an overview of collapsed groups, some expanded on request.
  std::vector<std::unique_ptr<RE2>> expand;
  for (const auto& e : o.expand) {
    expand.push_back(std::make_unique<RE2>(e, RE2::Quiet));
    if (!expand.back()->ok()) throw std::invalid_argument("--expand: " + expand.back()->error());
  }
  std::vector<Group> groups;
  std::vector<int> group_of(b.layers.size(), -1);
  if (drawn_layers > o.collapse_layers) {
    std::vector<Group> all = make_groups(b, layer_drawn, std::max<size_t>(o.max_groups, 4));
    std::vector<size_t> hits(expand.size(), 0);
    size_t expanded_layers = 0;
    for (auto& grp : all) {
      bool open = false;
      for (size_t i = 0; i < expand.size(); ++i)
        if (RE2::PartialMatch(grp.name, *expand[i])) {
          ++hits[i];
          open = true;
        }
      if (open) {
        expanded_layers += grp.count;
        continue;
      }
      for (size_t i = grp.first; i < grp.first + grp.count; ++i) group_of[i] = int(groups.size());
      groups.push_back(std::move(grp));
    }
    for (size_t i = 0; i < expand.size(); ++i)
      if (hits[i] == 0)
        throw std::invalid_argument("--expand '" + o.expand[i] + "' matches none of the " +
                                    std::to_string(all.size()) + " groups");
    out.notes.push_back(
        std::to_string(drawn_layers) + " layers > " + std::to_string(o.collapse_layers) +
        ": drawn as an overview of " + std::to_string(groups.size()) +
        " groups (ONNX scopes, else runs of consecutive layers)" +
        (expanded_layers ? ", " + std::to_string(expanded_layers) + " layers expanded" : "") +
        "; --expand REGEX or --focus REGEX draws layers one by one");
  } else if (!expand.empty()) {
    out.notes.push_back("--expand: nothing is collapsed at " + std::to_string(drawn_layers) +
                        " layers (groups start above " + std::to_string(o.collapse_layers) + ")");
  }
  out.groups = groups.size();

  // Draw nodes: vertices keep their index, groups come after them.
  auto dn = [&](Vertex v) -> size_t {
    const GraphVertex& gv = g[v];
    if (gv.kind == VertexKind::Layer && group_of[size_t(gv.layer)] >= 0)
      return nv + size_t(group_of[size_t(gv.layer)]);
    return v;
  };
  auto did = [&](size_t d) -> std::string {
    if (d >= nv) return "G" + std::to_string(d - nv);
    const GraphVertex& gv = g[d];
    if (gv.kind == VertexKind::Layer) return "L" + std::to_string(gv.layer);
    return (gv.kind == VertexKind::Input ? "I" : "O") + std::to_string(d);
  };

  // Tensors read by many layers become stubs at every size: their long fan-out edges are what
  // makes network simplex run for minutes.
  std::map<std::pair<Vertex, std::string>, size_t> fanout;
  for (auto [e, end] = boost::edges(g); e != end; ++e) {
    Vertex s = boost::source(*e, g), t = boost::target(*e, g);
    if (keep[s] && keep[t]) ++fanout[{s, b.graph.tensor_of(*e, b.layers)}];
  }
  struct Stub {
    Vertex from;
    std::string tensor;
    size_t readers;
  };
  std::vector<Stub> stubs;
  std::set<std::pair<Vertex, std::string>> stubbed;
  for (const auto& [key, n] : fanout)
    if (n > o.stub_fanout) {
      stubbed.insert(key);
      stubs.push_back({key.first, key.second, n});
    }

  struct DrawEdge {
    size_t from, to;
    Vertex s, t;
    const GraphEdge* e;
    const std::string* tensor;
    size_t count;
  };
  std::vector<DrawEdge> edges;
  std::unordered_map<uint64_t, size_t> edge_at;
  std::unordered_map<Vertex, std::vector<std::string>> stub_reads;
  size_t stubbed_edges = 0;
  for (auto [e, end] = boost::edges(g); e != end; ++e) {
    Vertex s = boost::source(*e, g), t = boost::target(*e, g);
    if (!keep[s] || !keep[t]) continue;
    const std::string& tensor = b.graph.tensor_of(*e, b.layers);
    if (!stubbed.empty() && stubbed.count({s, tensor})) {
      ++stubbed_edges;
      if (stub_reads[t].size() < 8) stub_reads[t].push_back(tensor);
      continue;
    }
    size_t a = dn(s), c = dn(t);
    if (a == c) continue;
    uint64_t key = uint64_t(a) * (nv + groups.size() + 1) + c;
    auto [it, fresh] = edge_at.emplace(key, edges.size());
    if (fresh)
      edges.push_back({a, c, s, t, &g[*e], &tensor, 1});
    else
      ++edges[it->second].count;
  }
  // Long skips (a U-Net's or a ResNet's far connections) cost dot a chain of virtual nodes per
  // rank they cross: an edge spanning more than `long_span` ranks (longest-path ranks over the
  // drawn edges) becomes an arrow stub beside its reader.
  std::vector<char> long_skip(edges.size(), 0);
  size_t long_skips = 0;
  {
    const size_t total = nv + groups.size();
    std::vector<std::vector<size_t>> out_edges(total);
    std::vector<int> indegree(total, 0), rank(total, 0);
    for (size_t k = 0; k < edges.size(); ++k) {
      out_edges[edges[k].from].push_back(k);
      ++indegree[edges[k].to];
    }
    std::vector<size_t> ready;
    for (size_t v = 0; v < total; ++v)
      if (indegree[v] == 0) ready.push_back(v);
    std::vector<char> ranked(total, 0);
    while (!ready.empty()) {
      size_t v = ready.back();
      ready.pop_back();
      ranked[v] = 1;
      for (size_t k : out_edges[v]) {
        size_t w = edges[k].to;
        rank[w] = std::max(rank[w], rank[v] + 1);
        if (--indegree[w] == 0) ready.push_back(w);
      }
    }
    for (size_t k = 0; k < edges.size(); ++k) {
      const DrawEdge& d = edges[k];
      if (ranked[d.from] && ranked[d.to] && rank[d.to] - rank[d.from] > o.long_span) {
        long_skip[k] = 1;
        ++long_skips;
      }
    }
  }
  if (long_skips)
    out.notes.push_back(std::to_string(long_skips) + " edge(s) spanning more than " +
                        std::to_string(o.long_span) +
                        " ranks drawn as arrow stubs beside their readers");
  if (!stubs.empty())
    out.notes.push_back(std::to_string(stubs.size()) + " tensor(s) read by more than " +
                        std::to_string(o.stub_fanout) + " layers drawn as stubs (" +
                        std::to_string(stubbed_edges) + " edges left out)");

  size_t drawn_nodes = 0;
  for (Vertex v = 0; v < nv; ++v)
    if (keep[v] && !(g[v].kind == VertexKind::Layer && group_of[size_t(g[v].layer)] >= 0))
      ++drawn_nodes;
  drawn_nodes += groups.size();
  const bool over_budget = drawn_nodes > o.budget_nodes;
  bool edge_labels = o.edge_labels;
  if (edge_labels && over_budget) {
    edge_labels = false;
    out.notes.push_back("layout budget: edge labels dropped above " +
                        std::to_string(o.budget_nodes) + " nodes (tensor info stays in tooltips)");
  }
  out.engine = o.layout == "sfdp" ? "sfdp" : "dot";

  // Colours: one value per draw node for time/memory, one scale across them.
  bool heat = o.color_by == "time" || o.color_by == "memory";
  auto layer_value = [&](const Layer& l) -> std::optional<double> {
    if (o.color_by == "time") return layer_ms(l);
    if (o.color_by == "memory") return layer_memory_bytes(l);
    return std::nullopt;
  };
  auto group_value = [&](const Group& grp) -> std::optional<double> {
    if (o.color_by == "time" && grp.with_ms) return grp.ms;
    if (o.color_by == "memory" && grp.with_bytes) return grp.bytes;
    return std::nullopt;
  };
  double max_value = 0;
  bool any_missing = false, any_value = false;
  std::map<std::string, size_t> type_count;
  std::set<std::string> precisions_seen;
  for (size_t i = 0; i < b.layers.size(); ++i) {
    if (!layer_drawn[i]) continue;
    const Layer& l = b.layers[i];
    ++type_count[l.type];
    precisions_seen.insert(output_precision(l));
    if (heat && group_of[i] < 0) {
      auto v = layer_value(l);
      if (v)
        max_value = std::max(max_value, *v), any_value = true;
      else
        any_missing = true;
    }
  }
  for (const auto& grp : groups) {
    auto v = group_value(grp);
    if (v)
      max_value = std::max(max_value, *v), any_value = true;
    else if (heat)
      any_missing = true;
  }
  if (heat && !any_value)
    out.notes.push_back("--color-by " + o.color_by + ": no per-layer " + o.color_by +
                        " in the inputs; nodes left white");
  // Distinct colours for the most frequent types; the rest share one (named in the legend).
  std::vector<std::pair<std::string, size_t>> types(type_count.begin(), type_count.end());
  std::stable_sort(types.begin(), types.end(),
                   [](const auto& x, const auto& y) { return x.second > y.second; });
  const size_t palette = sizeof kPalette / sizeof *kPalette;
  std::map<std::string, std::string> type_colors;
  for (size_t i = 0; i < types.size(); ++i)
    type_colors[types[i].first] = i < palette ? kPalette[i] : kOtherColor;
  auto fill_of_layer = [&](const Layer& l) -> std::string {
    if (o.color_by == "type") return type_colors[l.type];
    if (o.color_by == "precision") return precision_color(output_precision(l));
    if (o.color_by == "diff") {
      auto it = o.diff_status.find(l.name);
      return diff_color(it == o.diff_status.end() ? "" : it->second);
    }
    if (auto v = layer_value(l)) return heat_color(max_value > 0 ? *v / max_value : 0);
    return kNoDataColor;
  };
  auto fill_of_group = [&](const Group& grp) -> std::string {
    if (heat) {
      auto v = group_value(grp);
      return v ? heat_color(max_value > 0 ? *v / max_value : 0) : kNoDataColor;
    }
    if (o.color_by == "diff") {
      for (size_t i = grp.first; i < grp.first + grp.count; ++i)
        if (o.diff_status.count(b.layers[i].name)) return diff_color("changed");
      return diff_color("");
    }
    // The colour of the group's most common type or precision.
    std::map<std::string, size_t> n;
    for (size_t i = grp.first; i < grp.first + grp.count; ++i)
      ++n[o.color_by == "type" ? b.layers[i].type.str() : output_precision(b.layers[i])];
    auto best = std::max_element(n.begin(), n.end(),
                                 [](const auto& x, const auto& y) { return x.second < y.second; });
    return o.color_by == "type" ? type_colors[best->first] : precision_color(best->first);
  };

  std::ostringstream os;
  os << "digraph engine {\n"
     << "  graph [rankdir=TB, fontname=\"Helvetica\", fontsize=10, tooltip=\"engine graph\"";
  if (out.engine == "dot") {
    // Bounded at every size: a few network-simplex passes per node and a short mincross search
    // cost little in drawing quality and keep any shape from running for minutes.
    os << ", nslimit=2, nslimit1=2, mclimit=" << (over_budget ? "0.22" : "0.5")
       << ", searchsize=20";
    if (over_budget) {
      os << ", remincross=false, splines=line";
      out.notes.push_back("layout budget: " + std::to_string(drawn_nodes) + " nodes > " +
                          std::to_string(o.budget_nodes) +
                          ": shorter mincross search and straight edges");
    }
  }
  if (out.engine == "sfdp") os << ", overlap=scale, splines=false, outputorder=edgesfirst";
  os << "];\n"
     << "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=9, "
        "fillcolor=\"#ffffff\"];\n"
     << "  edge [fontname=\"Helvetica\", fontsize=8, color=\"#555555\", arrowsize=0.6];\n";

  Legend legend;
  ScopeNode root;
  for (Vertex v = 0; v < nv; ++v) {
    if (!keep[v]) continue;
    const GraphVertex& gv = g[v];
    std::ostringstream n;
    std::string id = did(v);
    if (gv.kind != VertexKind::Layer) {
      bool in = gv.kind == VertexKind::Input;
      n << id << " [shape=" << (in ? "invhouse" : "house")
        << ", style=filled, fillcolor=\"#e0e0e0\", label=\""
        << join_label(wrap(b.graph.tensor_of(gv), 32, 3)) << "\\n(" << (in ? "input" : "output")
        << ")\", tooltip=\"" << dot_text(b.graph.tensor_of(gv)) << "\", id=\""
        << dot_text(o.id_prefix + id) << "\"];\n";
      root.members.push_back(n.str());
      continue;
    }
    const size_t li = size_t(gv.layer);
    if (group_of[li] >= 0) {
      out.layer_node_id[li] = o.id_prefix + "G" + std::to_string(group_of[li]);
      continue;
    }
    out.layer_node_id[li] = o.id_prefix + id;
    const Layer& l = b.layers[li];
    std::vector<std::string> lines = wrap(l.name, 32, 4);
    std::string precision = l.outputs.empty() ? std::string() : l.outputs.front().dtype.str();
    lines.push_back(l.type + (precision.empty() ? "" : " " + precision));
    if (auto ms = layer_ms(l)) {
      std::string t = format_ms(*ms);
      if (l.time.percentage) {
        char buf[32];
        std::snprintf(buf, sizeof buf, " (%.1f%%)", *l.time.percentage);
        t += buf;
      }
      lines.push_back(t);
    }
    if (auto m = layer_memory_bytes(l))
      lines.push_back(std::string("footprint ") + (l.memory.total_bytes ? "" : "≥ ") +
                      human_bytes(*m));
    if (o.expand_onnx && !l.onnx_nodes.empty()) {
      lines.push_back("ONNX (" + std::to_string(l.onnx_nodes.size()) + "):");
      size_t shown = std::min<size_t>(l.onnx_nodes.size(), 12);
      for (size_t i = 0; i < shown; ++i)
        for (auto& w : wrap(l.onnx_nodes[i], 30, 2)) lines.push_back("  " + w);
      if (shown < l.onnx_nodes.size())
        lines.push_back("  ... " + std::to_string(l.onnx_nodes.size() - shown) + " more");
    }
    std::vector<std::string> tip = layer_tooltip(l);
    if (auto it = stub_reads.find(v); it != stub_reads.end())
      for (const auto& t : it->second) tip.push_back("reads (drawn as a stub): " + t);
    n << id << " [label=\"" << join_label(lines) << "\", tooltip=\"" << join_label(tip)
      << "\", fillcolor=\"" << fill_of_layer(l) << "\", id=\"" << dot_text(o.id_prefix + id)
      << "\"";
    if (l.role == LayerRole::Reformat) {
      n << ", style=\"rounded,filled,dashed\", color=\"#b15928\", penwidth=1.5";
      legend.reformats = true;
    } else if (l.role == LayerRole::Elided) {
      n << ", style=\"rounded,filled,dotted\", color=\"#aaaaaa\", fontcolor=\"#777777\"";
      legend.elided = true;
    }
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
  for (size_t k = 0; k < groups.size(); ++k) {
    const Group& grp = groups[k];
    std::vector<std::string> lines = wrap(grp.name, 36, 3);
    lines.push_back(std::to_string(grp.count) + " layers");
    if (grp.with_ms) lines.push_back(format_ms(grp.ms));
    if (grp.with_bytes) lines.push_back("mem " + human_bytes(grp.bytes));
    std::vector<std::string> tip = {
        grp.name,
        "layers " + std::to_string(grp.first) + " to " + std::to_string(grp.first + grp.count - 1) +
            " (" + std::to_string(grp.count) + ")",
        "first: " + b.layers[grp.first].name, "last: " + b.layers[grp.first + grp.count - 1].name};
    std::ostringstream n;
    std::string id = "G" + std::to_string(k);
    n << id << " [label=\"" << join_label(lines) << "\", tooltip=\"" << join_label(tip)
      << "\", fillcolor=\"" << fill_of_group(grp) << "\", peripheries=2, color=\"#1f3b57\", id=\""
      << dot_text(o.id_prefix + id) << "\"];\n";
    root.members.push_back(n.str());
  }
  legend.groups = !groups.empty();
  int cluster_counter = 0;
  emit_scope(root, "", cluster_counter, os, 1);
  out.nodes = drawn_nodes;

  auto short_name = [&](size_t d) -> std::string {
    if (d >= nv) return groups[d - nv].name;
    const GraphVertex& gv = g[d];
    return gv.kind == VertexKind::Layer ? b.layers[size_t(gv.layer)].name : b.graph.tensor_of(gv);
  };
  size_t skip_id = 0;
  for (size_t k = 0; k < edges.size(); ++k) {
    const DrawEdge& d = edges[k];
    const GraphEdge& e = *d.e;
    if (long_skip[k]) {
      std::string id = "K" + std::to_string(skip_id++);
      std::string from = short_name(d.from);
      std::vector<std::string> tip = {*d.tensor, "from " + from};
      if (d.count > 1) tip.push_back("and " + std::to_string(d.count - 1) + " more tensor(s)");
      os << "  " << id << " [shape=rarrow, style=filled, fillcolor=\"#dbe9f6\", fontsize=8, "
         << "label=\"" << join_label(wrap("from " + from, 28, 2)) << "\", tooltip=\""
         << join_label(tip) << "\", id=\"" << dot_text(o.id_prefix + id) << "\"];\n"
         << "  " << id << " -> " << did(d.to) << " [style=dashed];\n";
      continue;
    }
    // The producer's view of the tensor (the consumer's for graph inputs).
    const Tensor* t = nullptr;
    if (g[d.s].kind == VertexKind::Layer && e.producer_output >= 0)
      t = &b.layers[size_t(g[d.s].layer)].outputs[size_t(e.producer_output)];
    else if (g[d.t].kind == VertexKind::Layer && e.consumer_input >= 0)
      t = &b.layers[size_t(g[d.t].layer)].inputs[size_t(e.consumer_input)];
    std::string info = t ? format_tensor(*t) : "";
    std::vector<std::string> tip = {*d.tensor};
    if (!info.empty() && info != *d.tensor) tip.push_back(info);
    if (d.count > 1) tip.push_back("and " + std::to_string(d.count - 1) + " more tensor(s)");
    os << "  " << did(d.from) << " -> " << did(d.to) << " [tooltip=\"" << join_label(tip) << "\"";
    if (edge_labels && d.count == 1)
      os << ", label=\"" << join_label(wrap(*d.tensor, 24, 2))
         << (info.empty() || info == *d.tensor ? "" : "\\n" + dot_text(info)) << "\"";
    if (d.count > 1) os << ", penwidth=" << std::min<size_t>(1 + d.count / 4, 4);
    os << "];\n";
  }
  for (size_t s = 0; s < stubs.size(); ++s) {
    std::string id = "S" + std::to_string(s);
    std::string text = stubs[s].tensor + " -> " + std::to_string(stubs[s].readers) + " readers";
    os << "  " << id << " [shape=note, style=filled, fillcolor=\"#fff7bc\", fontsize=8, label=\""
       << join_label(wrap(text, 28, 2)) << "\", tooltip=\"" << dot_text(text) << "\", id=\""
       << dot_text(o.id_prefix + id) << "\"];\n"
       << "  " << did(dn(stubs[s].from)) << " -> " << id << " [style=dashed];\n";
  }
  legend.stubs = !stubs.empty();
  legend.skips = long_skips > 0;
  out.edges = edges.size() + stubs.size();

  if (o.legend) {
    std::string title = "colour: " + o.color_by;
    if (o.color_by == "type") {
      for (size_t i = 0; i < types.size() && i < palette; ++i)
        legend.swatches.push_back(
            {types[i].first.empty() ? "(no type)" : types[i].first, kPalette[i]});
      if (types.size() > palette)
        legend.swatches.push_back(
            {std::to_string(types.size() - palette) + " other types", kOtherColor});
    } else if (o.color_by == "precision") {
      title = "colour: output precision";
      for (const auto& [k, c] : precision_colors())
        if (precisions_seen.count(k)) legend.swatches.push_back({k, c});
      bool other = std::any_of(precisions_seen.begin(), precisions_seen.end(),
                               [](auto& p) { return precision_color(p) == "#ffffff"; });
      if (other) legend.swatches.push_back({"unknown / other", "#ffffff"});
    } else if (o.color_by == "diff") {
      title = "colour: change against the other build";
      legend.swatches = diff_colors();
    } else {
      bool ms = o.color_by == "time";
      auto label = [&](double v) {
        if (!ms) return human_bytes(v);
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3g ms", v);
        return std::string(buf);
      };
      title = ms ? "colour: time (average per run)" : "colour: memory (outputs + weights)";
      legend.scale_title =
          "0 to " + label(max_value) + (groups.empty() ? "" : "; groups: sum of their layers");
      for (double f : {0.0, 0.25, 0.5, 0.75, 1.0})
        legend.scale.push_back({label(f * max_value), heat_color(f)});
      if (any_missing) legend.swatches.push_back({"no data", kNoDataColor});
    }
    os << legend_node(legend, title);
  }
  os << "}\n";
  out.dot = os.str();
  return out;
}

}  // namespace trtlens
