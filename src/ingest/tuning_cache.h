// trtexec --tuningCacheFile (TensorRT 11.1+): JSON Lines, a header object (tuner_version,
// accuracy_algorithm, accuracy_parameter, searching_algorithm, command_line,
// default_build_route, ...) then one object per iteration (iter, build_route, crash,
// error_message, accuracy_loss {tensor: value} or null, gpu_time ms or null).
#pragma once

#include <string>
#include <string_view>

#include "io/input.h"
#include "model/assembler.h"

namespace trtlens {

bool looks_like_tuning_cache(std::string_view body);

// One line at a time; a line that is not a JSON object is counted and reported. Throws
// InputError when no line could be read. Returns the number of lines.
uint64_t ingest_tuning_cache(LineReader& lines, Assembler& out, const std::string& path);

}  // namespace trtlens
