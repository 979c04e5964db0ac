#include "render/diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "render/escape.h"
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

std::string num(double v) {
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string value_text(const json& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return num(v.get<double>());
  return v.dump();
}

std::string join(const std::vector<std::string>& xs, const char* sep) {
  std::string s;
  for (size_t i = 0; i < xs.size(); ++i) s += (i ? sep : "") + xs[i];
  return s;
}

std::string delta_text(const DiffChange& c) {
  if (!c.delta) return "";
  std::string s = (*c.delta > 0 ? "+" : "") + num(*c.delta);
  if (!c.unit.empty()) s += " " + c.unit;
  if (c.base.is_number() && c.base.get<double>() != 0 && c.unit != "layers")
    s += " (" + std::string(*c.delta > 0 ? "+" : "") +
         num(std::round(*c.delta / c.base.get<double>() * 1000) / 10) + "%)";
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

json side_json(const DiffSide& s) {
  json j;
  j["inputs"] = s.label;
  j["trt_version"] = s.trt_version.empty() ? json() : json(s.trt_version);
  j["layers"] = s.layers;
  j["reformats"] = s.reformats;
  j["reformat_bytes"] = s.reformat_bytes;
  j["reformat_ms"] = s.reformat_ms ? json(*s.reformat_ms) : json();
  j["total_layer_ms"] = s.total_ms ? json(*s.total_ms) : json();
  j["latency_ms"] = s.latency_ms ? json(*s.latency_ms) : json();
  return j;
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

}  // namespace

json diff_json(const DiffResult& d, const std::vector<GateResult>& gates) {
  json j;
  j["schema"] = "trtlens-diff/1";
  j["base"] = side_json(d.base_side);
  j["head"] = side_json(d.head_side);
  auto pairs = json::array();
  for (const auto& p : d.alignment.pairs) {
    json x;
    x["base"] = p.base >= 0 ? json(d.base->layers[size_t(p.base)].name) : json();
    x["head"] = p.head >= 0 ? json(d.head->layers[size_t(p.head)].name) : json();
    x["aligned_by"] = to_string(p.by);
    if (p.fusion_group >= 0) x["fusion_group"] = p.fusion_group;
    pairs.push_back(std::move(x));
  }
  j["pairs"] = std::move(pairs);
  auto changes = json::array();
  for (const auto& c : d.changes) {
    json x;
    x["kind"] = c.kind;
    x["what"] = c.what;
    x["base"] = c.base;
    x["head"] = c.head;
    x["base_layers"] = c.base_layers;
    x["head_layers"] = c.head_layers;
    x["onnx_nodes"] = c.onnx_nodes;
    if (c.delta) x["delta"] = *c.delta;
    if (!c.unit.empty()) x["unit"] = c.unit;
    changes.push_back(std::move(x));
  }
  j["changes"] = std::move(changes);
  json s;
  size_t only_base, only_head;
  auto by = pairs_by(d, only_base, only_head);
  s["aligned"] = json::object();
  for (const char* k : {"onnx", "name", "signature", "none"}) s["aligned"][k] = by[k];
  s["only_base"] = only_base;
  s["only_head"] = only_head;
  s["changes"] = json::object();
  for (const char* k : kKinds) {
    size_t n = size_t(std::count_if(d.changes.begin(), d.changes.end(),
                                    [&](const DiffChange& c) { return c.kind == k; }));
    if (n) s["changes"][k] = n;
  }
  j["summary"] = std::move(s);
  auto g = json::array();
  for (const auto& r : gates)
    g.push_back({{"rule", r.rule},
                 {"evaluated", r.evaluated},
                 {"breached", r.breached},
                 {"message", r.message}});
  j["gates"] = std::move(g);
  return j;
}

TextTable diff_changes_table(const DiffResult& d) {
  TextTable t;
  t.headers = {"kind", "what", "base", "head", "delta", "layers", "onnx nodes"};
  t.right_align = {false, false, false, false, true, false, false};
  for (const DiffChange* c : ranked(d))
    t.rows.push_back({c->kind, c->what, value_text(c->base), value_text(c->head), delta_text(*c),
                      layers_text(*c), join(c->onnx_nodes, ", ")});
  return t;
}

void write_diff_terminal(const DiffResult& d, const std::vector<GateResult>& gates,
                         std::ostream& os, size_t top) {
  auto side = [&](const char* label, const DiffSide& s) {
    os << label << ": " << escape_terminal(s.label) << "  (";
    if (!s.trt_version.empty()) os << "TensorRT " << escape_terminal(s.trt_version) << ", ";
    os << s.layers << " layers, " << s.reformats << " reformats";
    if (s.total_ms) os << ", layer time " << num(*s.total_ms) << " ms";
    if (s.latency_ms) os << ", latency " << num(*s.latency_ms) << " ms";
    os << ")\n";
  };
  side("base", d.base_side);
  side("head", d.head_side);
  size_t only_base, only_head;
  auto by = pairs_by(d, only_base, only_head);
  os << "aligned: " << by["onnx"] << " by onnx, " << by["name"] << " by name, " << by["signature"]
     << " by signature; " << only_base << " only in base, " << only_head << " only in head\n";
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
  // The summary folds changes that say the same thing (kind, field, base and head text) about
  // many layers into one line, so that it fits a screen.
  auto r = ranked(d);
  struct Line {
    std::string text;
    std::vector<std::string> where;
  };
  std::vector<Line> lines;
  std::map<std::string, size_t> folded;
  for (const DiffChange* cp : r) {
    const DiffChange& c = *cp;
    std::string where = c.onnx_nodes.size() == 1 ? c.onnx_nodes.front() : layers_text(c);
    std::string text;
    bool foldable = !c.delta;
    if (c.kind == "added" || c.kind == "removed") {
      text = c.kind + " " + c.what;
      where = value_text(c.kind == "added" ? c.head : c.base);
    } else if (c.kind == "fusion") {
      text = "fusion " + c.what;
      foldable = false;
      if (!c.onnx_nodes.empty()) where += "  {" + join(c.onnx_nodes, ", ") + "}";
    } else {
      text = c.kind + " " + c.what + ": " + value_text(c.base) + " -> " + value_text(c.head);
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
  if (!lines.empty()) os << "\ntop changes:\n";
  for (size_t i = 0; i < lines.size() && i < top; ++i) {
    const Line& l = lines[i];
    std::string line = l.text;
    if (l.where.size() > 1) line += "  x" + std::to_string(l.where.size());
    if (!l.where.empty()) {
      line += "  [" + l.where.front();
      if (l.where.size() > 1) line += ", " + l.where[1];
      if (l.where.size() > 2) line += ", ...";
      line += "]";
    }
    std::string esc = escape_terminal(line);
    if (esc.size() > 200) {  // cut on a UTF-8 boundary
      size_t cut = 197;
      while (cut > 0 && (static_cast<unsigned char>(esc[cut]) & 0xc0) == 0x80) --cut;
      esc = esc.substr(0, cut) + "...";
    }
    os << "  " << esc << '\n';
  }
  if (lines.size() > top) os << "  ... " << lines.size() - top << " more lines in the details\n";
  for (const auto& g : gates)
    os << (g.evaluated
               ? (g.breached ? paint(Paint::Fail, "FAIL") + " " : paint(Paint::Ok, "ok") + "   ")
               : paint(Paint::Error, "ERROR") + " ")
       << escape_terminal(g.rule) << ": " << escape_terminal(g.message) << '\n';
  if (r.empty()) return;
  os << "\ndetails:\n";
  write_terminal_table(diff_changes_table(d), os, 60);
}

std::vector<DiffRow> diff_html_rows(const DiffResult& d) {
  auto text = [](const nlohmann::ordered_json& v) {
    if (v.is_null()) return std::string();
    if (v.is_string()) return v.get<std::string>();
    return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  std::vector<DiffRow> rows;
  for (const auto& c : d.changes) {
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

}  // namespace trtlens
