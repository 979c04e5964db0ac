// Runs: how each one ended, its error and warning records grouped, and the nodes they name
// linked to the ONNX model and to engine layers.
#pragma once

#include <string>

#include "model/capture.h"

namespace trtlens {

// Fills RunInfo::status, status_reason, groups and every record's onnx_node / layers.
// Status, first rule that applies: the trailer (&&&& PASSED / FAILED); a stop line (time limit:
// timed-out; assertion, signal, uncaught exception: crashed); a started run whose file ends
// mid-line: cut; error lines without a trailer: failed; a started run (an &&&& RUNNING banner)
// whose log stops inside a build stage: crashed, else running; otherwise unknown.
void analyze_runs(Capture& capture);

// The build tuner's "what did it change": for each tuning run, the build of the default route
// (the cache header's default_build_route, else an iteration whose route is named "default")
// and the build of the best route, and the diff of the two (TuningRun::best_vs_default).
// Routes compare as sets of their flags, so "-a=on -b=off" equals "-b=off -a=on". The diff
// points into capture.builds: run this on the capture that is rendered (a copy would point into
// the original's builds).
void compare_tuner_routes(Capture& capture);

// A record's message with the node it names and numbers replaced, so that records of one kind
// group together: "Could not find any implementation for node <node>."
std::string record_pattern(const LogRecord& record);

}  // namespace trtlens
