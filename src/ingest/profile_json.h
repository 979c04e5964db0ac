// --exportProfile JSON (Profiler::exportJSONProfile), every version. Read as JSON when it is
// valid JSON (re-saved by any tool); trtexec writes the layer names without JSON escaping and may
// write nan/inf, so such files are read by a tolerant scanner anchored on the fixed
// `", "timeMs" : ` separator.
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

// Reads a whole profile file: as JSON first (any layout, escapes decoded), else, for trtexec's
// unescaped names and nan, line by line with the scanner above. `text` gets padding capacity.
// Throws InputError when no record could be read.
void ingest_profile_json(std::string& text, Assembler& out, const std::string& path);

}  // namespace trtlens
