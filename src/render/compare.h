// Output of `trtlens compare`: per-build totals, then one row per aligned layer across builds.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "analysis/compare.h"
#include "render/text_table.h"

namespace trtlens {

nlohmann::ordered_json compare_json(const CompareResult& c);
TextTable compare_totals_table(const CompareResult& c);
TextTable compare_rows_table(const CompareResult& c, bool terminal);
// table | csv | md | html
void write_compare(const CompareResult& c, const std::string& format, std::ostream& os);

}  // namespace trtlens
