// Outputs of the store: query results and trends (table, CSV, JSON, Markdown, SVG, HTML).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "store/store.h"
#include "store/trend.h"

namespace trtlens {

// "table" | "csv" | "json".
void write_query_result(const QueryResult& r, const std::string& format, std::ostream& os);

// "table" | "csv" | "json" | "md" | "svg" | "html".
void write_trend(const Trend& t, const std::vector<TrendGate>& gates, const std::string& format,
                 std::ostream& os);

}  // namespace trtlens
