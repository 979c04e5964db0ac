// --exportTimes JSON (exportJSONTrace): one object per timed query, key sets of TRT 7.0, 7.2,
// 8.0-8.2 and 8.4+. Streamed record by record; a truncated file keeps its whole records.
#pragma once

#include <string>

#include "io/input.h"
#include "model/assembler.h"

namespace trtlens {

// Throws InputError when no record could be read.
void ingest_times_json(LineReader& lines, Assembler& out, const std::string& path);

}  // namespace trtlens
