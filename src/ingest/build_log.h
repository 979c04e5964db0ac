// Text logs: trtexec --verbose build logs, runtime logs, application logger output.
#pragma once

#include <cstdint>
#include <string>

#include "ingest/grammar.h"
#include "io/input.h"
#include "model/assembler.h"

namespace trtlens {

struct LogStats {
  uint64_t lines = 0;
  uint64_t recognized = 0;  // lines with a TensorRT log prefix or a recognised message
};

// Reads the whole of `in` (see ReadLimits for the block size and threads).
LogStats ingest_build_log(InputStream& in, const Grammar& grammar, Assembler& out,
                          const std::string& path, const ReadLimits& limits = {});

}  // namespace trtlens
