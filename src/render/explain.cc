#include "render/explain.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "io/units.h"
#include "render/escape.h"
#include "render/runs.h"

namespace trtlens {
namespace {

using ojson = nlohmann::ordered_json;

std::string where(const SourceLoc& s) { return s.path + ":" + std::to_string(s.line); }

std::string evidence_text(const Remark& r) {
  std::vector<std::string> v;
  for (const auto& e : r.evidence) v.push_back(where(e));
  return join(v);
}

bool keep(const Remark& r, const ExplainFilter& f) {
  if (!f.kind.empty() && r.kind != f.kind) return false;
  if (!f.node) return true;
  if (RE2::PartialMatch(r.layer, *f.node)) return true;
  for (const auto& n : r.onnx_nodes)
    if (RE2::PartialMatch(n, *f.node)) return true;
  return false;
}

void write_html(const std::string& title, const TextTable& t, std::ostream& os) {
  os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>trtlens "
     << escape_html(title) << "</title></head><body>\n<h1>" << escape_html(title)
     << "</h1>\n<table>\n<tr>";
  for (const auto& h : t.headers) os << "<th>" << escape_html(h) << "</th>";
  os << "</tr>\n";
  for (const auto& row : t.rows) {
    os << "<tr>";
    for (const auto& cell : row) os << "<td>" << escape_html(cell) << "</td>";
    os << "</tr>\n";
  }
  os << "</table>\n</body></html>\n";
}

}  // namespace

TextTable remarks_table(const Capture& c, const ExplainFilter& f) {
  TextTable t;
  t.headers = {"kind", "category", "ONNX nodes", "layer", "reason", "evidence"};
  t.right_align = {false, false, false, false, false, false};
  for (const auto& r : c.remarks) {
    if (!keep(r, f)) continue;
    std::string reason = r.reason;
    if (r.time_ms) reason += "; " + human_ms(r.time_ms);
    if (r.bytes) reason += "; " + human_bytes(r.bytes);
    t.rows.push_back({r.kind, r.category, join(r.onnx_nodes), r.layer, reason, evidence_text(r)});
  }
  return t;
}

ojson remarks_json(const Capture& c, const ExplainFilter& f) {
  ojson a = ojson::array();
  for (const auto& r : c.remarks) {
    if (!keep(r, f)) continue;
    ojson j;
    j["kind"] = r.kind;
    j["category"] = r.category;
    j["build"] = r.build;
    j["onnx_nodes"] = r.onnx_nodes;
    j["scope"] = r.scope;
    j["layer"] = r.layer;
    j["reason"] = r.reason;
    j["evidence"] = ojson::array();
    for (const auto& e : r.evidence) j["evidence"].push_back({{"path", e.path}, {"line", e.line}});
    j["repeats"] = r.repeats;
    j["time_ms"] = r.time_ms ? ojson(*r.time_ms) : ojson(nullptr);
    j["bytes"] = r.bytes ? ojson(*r.bytes) : ojson(nullptr);
    a.push_back(std::move(j));
  }
  return a;
}

// Layers whose device the input gave, then fallbacks naming no layer of the build.
TextTable dla_table(const Capture& c) {
  TextTable t;
  t.headers = {"layer", "ONNX nodes", "runs on", "why it fell back", "evidence"};
  t.right_align = {false, false, false, false, false};
  std::vector<std::string> shown;
  if (const Build* b = c.final_build())
    for (const auto& l : b->layers) {
      if (l.device.empty()) continue;
      std::string ev = where(l.source);
      for (const auto& r : c.remarks)
        if (r.category == "dla" && r.kind == "missed" && r.layer == l.name) ev = evidence_text(r);
      t.rows.push_back({l.name, join(l.onnx_nodes), l.device, l.fallback_reason, ev});
      shown.push_back(l.name);
    }
  for (const auto& r : c.remarks) {
    if (r.category != "dla" || r.kind != "missed") continue;
    if (std::find(shown.begin(), shown.end(), r.layer) != shown.end()) continue;
    t.rows.push_back({r.layer, join(r.onnx_nodes), "GPU", r.reason, evidence_text(r)});
  }
  return t;
}

TextTable tuner_table(const Capture& c) {
  TextTable t;
  t.headers = {"run", "iter", "route", "gpu time", "accuracy", "status", "evidence"};
  t.right_align = {false, true, false, true, false, false, false};
  for (const auto& run : c.tuning)
    for (const auto& it : run.iterations) {
      std::vector<std::string> acc;
      for (const auto& [tensor, loss] : it.accuracy_loss) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.6f", loss);
        acc.push_back(tensor + "=" + buf);
      }
      std::string status = it.crash                     ? "crash"
                           : it.aborted                 ? "aborted"
                           : it.accuracy_failed         ? "accuracy FAIL"
                           : it.ended || it.gpu_time_ms ? "ok"
                                                        : "started";
      if (it.iter == run.best_iter) status += ", best";
      if (!it.error_message.empty()) status += ": " + it.error_message;
      t.rows.push_back({run.path, std::to_string(it.iter), it.route,
                        it.gpu_time_ms ? human_ms(it.gpu_time_ms) : "", join(acc), status,
                        where(it.source)});
    }
  return t;
}

void write_explain(const Capture& c, const std::string& what, const std::string& format,
                   const ExplainFilter& f, std::ostream& os) {
  if (format == "json") {
    ojson j;
    j["schema"] = "trtlens/1";
    if (what == "remarks")
      j["remarks"] = remarks_json(c, f);
    else {
      TextTable t = what == "dla" ? dla_table(c) : tuner_table(c);
      ojson rows = ojson::array();
      for (const auto& row : t.rows) {
        ojson r;
        for (size_t i = 0; i < row.size(); ++i) r[t.headers[i]] = row[i];
        rows.push_back(std::move(r));
      }
      j[what] = std::move(rows);
      if (what == "tuner") j["best_vs_default"] = tuner_comparison_json(c);
    }
    os << j.dump(2) << "\n";
    return;
  }
  TextTable t = what == "dla"     ? dla_table(c)
                : what == "tuner" ? tuner_table(c)
                                  : remarks_table(c, f);
  if (format == "html") {
    write_html(what == "dla"     ? "DLA placement"
               : what == "tuner" ? "Build tuner routes"
                                 : "Remarks",
               t, os);
    return;
  }
  write_table(t, format, os);
  if (what == "tuner" && (format == "table" || format == "md"))
    write_tuner_comparison(c, format, os);
}

void write_missed_section(const Capture& c, const std::string& format, std::ostream& os,
                          const Build* build, size_t limit) {
  // Failures TensorRT reported (DLA and precision fallbacks) before what the evidence suggests.
  auto rank = [](const std::string& category) {
    return category == "dla" ? 0 : category == "precision" ? 1 : category == "fusion" ? 2 : 3;
  };
  struct Reason {
    std::string category, text;
    int count = 0;
    std::vector<std::string> evidence;
  };
  struct Scope {
    std::string name;
    int rank = 4;
    size_t first = 0;
    std::vector<Reason> reasons;
  };
  std::vector<Scope> scopes;
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < c.remarks.size(); ++i) {
    const Remark& r = c.remarks[i];
    if (r.kind != "missed" || (build && r.build >= 0 && r.build != build->id)) continue;
    auto [it, fresh] = index.emplace(r.scope, scopes.size());
    if (fresh) scopes.push_back({r.scope, 4, i, {}});
    Scope& s = scopes[it->second];
    s.rank = std::min(s.rank, rank(r.category));
    auto reason = std::find_if(s.reasons.begin(), s.reasons.end(), [&](const Reason& x) {
      return x.category == r.category && x.text == r.reason;
    });
    if (reason == s.reasons.end()) {
      s.reasons.push_back({r.category, r.reason, 0, {}});
      reason = s.reasons.end() - 1;
    }
    ++reason->count;
    for (const auto& e : r.evidence) {
      std::string w = where(e);
      if (std::find(reason->evidence.begin(), reason->evidence.end(), w) == reason->evidence.end())
        reason->evidence.push_back(w);
    }
  }
  if (scopes.empty()) return;
  std::stable_sort(scopes.begin(), scopes.end(), [](const Scope& a, const Scope& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.first < b.first;
  });
  for (auto& s : scopes)
    std::stable_sort(s.reasons.begin(), s.reasons.end(), [&](const Reason& a, const Reason& b) {
      return rank(a.category) < rank(b.category);
    });
  auto evidence = [](const Reason& r) {
    const size_t kShown = 5;
    std::vector<std::string> v(r.evidence.begin(),
                               r.evidence.begin() + std::min(kShown, r.evidence.size()));
    std::string s = join(v);
    if (r.evidence.size() > kShown)
      s += ", " + std::to_string(r.evidence.size() - kShown) + " more";
    return s;
  };
  const bool html = format == "html";
  const std::string intro =
      "What TensorRT did not do, one entry per ONNX scope: the fallbacks TensorRT reported first, "
      "then what the evidence shows.";
  if (html)
    os << "<section id=\"missed\"><h2>Missed optimisations</h2>\n<p>" << escape_html(intro)
       << "</p>\n<ul class=\"missed\">\n";
  else
    os << "### Missed optimisations\n\n" << intro << "\n\n";
  size_t n = 0;
  for (const Scope& s : scopes) {
    if (n++ == limit) break;
    std::string name = s.name.empty() ? std::string("(no ONNX node)") : s.name;
    if (html)
      os << "<li><b>" << escape_html(name) << "</b><ul>";
    else
      os << "- **" << escape_markdown(name) << "**\n";
    for (const Reason& r : s.reasons) {
      std::string more = r.count > 1 ? " (" + std::to_string(r.count) + " times)" : "";
      if (html)
        os << "<li>[" << escape_html(r.category) << "] " << escape_html(r.text) << escape_html(more)
           << " <small>" << escape_html(evidence(r)) << "</small></li>";
      else
        os << "  - [" << escape_markdown(r.category) << "] " << escape_markdown(r.text) << more
           << (r.evidence.empty() ? "" : " (" + escape_markdown(evidence(r)) + ")") << "\n";
    }
    os << (html ? "</ul></li>\n" : "");
  }
  if (scopes.size() > limit)
    os << (html ? "<li>" : "- ") << scopes.size() - limit
       << " more scopes (trtlens explain --kind missed lists them)" << (html ? "</li>\n" : "\n");
  os << (html ? "</ul></section>\n" : "\n");
}

}  // namespace trtlens
