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
  // The builds a command shows, by id (empty: every build). Memory, counts and findings are
  // worked out for these and the final build only, the costly half of a build's analysis that
  // a log of several builds otherwise paid for each; with tuner iterations, which compare their
  // builds, every build is analysed.
  std::vector<int> shown_builds;
};

// Which builds get the per-build analyses (memory, counts, findings): every one, or those of
// `options.shown_builds` and the final build.
std::vector<bool> builds_to_analyse(const Capture& capture, const AnalysisOptions& options);

void analyze(Capture& capture, const AnalysisOptions& options);

}  // namespace trtlens
