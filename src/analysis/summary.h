// Per-build counts that the summary views show: layer types, output precisions, graph I/O.
#pragma once

#include <string>
#include <vector>

#include "model/capture.h"

namespace trtlens {

// A reformat that runs (Layer::role, set by classify_layers).
bool is_reformat(const Layer& layer);

// The precision a layer produces: its first output's dtype ("" when unknown).
std::string output_precision(const Layer& layer);

// Counts of one build; analyze() stores them in Build::counts (on up to `threads` threads, 0: one
// per core; with `only`, of the builds it marks).
BuildCounts summarize(const Build& build);
void summarize_builds(Capture& capture, unsigned threads = 0, const std::vector<bool>& only = {});

}  // namespace trtlens
