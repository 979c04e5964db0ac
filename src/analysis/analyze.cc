#include "analysis/analyze.h"
#include "analysis/memory.h"  // memory (issue 3)

#include "analysis/provenance.h"
#include "analysis/runs.h"
#include "analysis/time.h"  // issue 4

#include "analysis/findings.h"

namespace trtlens {

void analyze(Capture& capture, const AnalysisOptions& options) {
  (void)options;
  // 1. provenance: layer -> ONNX nodes (issue 5)
  compute_provenance(capture);

  // 2. time: profile rows joined to layers (issue 4)
  analyze_time(capture);

  // 3. memory: tensor bytes, TensorRT's figures, liveness (issue 3)
  analyze_memory(capture, options.shapes);

  // Runs: status, error groups, nodes named by errors linked to ONNX nodes and layers.
  analyze_runs(capture);

  // 4. findings, last: they read everything above (issue 8)
  capture.findings = run_findings(capture, options.ignore_findings);

  (void)capture;
}

}  // namespace trtlens
