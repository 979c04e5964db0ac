#include "analysis/analyze.h"

#include "analysis/findings.h"

namespace trtlens {

void analyze(Capture& capture, const AnalysisOptions& options) {
  (void)options;
  // 1. provenance: layer -> ONNX nodes (issue 5)

  // 2. time: profile rows joined to layers (issue 4)

  // 3. memory: tensor bytes, TensorRT's figures, liveness (issue 3)

  // 4. findings, last: they read everything above (issue 8)
  capture.findings = run_findings(capture, options.ignore_findings);

  (void)capture;
}

}  // namespace trtlens
