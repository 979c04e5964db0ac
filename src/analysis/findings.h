// Findings: the checks an expert runs on a slow or surprising build. Each rule reads
// the model (layers, tensors, attributes, profile, run options) and adds Finding records.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/capture.h"

namespace trtlens {

struct FindingRule {
  const char* id;
  const char* family;   // reformat, precision, quantization, kernels, time, sanity
  const char* summary;  // one line, for README and --help
};

// Every finding id trtlens can emit, in report order.
const std::vector<FindingRule>& finding_rules();
bool is_finding_id(std::string_view id);

// "info" | "warning" | "error" -> Severity.
std::optional<Severity> parse_severity(std::string_view text);

// Runs every rule over every build; the result is ordered by build, then severity (worst
// first), then rule order. Ids listed in `ignore` (exact, or a prefix ending in '*') are dropped.
// Builds are checked on up to `threads` threads (0: one per core); with `only`, those it marks.
std::vector<Finding> run_findings(const Capture& capture, const std::vector<std::string>& ignore,
                                  unsigned threads = 0, const std::vector<bool>& only = {});

}  // namespace trtlens
