// Memory figures: per layer (tensor bytes, TensorRT's persistent/scratch lines) and per build.
// Filled by the memory issue; kept apart so each area owns its own header.
#pragma once

#include <cstdint>
#include <optional>

namespace trtlens {

struct LayerMemory {};

struct BuildMemory {};

}  // namespace trtlens
