// Memory views: the per-layer table, the engine-level figures, and their JSON.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>

#include "io/units.h"
#include "model/capture.h"
#include "render/text_table.h"

namespace trtlens {

// A layer's footprint (inputs + weights + outputs): exact, "≥ X" (">=X" unformatted) when only
// a lower bound is known, "?" / "" when nothing is.
std::string footprint_cell(const LayerMemory& m, bool human);

// Columns a memory table can be sorted by (descending; "order" = engine order).
const std::vector<std::string>& memory_sort_keys();

// `human`: sizes in B/KiB/MiB (terminal, Markdown) or exact bytes (CSV). top = 0: all rows.
TextTable memory_table(const Build& b, const std::string& sort, size_t top, bool human);
// Totals, TensorRT's figures and the liveness estimate, as indented text lines.
void write_memory_figures(const Build& b, std::ostream& os);
// The short form `summary` prints.
void write_memory_summary(const Build& b, std::ostream& os);

nlohmann::ordered_json layer_memory_json(const LayerMemory& m);
nlohmann::ordered_json build_memory_json(const Build& b);

}  // namespace trtlens
