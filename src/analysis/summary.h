// Per-build counts that the summary shows: layer types, output precisions, reformats.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/capture.h"

namespace trtlens {

// A reformat that runs (Layer::role, set by classify_layers).
bool is_reformat(const Layer& layer);

// The precision a layer produces: its first output's dtype ("" when unknown).
std::string output_precision(const Layer& layer);

struct BuildSummary {
  size_t layers = 0;
  size_t reformats = 0;
  std::vector<std::pair<std::string, size_t>> types;       // most frequent first
  std::vector<std::pair<std::string, size_t>> precisions;  // most frequent first
  std::vector<const Tensor*> inputs;   // graph inputs (first consumer's view of the tensor)
  std::vector<const Tensor*> outputs;  // graph outputs (producer's view)
};

BuildSummary summarize(const Build& build);

}  // namespace trtlens
