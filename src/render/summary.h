// `summary` as JSON and Markdown (the terminal text is write_summary in views.h).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "model/capture.h"

namespace trtlens {

// The selected builds, with the counts and totals the analysis stored on them.
nlohmann::ordered_json summary_json(const Capture& capture, const std::vector<const Build*>& builds);
void write_summary_markdown(const Capture& capture, const std::vector<const Build*>& builds,
                            std::ostream& os);

}  // namespace trtlens
