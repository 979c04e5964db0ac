// Output of `trtlens diff`: a terminal summary that fits a screen then details, the
// "trtlens-diff/2" JSON document, a Markdown CI comment and a CSV with numbers and units
// in separate columns. Every format: headline, gate results, then the details.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "analysis/diff.h"
#include "render/html.h"
#include "render/text_table.h"

namespace trtlens {

nlohmann::ordered_json diff_json(const DiffResult& d, const std::vector<GateResult>& gates);
// The same document written to `os` pair by pair (memory: one element's JSON at a time).
void write_diff_json(const DiffResult& d, const std::vector<GateResult>& gates, std::ostream& os);
// One build's figures as diff and compare write them.
nlohmann::ordered_json diff_side_json(const DiffSide& side);
TextTable diff_changes_table(const DiffResult& d);
// section,kind,what,base,head,delta,unit,delta_percent,...: headline rows, gate rows, changes.
TextTable diff_csv_table(const DiffResult& d, const std::vector<GateResult>& gates);
void write_diff_markdown(const DiffResult& d, const std::vector<GateResult>& gates,
                         std::ostream& os, size_t top = 12);
// The change list as rows of the HTML diff page (one row per affected layer pair, so both
// graphs can colour every layer a change touches).
std::vector<DiffRow> diff_html_rows(const DiffResult& d);
// The diff page's headline, gate results and precision transitions.
DiffHeadline diff_html_headline(const DiffResult& d, const std::vector<GateResult>& gates);
// `top` = how many changes the summary lists before the details.
void write_diff_terminal(const DiffResult& d, const std::vector<GateResult>& gates,
                         std::ostream& os, size_t top = 12);

}  // namespace trtlens
