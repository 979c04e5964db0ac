// Where a fact came from, and how bad a problem is: shared by every part of the model.
#pragma once

#include <cstdint>
#include <string>

#include "model/shared_text.h"

namespace trtlens {

// The path is shared: every layer, record and note of a file names the same one, and a user's
// paths are longer than a string keeps without a heap block of its own.
struct SourceLoc {
  SharedText path;
  uint64_t line = 0;  // 1-based; 0 = whole file
};

enum class Severity { Info, Warning, Error };
const char* to_string(Severity s);

}  // namespace trtlens
