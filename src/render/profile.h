// What `trtlens profile` prints, and the time parts of `json` and `summary`.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "model/capture.h"
#include "render/text_table.h"

namespace trtlens {

TextTable profile_layers_table(const Build& b);  // joined layers, engine order
TextTable time_groups_table(const std::vector<TimeGroup>& g, const std::string& key_header);
TextTable top_layers_table(const Build& b, const std::vector<size_t>& top);
TextTable perf_table(const RunInfo& r);       // metric x stat
TextTable trace_table(const TimingTrace& t);  // latency / compute stats

// The full report of `profile --format table|md` (csv gets the per-layer table only).
void write_profile_report(const Capture& c, const std::vector<const Build*>& builds,
                          const std::vector<std::vector<size_t>>& tops, const std::string& format,
                          std::ostream& os);

// Time lines of `summary` for one build, and the runs of a capture.
void write_time_summary(const Build& b, std::ostream& os);
void write_runs_summary(const Capture& c, std::ostream& os);

nlohmann::ordered_json layer_time_json(const LayerTime& t);
nlohmann::ordered_json build_profile_json(const BuildProfile& p);
nlohmann::ordered_json run_json(const RunInfo& r);

}  // namespace trtlens
