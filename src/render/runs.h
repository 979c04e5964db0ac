// How runs ended, what they were doing and their grouped errors and warnings: the words every
// output uses (summary, json, report), so they all say the same thing. Plain text; callers
// escape it for their output.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "model/capture.h"

namespace trtlens {

// "crashed (assertion at line 40, no trailer)"
std::string run_status_text(const RunInfo& r);
// "tactic-selection at line 37: --------------- Timing Runner: conv1 (CaskConvolution)"; ""
// when no stage was seen.
std::string run_phase_text(const RunInfo& r);
// "node conv1 (CaskConvolution), formats Float(...) -> Half(...), 2 tactics tried: 0x1, 0x2"
std::string run_tactic_text(const RunInfo& r);
// "error code 10 Internal Error, 1x, first at line 41: Could not find ... node <node>."
std::string record_group_text(const RecordGroup& g);
// "conv1 (ONNX node conv1; layers: conv1 + relu1)" for each node of the group.
std::vector<std::string> record_group_nodes(const RunInfo& r, const RecordGroup& g);
// A run that ended in a way other than passed (or whose outcome the log does not show).
bool run_not_passed(const RunInfo& r);

// The report's headline rows for the runs of a capture: ("run", "build.log:1 crashed (...)"),
// ("last stage", ...), ("timing", ...), ("error", group and nodes) for up to `groups` groups.
std::vector<std::pair<std::string, std::string>> run_headline(const Capture& c, size_t groups = 5);

// Indented summary lines of a run's status, stage and records (at most `groups` groups).
void write_run_outcome(const RunInfo& r, std::ostream& os, size_t groups = 10);

// runs[] fields: status, reason, stage, tactic selection, stop, records and groups.
void add_run_outcome_json(const RunInfo& r, nlohmann::ordered_json& j);

}  // namespace trtlens

namespace trtlens {

// The build tuner's best route against its default route, for each tuning run: a heading
// naming both routes and builds, then the diff (terminal text or Markdown), or the reason there
// is none.
void write_tuner_comparison(const Capture& c, const std::string& format, std::ostream& os);
// The same as JSON: {run, default_iter, default_route, default_build, best_iter, best_route,
// best_build, note, diff} per tuning run (diff: the `trtlens diff` document, or null).
nlohmann::ordered_json tuner_comparison_json(const Capture& c);
// One tuning run for `trtlens json`: what the log or cache said, its iterations and the
// comparison above.
nlohmann::ordered_json tuning_run_json(const Capture& c, const TuningRun& t);

}  // namespace trtlens
