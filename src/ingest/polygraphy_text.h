// `polygraphy inspect model engine.trt [--show layers attrs]` text: the engine summary
// Polygraphy prints from TensorRT's engine inspector (I/O tensors, device memory, profile shapes,
// per-layer tensors, formats and tactics).
#pragma once

#include <string>
#include <string_view>

#include "io/input.h"
#include "model/assembler.h"

namespace trtlens {

// True when the first block of an input holds Polygraphy's engine banner.
bool looks_like_polygraphy_text(std::string_view head);

// Reads the engine summary into a build. Throws InputError when the banner is missing.
// Returns the number of lines read.
uint64_t ingest_polygraphy_text(LineReader& lines, Assembler& out, const std::string& path);

}  // namespace trtlens
