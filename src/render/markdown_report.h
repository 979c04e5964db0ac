// GitHub-flavoured Markdown for pasting into a ticket: summary table, top layers by time and
// memory, findings, environment; long tables folded in <details>.
#pragma once

#include <ostream>

#include "analysis/report.h"
#include "model/capture.h"

namespace trtlens {

struct MarkdownReportOptions {
  size_t top = 10;        // rows of the "top layers" tables
  size_t max_rows = 500;  // rows of the folded full layer table
};

void write_markdown_report(const Capture& capture, const Build& build, const ReportFigures& figures,
                           const MarkdownReportOptions& options, std::ostream& os);
// Inputs with runs but no layer listing: the runs' status, stage, errors and findings.
void write_markdown_runs_report(const Capture& capture, std::ostream& os);

}  // namespace trtlens
