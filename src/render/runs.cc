#include "render/runs.h"

#include "render/diff.h"
#include "render/escape.h"

namespace trtlens {

using ojson = nlohmann::ordered_json;

namespace {

const char* severity_word(char s) { return s == 'W' ? "warning" : "error"; }

std::string join(const std::vector<std::string>& v, const std::string& sep, size_t limit) {
  std::string out;
  for (size_t i = 0; i < v.size() && i < limit; ++i) out += (i ? sep : "") + v[i];
  if (v.size() > limit) out += sep + "... " + std::to_string(v.size() - limit) + " more";
  return out;
}

ojson opt_string(const std::string& s) { return s.empty() ? ojson(nullptr) : ojson(s); }

}  // namespace

std::string run_status_text(const RunInfo& r) {
  std::string s = to_string(r.status);
  if (!r.status_reason.empty()) s += " (" + r.status_reason + ")";
  return s;
}

std::string run_phase_text(const RunInfo& r) {
  if (r.last_phase.phase == RunPhase::None) return "";
  return std::string(to_string(r.last_phase.phase)) + " at line " +
         std::to_string(r.last_phase.line) + ": " + r.last_phase.text;
}

std::string run_tactic_text(const RunInfo& r) {
  if (!r.tactic) return "";
  const TacticAttempt& t = *r.tactic;
  std::string s = "node " + t.node;
  if (!t.runner.empty()) s += " (" + t.runner + ")";
  if (!t.formats.empty()) s += ", formats " + t.formats;
  const uint64_t tried = t.tried;
  s += ", " + std::to_string(tried) + " tactic" + (tried == 1 ? "" : "s") + " tried";
  if (!t.tactics.empty()) {
    s += ": " + join(t.tactics, ", ", 8);
    // join() counts what is left of the list; past the kept ones the rest are only counted
    if (tried > t.tactics.size()) s += " (" + std::to_string(t.tactics.size()) + " kept)";
  }
  return s;
}

std::string record_group_text(const RecordGroup& g) {
  std::string s = severity_word(g.severity);
  if (g.code) s += " code " + std::to_string(*g.code);
  if (!g.category.empty()) s += " " + g.category;
  s += ", " + std::to_string(g.count) + "x, first at line " + std::to_string(g.first_line) + ": " +
       g.pattern;
  return s;
}

std::vector<std::string> record_group_nodes(const RunInfo& r, const RecordGroup& g) {
  std::vector<std::string> out;
  for (const auto& node : g.nodes) {
    const LogRecord* rec = nullptr;
    for (const auto& x : r.records)
      if (x.node == node && (x.onnx_node.size() || x.layers.size())) {
        rec = &x;
        break;
      }
    std::string s = node;
    if (!rec) {
      s += " (no ONNX node or engine layer of that name)";
    } else {
      s += " (";
      s += rec->onnx_node.empty() ? "no ONNX node" : "ONNX node " + rec->onnx_node;
      s += rec->layers.empty() ? "; no engine layer" : "; layers: " + join(rec->layers, ", ", 4);
      s += ")";
    }
    out.push_back(std::move(s));
  }
  return out;
}

bool run_not_passed(const RunInfo& r) {
  return !r.times && r.status != RunStatus::Passed && r.status != RunStatus::Unknown;
}

std::vector<std::pair<std::string, std::string>> run_headline(const Capture& c, size_t groups) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& r : c.runs) {
    if (r.times) continue;
    out.emplace_back("run", r.path + ":" + std::to_string(r.line) + " " + run_status_text(r));
    if (r.status == RunStatus::Passed && r.records.empty()) continue;
    if (std::string p = run_phase_text(r); !p.empty()) out.emplace_back("last stage", p);
    if (r.status != RunStatus::Passed && r.last_phase.phase == RunPhase::TacticSelection)
      if (std::string t = run_tactic_text(r); !t.empty()) out.emplace_back("timing", t);
    size_t shown = 0;
    for (const auto& g : r.groups) {
      if (shown++ == groups) break;
      std::string v = record_group_text(g);
      for (const auto& n : record_group_nodes(r, g)) v += "; node " + n;
      out.emplace_back(g.severity == 'W' ? "warning" : "error", v);
    }
  }
  return out;
}

void write_run_outcome(const RunInfo& r, std::ostream& os, size_t groups) {
  if (r.times) return;
  os << "  status: " << escape_terminal(run_status_text(r)) << '\n';
  if (r.status != RunStatus::Passed || !r.records.empty()) {
    if (std::string p = run_phase_text(r); !p.empty())
      os << "  last stage: " << escape_terminal(p) << '\n';
    if (r.status != RunStatus::Passed && r.last_phase.phase == RunPhase::TacticSelection)
      if (std::string t = run_tactic_text(r); !t.empty())
        os << "  timing: " << escape_terminal(t) << '\n';
  }
  if (r.stop) os << "  stopped: " << escape_terminal(r.stop->text) << '\n';
  size_t errors = 0, warnings = 0;
  for (const auto& rec : r.records) (rec.severity == 'W' ? warnings : errors)++;
  if (r.records.empty()) return;
  os << "  records: " << errors << " error" << (errors == 1 ? "" : "s") << ", " << warnings
     << " warning" << (warnings == 1 ? "" : "s") << " in " << r.groups.size() << " group"
     << (r.groups.size() == 1 ? "" : "s") << '\n';
  for (size_t i = 0; i < r.groups.size() && i < groups; ++i) {
    os << "    " << escape_terminal(record_group_text(r.groups[i])) << '\n';
    for (const auto& n : record_group_nodes(r, r.groups[i]))
      os << "      node " << escape_terminal(n) << '\n';
  }
  if (r.groups.size() > groups)
    os << "    ... " << r.groups.size() - groups << " more groups (trtlens json lists all)\n";
}

void add_run_outcome_json(const RunInfo& r, ojson& j) {
  if (r.times) return;
  j["status"] = to_string(r.status);
  j["status_reason"] = r.status_reason;
  j["banner"] = opt_string(r.banner);
  j["trt_version_from"] = opt_string(r.trt_version_from);
  j["last_phase"] = r.last_phase.phase == RunPhase::None
                        ? ojson(nullptr)
                        : ojson{{"phase", to_string(r.last_phase.phase)},
                                {"line", r.last_phase.line},
                                {"text", r.last_phase.text}};
  j["tactic_selection"] = r.tactic ? ojson{{"node", r.tactic->node},
                                           {"runner", opt_string(r.tactic->runner)},
                                           {"formats", opt_string(r.tactic->formats)},
                                           {"tactics", r.tactic->tactics},
                                           {"tactics_tried", r.tactic->tried},
                                           {"line", r.tactic->line}}
                                   : ojson(nullptr);
  j["stop"] = r.stop ? ojson{{"kind", r.stop->kind}, {"line", r.stop->line}, {"text", r.stop->text}}
                     : ojson(nullptr);
  j["cut_at_line"] = r.cut_at ? ojson(r.cut_at) : ojson(nullptr);
  j["records"] = ojson::array();
  for (const auto& rec : r.records)
    j["records"].push_back({{"severity", severity_word(rec.severity)},
                            {"code", rec.code ? ojson(*rec.code) : ojson(nullptr)},
                            {"category", opt_string(rec.category)},
                            {"message", rec.message},
                            {"origin", opt_string(rec.origin)},
                            {"line", rec.line},
                            {"node", opt_string(rec.node)},
                            {"onnx_node", opt_string(rec.onnx_node)},
                            {"layers", rec.layers}});
  j["record_groups"] = ojson::array();
  for (const auto& g : r.groups)
    j["record_groups"].push_back({{"severity", severity_word(g.severity)},
                                  {"code", g.code ? ojson(*g.code) : ojson(nullptr)},
                                  {"category", opt_string(g.category)},
                                  {"pattern", g.pattern},
                                  {"count", g.count},
                                  {"first_line", g.first_line},
                                  {"nodes", g.nodes}});
}

}  // namespace trtlens

namespace trtlens {
namespace {

const TunerIteration* iteration_of(const TuningRun& t, int iter) {
  for (const auto& it : t.iterations)
    if (it.iter == iter) return &it;
  return nullptr;
}

ojson comparison_json(const TuningRun& t) {
  const TunerIteration* def = iteration_of(t, t.default_iter);
  ojson j;
  j["run"] = t.path;
  j["default_iter"] = t.default_iter >= 0 ? ojson(t.default_iter) : ojson(nullptr);
  j["default_route"] = def ? ojson(def->route) : ojson(nullptr);
  j["default_build"] = t.default_build >= 0 ? ojson(t.default_build) : ojson(nullptr);
  j["best_iter"] = t.best_iter >= 0 ? ojson(t.best_iter) : ojson(nullptr);
  j["best_route"] = opt_string(t.best_route);
  j["best_build"] = t.best_build >= 0 ? ojson(t.best_build) : ojson(nullptr);
  j["note"] = opt_string(t.comparison_note);
  j["diff"] = t.best_vs_default ? diff_json(*t.best_vs_default, {}) : ojson(nullptr);
  return j;
}

}  // namespace

void write_tuner_comparison(const Capture& c, const std::string& format, std::ostream& os) {
  const bool md = format == "md";
  for (const auto& t : c.tuning) {
    const TunerIteration* def = iteration_of(t, t.default_iter);
    std::string head = "best route";
    if (t.best_iter >= 0) head += " (iteration " + std::to_string(t.best_iter) + ")";
    head += " against the default route";
    if (def) head += " (iteration " + std::to_string(def->iter) + ")";
    if (md) {
      os << "\n## " << escape_markdown(t.path) << ": " << head << "\n\n";
      if (def) os << "- default: " << escape_markdown(def->route) << "\n";
      if (!t.best_route.empty()) os << "- best: " << escape_markdown(t.best_route) << "\n";
      if (!t.comparison_note.empty()) os << "\n" << escape_markdown(t.comparison_note) << "\n";
      if (t.best_vs_default) {
        os << "\n";
        write_diff_markdown(*t.best_vs_default, {}, os);
      }
      continue;
    }
    os << "\n" << escape_terminal(t.path) << ": " << head << "\n";
    if (def) os << "  default: " << escape_terminal(def->route) << "\n";
    if (!t.best_route.empty()) os << "  best:    " << escape_terminal(t.best_route) << "\n";
    if (!t.comparison_note.empty()) os << "  " << escape_terminal(t.comparison_note) << "\n";
    if (t.best_vs_default) write_diff_terminal(*t.best_vs_default, {}, os);
  }
}

ojson tuner_comparison_json(const Capture& c) {
  ojson a = ojson::array();
  for (const auto& t : c.tuning) a.push_back(comparison_json(t));
  return a;
}

ojson tuning_run_json(const Capture&, const TuningRun& t) {
  ojson j;
  j["path"] = t.path;
  j["from"] = t.from;
  j["expanded"] = t.expanded ? ojson(*t.expanded) : ojson(nullptr);
  j["phases"] = ojson::array();
  for (const auto& [phase, n] : t.phases)
    j["phases"].push_back({{"phase", phase}, {"iterations", n}});
  j["default_route"] = opt_string(t.default_route);
  j["best_iter"] = t.best_iter >= 0 ? ojson(t.best_iter) : ojson(nullptr);
  j["best_route"] = opt_string(t.best_route);
  j["best_gpu_ms"] = t.best_gpu_ms ? ojson(*t.best_gpu_ms) : ojson(nullptr);
  j["summary_ok"] = t.summary_ok ? ojson(*t.summary_ok) : ojson(nullptr);
  j["summary_total"] = t.summary_total ? ojson(*t.summary_total) : ojson(nullptr);
  j["header"] = t.header;
  j["iterations"] = ojson::array();
  for (const auto& it : t.iterations) {
    ojson i;
    i["iter"] = it.iter;
    i["route"] = it.route;
    i["status"] = it.crash                     ? "crash"
                  : it.aborted                 ? "aborted"
                  : it.accuracy_failed         ? "accuracy-fail"
                  : it.ended || it.gpu_time_ms ? "ok"
                                               : "started";
    i["crash"] = it.crash;
    i["aborted"] = it.aborted;
    i["error_message"] = opt_string(it.error_message);
    i["gpu_time_ms"] = it.gpu_time_ms ? ojson(*it.gpu_time_ms) : ojson(nullptr);
    i["accuracy_algorithm"] = opt_string(it.accuracy_algorithm);
    i["accuracy_loss"] = ojson::object();
    for (const auto& [tensor, loss] : it.accuracy_loss) i["accuracy_loss"][tensor] = loss;
    i["accuracy_failed"] = it.accuracy_failed;
    i["best"] = it.iter == t.best_iter;
    i["source"] = {{"path", it.source.path}, {"line", it.source.line}};
    j["iterations"].push_back(std::move(i));
  }
  j["best_vs_default"] = comparison_json(t);
  return j;
}

}  // namespace trtlens
