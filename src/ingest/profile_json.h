// --exportProfile JSON (Profiler::exportJSONProfile), every version. trtexec writes the layer
// names without JSON escaping and may write nan/inf, so the records are read by a tolerant
// scanner anchored on the fixed `", "timeMs" : ` separator rather than by a JSON parser.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/input.h"
#include "model/assembler.h"

namespace trtlens {

// One record line: `, { "name" : "<raw>", "timeMs" : x, "averageMs" : x[, "medianMs" : x],
// "percentage" : x }` (leading `[`/`,` and spaces allowed). nullopt when the line is not a
// record; `problems` gets non-finite numbers and unknown keys of a record that was read.
std::optional<ProfileRow> parse_profile_record(std::string_view line,
                                               std::vector<std::string>& problems);
// `{ "count" : N }` (possibly after `[` or `,`).
std::optional<int64_t> parse_profile_count(std::string_view line);

// Reads a whole profile file. Throws InputError when no record could be read.
void ingest_profile_json(LineReader& lines, Assembler& out, const std::string& path);

}  // namespace trtlens
