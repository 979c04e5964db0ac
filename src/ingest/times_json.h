// --exportTimes JSON (exportJSONTrace): one object per timed query, key sets of TRT 7.0, 7.2,
// 8.0-8.2 and 8.4+. Streamed record by record in blocks (any layout, any line ends; memory is
// the records, not the file); a truncated file keeps its whole records.
#pragma once

#include <string>

#include "io/input.h"
#include "model/assembler.h"

namespace trtlens {

// Reads the rest of `in`; returns the number of lines. Throws InputError when no record could
// be read.
uint64_t ingest_times_json(InputStream& in, Assembler& out, const std::string& path);

}  // namespace trtlens
