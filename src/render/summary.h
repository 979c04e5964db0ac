// `summary` as JSON and Markdown (the terminal text is write_summary in views.h).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "analysis/summary.h"
#include "model/capture.h"

namespace trtlens {

// A selected build with the counts the analysis made of it.
struct SummaryView {
  const Build* build = nullptr;
  BuildSummary counts;
};

nlohmann::ordered_json summary_json(const Capture& capture, const std::vector<SummaryView>& views);
void write_summary_markdown(const Capture& capture, const std::vector<SummaryView>& views,
                            std::ostream& os);

}  // namespace trtlens
