// Findings as terminal text, Markdown and JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "model/capture.h"

namespace trtlens {

// Findings of the selected builds plus those about the whole capture (build -1).
std::vector<const Finding*> findings_for(const Capture& capture,
                                         const std::vector<const Build*>& builds);

nlohmann::ordered_json finding_json(const Finding& f);
nlohmann::ordered_json findings_json(const std::vector<const Finding*>& findings);

// One block per finding: severity, id, message, layers, ONNX nodes, evidence, hint.
void write_findings_text(const std::vector<const Finding*>& findings, std::ostream& os);
void write_findings_markdown(const std::vector<const Finding*>& findings, std::ostream& os);
// Counts and one line per finding (for `summary`).
void write_findings_brief(const std::vector<const Finding*>& findings, std::ostream& os,
                          size_t limit = 20);

}  // namespace trtlens
