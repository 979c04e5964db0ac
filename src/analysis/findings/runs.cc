// Runs that did not pass: the first thing a reader of a failed build's log needs to see.
#include <algorithm>

#include "analysis/findings/rules.h"

namespace trtlens::findings {

void run_rules(const Capture& c, std::vector<Finding>& out) {
  for (const auto& r : c.runs) {
    if (r.times || r.status == RunStatus::Passed || r.status == RunStatus::Unknown) continue;
    // A run still going (or one whose log was saved early) is not yet a failure.
    Severity severity = r.status == RunStatus::Running ? Severity::Warning : Severity::Error;
    Finding f;
    f.id = "run-not-passed";
    f.severity = severity;
    f.message = "run at " + r.path + ":" + std::to_string(r.line) + " " + to_string(r.status) +
                " (" + r.status_reason + ")";
    if (r.last_phase.phase != RunPhase::None)
      f.message += "; last stage " + std::string(to_string(r.last_phase.phase)) + " at line " +
                   std::to_string(r.last_phase.line);
    const RecordGroup* first_error = nullptr;
    for (const auto& g : r.groups)
      if (g.severity == 'E') {
        first_error = &g;
        break;
      }
    if (first_error)
      f.message += "; " + std::to_string(first_error->count) + "x " + first_error->pattern;
    for (const auto& rec : r.records) {
      if (rec.severity != 'E') continue;
      if (!rec.onnx_node.empty() &&
          std::find(f.onnx_nodes.begin(), f.onnx_nodes.end(), rec.onnx_node) == f.onnx_nodes.end())
        f.onnx_nodes.push_back(rec.onnx_node);
      for (const auto& l : rec.layers)
        if (std::find(f.layers.begin(), f.layers.end(), l) == f.layers.end()) f.layers.push_back(l);
    }
    f.evidence = {{"path", r.path},
                  {"line", r.line},
                  {"status", to_string(r.status)},
                  {"reason", r.status_reason},
                  {"last_phase", to_string(r.last_phase.phase)},
                  {"last_phase_line", r.last_phase.line},
                  {"errors", std::count_if(r.records.begin(), r.records.end(),
                                           [](const LogRecord& x) { return x.severity == 'E'; })}};
    if (r.tactic && r.last_phase.phase == RunPhase::TacticSelection)
      f.evidence["timing_node"] = r.tactic->node;
    f.hint =
        r.status == RunStatus::Cut || r.status == RunStatus::Running
            ? "The log is incomplete: attach the whole log (trtexec --verbose) through the end."
            : "Read the grouped errors (trtlens summary / json runs[].record_groups) and the "
              "last stage: they name the node TensorRT stopped on.";
    out.push_back(std::move(f));
  }
}

}  // namespace trtlens::findings
