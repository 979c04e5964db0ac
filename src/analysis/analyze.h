// Runs every analysis over a loaded capture, in dependency order. Analyses read the model
// and add their results to it; they never parse text.
#pragma once

#include <string>
#include <vector>

#include "model/capture.h"

namespace trtlens {

struct AnalysisOptions {
  // memory: --shape name=1x3x224x224
  std::vector<std::string> shapes;
  // provenance: --onnx FILE, read as one more input
  std::vector<std::string> onnx_models;


  // findings: ids to drop (exact, or a prefix ending in '*')
  std::vector<std::string> ignore_findings;
  // Remarks, the tuner comparison and findings: false for a command that prints none of them
  // (diff's text, JSON and CSV views), which then costs less per layer.
  bool lint = true;
  // Builds analysed at once (0: one per core): a capture's builds are independent here.
  unsigned threads = 0;
};

void analyze(Capture& capture, const AnalysisOptions& options);

}  // namespace trtlens
