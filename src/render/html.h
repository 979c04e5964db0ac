// One self-contained HTML report (inline SVG, CSS and a little plain JavaScript; nothing is
// fetched): summary, findings, layers, memory, time, ONNX provenance, environment and the graph.
// Each section appears only when the capture holds its data.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "analysis/report.h"
#include "model/capture.h"
#include "render/dot.h"

namespace trtlens {

struct ReportOptions {
  std::string title = "trtlens report";
  size_t max_rows = 2000;          // per table; the rest is left out and counted
  size_t graph_max_nodes = 6000;   // above: no inline graph (said in the report)
  bool graph = true;               // false: skip Graphviz entirely
  DotOptions dot;                  // colouring/budget of the inline graph
  std::vector<std::string> notes;  // filled by the writer: what was left out or budgeted
};

// `figures`: analysis/report's figures of this build (headline, charts, report card).
void write_html_report(const Capture& capture, const Build& build, const ReportFigures& figures,
                       ReportOptions& options, std::ostream& os);
// Inputs with runs but no layer listing (a build that failed): status, stage, errors, findings.
void write_html_runs_report(const Capture& capture, ReportOptions& options, std::ostream& os);

// One line of a diff page. The diff work decides the rows; this only prints them.
struct DiffRow {
  std::string kind;     // e.g. "added", "removed", "changed", "tactic", "precision", "time"
  std::string layer_a;  // name in the first capture ("" when added)
  std::string layer_b;  // name in the second capture ("" when removed)
  std::string detail;   // what changed, one line
  std::string before;   // value in A ("" when not applicable)
  std::string after;    // value in B
};

// What a diff page shows above its change list, already worded by the diff renderer.
struct DiffHeadline {
  std::vector<std::pair<std::string, std::string>> figures;  // label, "base -> head (delta)"
  std::vector<std::pair<std::string, bool>> gates;           // message, breached
  std::vector<std::string> transitions;                      // "FP32 -> FP16: 12 layers"
};

// A diff page: both captures' summaries, the change list (sortable, filterable) and both graphs
// coloured by diff status (layer_a/layer_b of each row: "removed"/"added" kinds keep their colour,
// every other kind marks the layer "changed"). `label_a` / `label_b` name the two sides.
void write_html_diff(const Capture& a, const Build& build_a, const Capture& b, const Build& build_b,
                     const std::vector<DiffRow>& rows, ReportOptions& options, std::ostream& os,
                     const std::string& label_a = "A", const std::string& label_b = "B",
                     const DiffHeadline* headline = nullptr);

}  // namespace trtlens
