#include "render/diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "io/units.h"
#include "render/escape.h"
#include "render/json.h"
#include "render/text_table.h"

namespace trtlens {
namespace {

using json = nlohmann::ordered_json;

const char* kKinds[] = {"fusion", "added",  "removed", "precision", "reformat", "perf",   "time",
                        "type",   "tactic", "format",  "memory",    "version",  "device", "option"};

int kind_rank(const std::string& k) {
  for (size_t i = 0; i < std::size(kKinds); ++i)
    if (k == kKinds[i]) return int(i);
  return int(std::size(kKinds));
}

std::string value_text(const json& v, const std::string& unit) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return human_value(v.get<double>(), unit);
  return v.dump();
}

std::string percent(double p) { return human_number(std::round(p * 10) / 10); }

std::string delta_text(const DiffChange& c) {
  if (!c.delta) return "";
  std::string s = (*c.delta > 0 ? "+" : "") + human_value(*c.delta, c.unit);
  if (c.base.is_number() && c.base.get<double>() != 0 && c.unit != "layers")
    s += " (" + std::string(*c.delta > 0 ? "+" : "") +
         percent(*c.delta / c.base.get<double>() * 100) + "%)";
  return s;
}

std::string layers_text(const DiffChange& c) {
  if (c.base_layers == c.head_layers) return join(c.base_layers, " | ");
  return join(c.base_layers, " | ") + " -> " + join(c.head_layers, " | ");
}

// Summary order: structural facts first, then the biggest numeric moves.
std::vector<const DiffChange*> ranked(const DiffResult& d) {
  std::vector<const DiffChange*> v;
  for (const auto& c : d.changes) v.push_back(&c);
  std::stable_sort(v.begin(), v.end(), [](const DiffChange* a, const DiffChange* b) {
    int ra = kind_rank(a->kind), rb = kind_rank(b->kind);
    if (ra != rb) return ra < rb;
    return std::fabs(a->delta.value_or(0)) > std::fabs(b->delta.value_or(0));
  });
  return v;
}

template <class T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json();
}

json side_latency_json(const Latency& l) {
  json j;
  j["source"] = to_string(l.source);
  j["measured"] = l.measured();
  j["from"] = l.from.empty() ? json() : json(l.from);
  j["median_ms"] = opt(l.median_ms);
  j["mean_ms"] = opt(l.mean_ms);
  j["p99_ms"] = opt(l.p99_ms);
  j["cv_percent"] = opt(l.cv_percent);
  j["queries"] = l.queries;
  return j;
}

std::string transitions_text(const DiffResult& d) {
  std::string s;
  for (const auto& t : d.transitions) {
    if (!t.layers && !t.nodes) continue;
    if (!s.empty()) s += ", ";
    s += t.from + "->" + t.to + ": " + std::to_string(t.layers);
    if (t.nodes) s += " (" + std::to_string(t.nodes) + " nodes)";
  }
  return s.empty() ? "none" : s;
}

std::string fusion_text(const DiffResult& d) {
  std::string s;
  for (const auto& [what, n] : d.fusion_changes)
    s += (s.empty() ? "" : ", ") + what + " " + std::to_string(n);
  return s.empty() ? "none" : s;
}

std::string figure_value(const std::optional<double>& v, const std::string& unit) {
  if (!v) return "-";
  return human_value(*v, unit);
}

std::string figure_change(const HeadlineFigure& f) {
  if (!f.delta) return "";
  if (*f.delta == 0) return "unchanged";
  std::string s = (*f.delta > 0 ? "+" : "") + human_value(*f.delta, f.unit);
  if (f.percent) s += " (" + std::string(*f.percent > 0 ? "+" : "") + percent(*f.percent) + "%)";
  return s;
}

const char* gate_status(const GateResult& g) {
  return g.evaluated ? (g.breached ? "FAIL" : "ok") : "ERROR";
}

std::map<std::string, size_t> pairs_by(const DiffResult& d, size_t& only_base, size_t& only_head) {
  std::map<std::string, size_t> by;
  only_base = only_head = 0;
  for (const auto& p : d.alignment.pairs) {
    if (p.base >= 0 && p.head >= 0)
      ++by[to_string(p.by)];
    else if (p.base >= 0)
      ++only_base;
    else
      ++only_head;
  }
  return by;
}

// The summary folds changes that say the same thing (kind, field, base and head text) about
// many layers into one line, so that it fits a screen. Structural facts first.
std::vector<std::string> summary_lines(const DiffResult& d) {
  struct Line {
    std::string text;
    std::vector<std::string> where;
  };
  std::vector<Line> lines;
  std::map<std::string, size_t> folded;
  for (const DiffChange* cp : ranked(d)) {
    const DiffChange& c = *cp;
    std::string where = c.onnx_nodes.size() == 1 ? c.onnx_nodes.front() : layers_text(c);
    std::string text;
    bool foldable = !c.delta;
    if (c.kind == "added" || c.kind == "removed") {
      text = c.kind + " " + c.what;
      where = value_text(c.kind == "added" ? c.head : c.base, c.unit);
    } else if (c.kind == "fusion") {
      text = "fusion " + c.what;
      foldable = false;
      if (!c.onnx_nodes.empty()) where += "  {" + join(c.onnx_nodes, ", ") + "}";
    } else {
      text = c.kind + " " + c.what + ": " + value_text(c.base, c.unit) + " -> " +
             value_text(c.head, c.unit);
      std::string dt = delta_text(c);
      if (!dt.empty()) text += " (" + dt + ")";
    }
    if (c.kind == "option" || c.kind == "device" || c.kind == "version" || c.kind == "perf")
      foldable = false;
    if (foldable) {
      auto [it, fresh] = folded.emplace(text, lines.size());
      if (!fresh) {
        lines[it->second].where.push_back(where);
        continue;
      }
    }
    lines.push_back({text, {}});
    if (!where.empty()) lines.back().where.push_back(where);
  }
  std::vector<std::string> out;
  for (const auto& l : lines) {
    std::string line = l.text;
    if (l.where.size() > 1) line += "  x" + std::to_string(l.where.size());
    if (!l.where.empty()) {
      line += "  [" + l.where.front();
      if (l.where.size() > 1) line += ", " + l.where[1];
      if (l.where.size() > 2) line += ", ...";
      line += "]";
    }
    if (line.size() > 240) {  // cut on a UTF-8 boundary
      size_t cut = 237;
      while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xc0) == 0x80) --cut;
      line = line.substr(0, cut) + "...";
    }
    out.push_back(std::move(line));
  }
  return out;
}

}  // namespace

namespace {

json pair_json(const DiffResult& d, size_t k) {
  const LayerPair& p = d.alignment.pairs[k];
  json x;
  x["base"] = p.base >= 0 ? json(d.base->layers[size_t(p.base)].name) : json();
  x["head"] = p.head >= 0 ? json(d.head->layers[size_t(p.head)].name) : json();
  x["base_index"] = p.base >= 0 ? json(p.base) : json();
  x["head_index"] = p.head >= 0 ? json(p.head) : json();
  x["aligned_by"] = to_string(p.by);
  x["confidence"] = p.confidence;
  x["fusion_group"] = p.fusion_group >= 0 ? json(p.fusion_group) : json();
  return x;
}

json group_json(const DiffResult& d, size_t k) {
  const FusionGroup& fg = d.alignment.fusion_groups[k];
  json x;
  x["what"] = fg.what;
  x["base"] = json::array();
  for (int i : fg.base) x["base"].push_back(d.base->layers[size_t(i)].name);
  x["head"] = json::array();
  for (int i : fg.head) x["head"].push_back(d.head->layers[size_t(i)].name);
  x["onnx_nodes"] = fg.nodes;
  return x;
}

json change_json(const DiffResult& d, size_t k) {
  const DiffChange& c = d.changes[k];
  json x;
  x["kind"] = c.kind;
  x["what"] = c.what;
  x["base"] = c.base;
  x["head"] = c.head;
  x["delta"] = opt(c.delta);
  x["unit"] = c.unit.empty() ? json() : json(c.unit);
  x["base_layers"] = c.base_layers;
  x["head_layers"] = c.head_layers;
  x["onnx_nodes"] = c.onnx_nodes;
  return x;
}

// The document with its three long lists (pairs, fusion groups, changes) left empty.
json diff_json_head(const DiffResult& d, const std::vector<GateResult>& gates) {
  json j;
  j["schema"] = "trtlens-diff/2";
  j["base"] = diff_side_json(d.base_side);
  j["head"] = diff_side_json(d.head_side);
  json h = json::object();
  for (const auto& f : d.headline) {
    json x;
    x["label"] = f.label;
    x["base"] = opt(f.base);
    x["head"] = opt(f.head);
    x["delta"] = opt(f.delta);
    x["delta_percent"] = opt(f.percent);
    x["unit"] = f.unit;
    if (!f.note.empty()) x["note"] = f.note;
    h[f.key] = std::move(x);
  }
  h["precision_transitions"] = transitions_text(d);
  h["fusion_changes"] = d.fusion_changes;
  j["headline"] = std::move(h);
  j["latency"] = {{"base", side_latency_json(d.base_side.latency)},
                  {"head", side_latency_json(d.head_side.latency)},
                  {"source", d.latency_source}};
  auto tr = json::array();
  for (const auto& t : d.transitions)
    tr.push_back({{"from", t.from}, {"to", t.to}, {"layers", t.layers}, {"nodes", t.nodes}});
  j["precision_transitions"] = std::move(tr);
  auto g = json::array();
  for (const auto& r : gates) {
    json x = {{"rule", r.rule},
              {"status", gate_status(r)},
              {"evaluated", r.evaluated},
              {"breached", r.breached},
              {"message", r.message}};
    x["warning"] = r.warning.empty() ? json() : json(r.warning);
    x["base"] = opt(r.base);
    x["head"] = opt(r.head);
    g.push_back(std::move(x));
  }
  j["gates"] = std::move(g);
  j["pairs"] = json::array();
  j["fusion_groups"] = json::array();
  j["changes"] = json::array();
  json s;
  size_t only_base, only_head;
  auto by = pairs_by(d, only_base, only_head);
  s["aligned"] = json::object();
  for (const char* k : {"weights", "name", "onnx", "signature"}) s["aligned"][k] = by[k];
  s["only_base"] = only_base;
  s["only_head"] = only_head;
  s["changes"] = json::object();
  for (const char* k : kKinds) {
    size_t n = size_t(std::count_if(d.changes.begin(), d.changes.end(),
                                    [&](const DiffChange& c) { return c.kind == k; }));
    if (n) s["changes"][k] = n;
  }
  j["summary"] = std::move(s);
  return j;
}

}  // namespace

json diff_json(const DiffResult& d, const std::vector<GateResult>& gates) {
  json j = diff_json_head(d, gates);
  for (size_t k = 0; k < d.alignment.pairs.size(); ++k) j["pairs"].push_back(pair_json(d, k));
  for (size_t k = 0; k < d.alignment.fusion_groups.size(); ++k)
    j["fusion_groups"].push_back(group_json(d, k));
  for (size_t k = 0; k < d.changes.size(); ++k) j["changes"].push_back(change_json(d, k));
  return j;
}

void write_diff_json(const DiffResult& d, const std::vector<GateResult>& gates, std::ostream& os) {
  write_json_lists(
      os, diff_json_head(d, gates),
      {{"pairs", d.alignment.pairs.size(), [&d](size_t k) { return pair_json(d, k); }},
       {"fusion_groups", d.alignment.fusion_groups.size(),
        [&d](size_t k) { return group_json(d, k); }},
       {"changes", d.changes.size(), [&d](size_t k) { return change_json(d, k); }}});
  os << '\n';
}

namespace {
std::string percent_text(const DiffChange& c) {
  if (!c.delta || !c.base.is_number() || c.base.get<double>() == 0 || c.unit == "layers") return "";
  return exact_number(std::round(*c.delta / c.base.get<double>() * 1000) / 10);
}
}  // namespace

TextTable diff_changes_table(const DiffResult& d) {
  TextTable t;
  t.headers = {"kind", "what", "base", "head", "delta", "layers", "onnx nodes"};
  t.right_align = {false, false, false, false, true, false, false};
  for (const DiffChange* c : ranked(d))
    t.rows.push_back({c->kind, c->what, value_text(c->base, c->unit), value_text(c->head, c->unit),
                      delta_text(*c), layers_text(*c), join(c->onnx_nodes, ", ")});
  return t;
}

TextTable diff_csv_table(const DiffResult& d, const std::vector<GateResult>& gates) {
  TextTable t;
  t.headers = {"section", "kind",          "what",        "base",        "head",       "delta",
               "unit",    "delta_percent", "base_layers", "head_layers", "onnx_nodes", "note"};
  auto n = [](const std::optional<double>& v) { return v ? exact_number(*v) : std::string(); };
  for (const auto& f : d.headline)
    t.rows.push_back({"headline", f.key, f.label, n(f.base), n(f.head), n(f.delta), f.unit,
                      f.percent ? exact_number(std::round(*f.percent * 10) / 10) : "", "", "", "",
                      f.note});
  for (const auto& tr : d.transitions)
    t.rows.push_back({"headline", "precision_transition", tr.from + "->" + tr.to, "", "",
                      std::to_string(tr.layers), "layers", "", "", "", "",
                      std::to_string(tr.nodes) + " nodes"});
  for (const auto& [what, k] : d.fusion_changes)
    t.rows.push_back({"headline", "fusion_change", what, "", "", std::to_string(k), "groups", "",
                      "", "", "", ""});
  for (const auto& g : gates)
    t.rows.push_back({"gate", gate_status(g), g.rule, n(g.base), n(g.head), "", "", "", "", "", "",
                      g.message + (g.warning.empty() ? "" : " (warning: " + g.warning + ")")});
  for (const DiffChange* c : ranked(d)) {
    auto raw = [](const json& v) {
      if (v.is_null()) return std::string();
      if (v.is_string()) return v.get<std::string>();
      if (v.is_number()) return exact_number(v.get<double>());
      return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    };
    t.rows.push_back({"change", c->kind, c->what, raw(c->base), raw(c->head),
                      c->delta ? exact_number(*c->delta) : "", c->unit, percent_text(*c),
                      join(c->base_layers, " | "), join(c->head_layers, " | "),
                      join(c->onnx_nodes, ", "), ""});
  }
  return t;
}

void write_diff_markdown(const DiffResult& d, const std::vector<GateResult>& gates,
                         std::ostream& os, size_t top) {
  auto md = [](const std::string& s) { return escape_markdown(s); };
  auto side = [&](const char* label, const DiffSide& s) {
    os << "- **" << label << "**: " << md(s.label) << " (";
    if (!s.trt_version.empty()) os << "TensorRT " << md(s.trt_version) << ", ";
    os << s.layers << " layers)\n";
  };
  os << "## trtlens diff\n\n";
  side("base", d.base_side);
  side("head", d.head_side);
  bool failed = false, error = false;
  for (const auto& g : gates) failed |= g.breached, error |= !g.evaluated;
  if (!gates.empty()) os << "\n**Gates: " << (error ? "ERROR" : failed ? "FAIL" : "pass") << "**\n";
  TextTable h;
  h.headers = {"figure", "base", "head", "change", "note"};
  h.right_align = {false, true, true, true, false};
  for (const auto& f : d.headline) {
    if (!f.base && !f.head) continue;
    h.rows.push_back({f.label, figure_value(f.base, f.unit), figure_value(f.head, f.unit),
                      figure_change(f), f.note});
  }
  h.rows.push_back({"precision transitions", "", "", transitions_text(d), "aligned layers"});
  h.rows.push_back({"fusion changes", "", "", fusion_text(d), ""});
  os << '\n';
  write_markdown_table(h, os);
  if (!gates.empty()) {
    os << "\n### Gates\n\n";
    TextTable g;
    g.headers = {"rule", "result", "detail"};
    for (const auto& r : gates)
      g.rows.push_back({r.rule, gate_status(r),
                        r.message + (r.warning.empty() ? "" : " (warning: " + r.warning + ")")});
    write_markdown_table(g, os);
  }
  auto lines = summary_lines(d);
  if (!lines.empty()) {
    os << "\n### Top changes\n\n";
    for (size_t i = 0; i < lines.size() && i < top; ++i) os << "- " << md(lines[i]) << '\n';
    if (lines.size() > top) os << "- ... " << lines.size() - top << " more in the details\n";
  }
  size_t only_base, only_head;
  auto by = pairs_by(d, only_base, only_head);
  os << "\nAligned: " << by["weights"] << " by weights, " << by["name"] << " by name, "
     << by["onnx"] << " by ONNX node, " << by["signature"] << " by signature; " << only_base
     << " only in base, " << only_head << " only in head.\n";
  if (d.changes.empty()) return;
  os << "\n<details><summary>All " << d.changes.size() << " changes</summary>\n\n";
  write_markdown_table(diff_changes_table(d), os);
  os << "\n</details>\n";
}

void write_diff_terminal(const DiffResult& d, const std::vector<GateResult>& gates,
                         std::ostream& os, size_t top) {
  auto side = [&](const char* label, const DiffSide& s) {
    os << label << ": " << escape_terminal(s.label) << "  (";
    if (!s.trt_version.empty()) os << "TensorRT " << escape_terminal(s.trt_version) << ", ";
    os << s.layers << " layers)\n";
  };
  side("base", d.base_side);
  side("head", d.head_side);
  for (const auto& f : d.headline) {
    if (!f.base && !f.head) continue;
    std::string line =
        f.label + ": " + figure_value(f.base, f.unit) + " -> " + figure_value(f.head, f.unit);
    std::string ch = figure_change(f);
    if (!ch.empty()) line += "  " + ch;
    if (!f.note.empty()) line += "  [" + f.note + "]";
    os << "  " << escape_terminal(line) << '\n';
  }
  os << "  precision transitions: " << escape_terminal(transitions_text(d))
     << "; fusion changes: " << escape_terminal(fusion_text(d)) << '\n';
  size_t only_base, only_head;
  auto by = pairs_by(d, only_base, only_head);
  os << "aligned: " << by["weights"] << " by weights, " << by["name"] << " by name, " << by["onnx"]
     << " by onnx, " << by["signature"] << " by signature; " << only_base << " only in base, "
     << only_head << " only in head\n";
  os << "changes: " << d.changes.size();
  const char* sep = " (";
  for (const char* k : kKinds) {
    size_t n = size_t(std::count_if(d.changes.begin(), d.changes.end(),
                                    [&](const DiffChange& c) { return c.kind == k; }));
    if (!n) continue;
    os << sep << k << ' ' << n;
    sep = ", ";
  }
  os << (d.changes.empty() ? "\n" : ")\n");
  for (const auto& g : gates) {
    const Paint colour = !g.evaluated ? Paint::Error : g.breached ? Paint::Fail : Paint::Ok;
    os << paint(colour, gate_status(g)) << (g.evaluated && !g.breached ? "   " : " ")
       << escape_terminal(g.rule) << ": " << escape_terminal(g.message) << '\n';
    if (!g.warning.empty()) os << "     warning: " << escape_terminal(g.warning) << '\n';
  }
  auto lines = summary_lines(d);
  if (!lines.empty()) os << "\ntop changes:\n";
  for (size_t i = 0; i < lines.size() && i < top; ++i) {
    os << "  " << escape_terminal(lines[i]) << '\n';
  }
  if (lines.size() > top) os << "  ... " << lines.size() - top << " more lines in the details\n";
  if (d.changes.empty()) return;
  os << "\ndetails:\n";
  write_terminal_table(diff_changes_table(d), os, 60);
}

std::vector<DiffRow> diff_html_rows(const DiffResult& d) {
  std::vector<DiffRow> rows;
  for (const auto& c : d.changes) {
    auto text = [&c](const nlohmann::ordered_json& v) {
      if (v.is_null()) return std::string();
      if (v.is_string()) return v.get<std::string>();
      if (v.is_number()) return human_value(v.get<double>(), c.unit);
      return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    };
    size_t n = std::max<size_t>({c.base_layers.size(), c.head_layers.size(), 1});
    for (size_t i = 0; i < n; ++i) {
      DiffRow r;
      r.kind = c.kind;
      r.layer_a = i < c.base_layers.size() ? c.base_layers[i] : "";
      r.layer_b = i < c.head_layers.size() ? c.head_layers[i] : "";
      r.detail = c.what;
      if (!c.onnx_nodes.empty() && i == 0) {
        r.detail += r.detail.empty() ? "" : " ";
        r.detail += "(ONNX:";
        for (const auto& node : c.onnx_nodes) r.detail += " " + node;
        r.detail += ")";
      }
      r.before = text(c.base);
      r.after = text(c.head);
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

DiffHeadline diff_html_headline(const DiffResult& d, const std::vector<GateResult>& gates) {
  DiffHeadline h;
  auto value = [](std::optional<double> v, const std::string& unit) {
    if (!v) return std::string("?");
    return human_value(*v, unit);
  };
  for (const auto& f : d.headline) {
    if (!f.base && !f.head) continue;  // neither side knows it: nothing to compare
    std::string v = value(f.base, f.unit) + " -> " + value(f.head, f.unit);
    if (f.percent) {
      char buf[32];
      std::snprintf(buf, sizeof buf, " (%+.1f%%)", *f.percent);
      v += buf;
    }
    if (!f.note.empty()) v += "; " + f.note;
    h.figures.push_back({f.label, v});
  }
  for (const auto& g : gates)
    h.gates.push_back({g.rule + ": " + (g.evaluated ? g.message : "not evaluated: " + g.message),
                       g.breached || !g.evaluated});
  for (const auto& t : d.transitions)
    h.transitions.push_back(t.from + " -> " + t.to + ": " + std::to_string(t.layers) + " layers" +
                            (t.nodes ? ", " + std::to_string(t.nodes) + " ONNX nodes" : ""));
  return h;
}

json diff_side_json(const DiffSide& s) {
  json j;
  j["inputs"] = s.label;
  j["trt_version"] = s.trt_version.empty() ? json() : json(s.trt_version);
  j["layers"] = s.layers;
  j["running_layers"] = opt(s.running_layers);
  j["reformats"] = opt(s.reformats);
  j["reformat_bytes"] = opt(s.reformat_bytes);
  j["reformat_ms"] = opt(s.reformat_ms);
  j["sum_layer_ms"] = opt(s.sum_layer_ms);
  j["weights_bytes"] = opt(s.weights_bytes);
  j["peak_activation_bytes"] = opt(s.peak_activation_bytes);
  j["engine_size_mib"] = opt(s.engine_size_mib);
  j["latency"] = side_latency_json(s.latency);
  return j;
}

}  // namespace trtlens
