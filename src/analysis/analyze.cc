#include "analysis/analyze.h"

#include <algorithm>

#include "analysis/classify.h"
#include "analysis/findings.h"
#include "analysis/memory.h"
#include "analysis/provenance.h"
#include "analysis/remarks.h"
#include "analysis/runs.h"
#include "analysis/summary.h"
#include "analysis/time.h"

namespace trtlens {

std::vector<bool> builds_to_analyse(const Capture& c, const AnalysisOptions& options) {
  const auto& shown = options.shown_builds;
  const bool all = shown.empty() || !c.tuning.empty();
  std::vector<bool> wanted(c.builds.size());
  for (size_t i = 0; i < c.builds.size(); ++i) {
    const Build& b = c.builds[i];
    wanted[i] = all || b.final || std::find(shown.begin(), shown.end(), b.id) != shown.end();
  }
  return wanted;
}

void analyze(Capture& capture, const AnalysisOptions& options) {
  const std::vector<bool> wanted = builds_to_analyse(capture, options);
  // Profile rows joined to layers, trace statistics, the run's latency.
  analyze_time(capture);

  // Roles read the joined profile (a layer reported at 0 ms is elided); everything below
  // reads the roles.
  classify_layers(capture);
  for (Build& b : capture.builds) group_times(b);

  // Layer -> ONNX nodes (the memory figures below read the nodes' initializers).
  compute_provenance(capture);

  // Tensor bytes, TensorRT's figures, liveness.
  analyze_memory(capture, options.shapes, options.threads, wanted);

  compute_totals(capture);
  summarize_builds(capture, options.threads, wanted);
  capture.onnx.counts = provenance_counts(capture);

  // Runs: status, error groups, nodes named by errors linked to ONNX nodes and layers.
  analyze_runs(capture);
  if (!options.lint) return;

  // Remarks read roles, provenance, time and memory.
  compute_remarks(capture);

  // The build tuner: the best route's build against the default route's (the diff reads
  // everything above).
  compare_tuner_routes(capture);

  // Findings, last: they read everything above.
  capture.findings = run_findings(capture, options.ignore_findings, options.threads, wanted);
}

}  // namespace trtlens
