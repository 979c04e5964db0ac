// Where a fact came from, and how bad a problem is: shared by every part of the model.
#pragma once

#include <cstdint>
#include <string>

namespace trtlens {

struct SourceLoc {
  std::string path;
  uint64_t line = 0;  // 1-based; 0 = whole file
};

enum class Severity { Info, Warning, Error };
const char* to_string(Severity s);

}  // namespace trtlens
