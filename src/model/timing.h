// Time: per-layer profile rows, engine profiles, timing traces and runtime summaries.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace trtlens {

struct LayerTime {};

struct BuildProfile {};

struct RuntimeInfo {};

}  // namespace trtlens
