#include "render/explain.h"

#include <algorithm>
#include <cstdio>

#include "render/escape.h"
#include "render/runs.h"

namespace trtlens {
namespace {

using ojson = nlohmann::ordered_json;

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

std::string where(const SourceLoc& s) { return s.path + ":" + std::to_string(s.line); }

std::string evidence_text(const Remark& r) {
  std::vector<std::string> v;
  for (const auto& e : r.evidence) v.push_back(where(e));
  return join(v);
}

std::string ms(std::optional<double> v) {
  if (!v) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", *v);
  return buf;
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
    if (r.time_ms) reason += "; " + ms(r.time_ms) + " ms";
    if (r.bytes) reason += "; " + std::to_string(*r.bytes) + " bytes";
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
  t.headers = {"run", "iter", "route", "gpu ms", "accuracy", "status", "evidence"};
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
      t.rows.push_back({run.path, std::to_string(it.iter), it.route, ms(it.gpu_time_ms), join(acc),
                        status, where(it.source)});
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
                          size_t limit) {
  std::vector<const Remark*> missed;
  for (const auto& r : c.remarks)
    if (r.kind == "missed" && r.repeats > 0) missed.push_back(&r);
  const bool html = format == "html";
  os << (html ? "<h2>Missed</h2>\n" : "## Missed\n\n");
  if (missed.empty()) {
    os << (html ? "<p>No missed optimisation recorded in the inputs.</p>\n"
                : "No missed optimisation recorded in the inputs.\n");
    return;
  }
  if (html) os << "<ul>\n";
  size_t n = 0;
  for (const Remark* r : missed) {
    if (n++ == limit) break;
    std::string more = r->repeats > 1 ? " (" + std::to_string(r->repeats) + " times)" : "";
    if (html)
      os << "<li><b>" << escape_html(r->scope) << "</b> [" << escape_html(r->category) << "] "
         << escape_html(r->reason) << escape_html(more) << " <small>"
         << escape_html(evidence_text(*r)) << "</small></li>\n";
    else
      os << "- **" << escape_markdown(r->scope) << "** [" << r->category << "] "
         << escape_markdown(r->reason) << more << " (" << escape_markdown(evidence_text(*r))
         << ")\n";
  }
  if (missed.size() > limit)
    os << (html ? "<li>" : "- ") << missed.size() - limit << " more (trtlens explain --kind missed)"
       << (html ? "</li>\n" : "\n");
  if (html) os << "</ul>\n";
}

}  // namespace trtlens
