// More than two builds side by side (TREx's compare_engines as a command): every build is
// aligned to the first, and each row holds one layer per build (or none).
#pragma once

#include <string>
#include <vector>

#include "analysis/align.h"
#include "analysis/diff.h"
#include "model/capture.h"

namespace trtlens {

struct CompareCell {
  int layer = -1;  // index into that build's layers; -1 = no layer of this build on the row
  AlignedBy by = AlignedBy::None;
  double confidence = 0;
};

struct CompareRow {
  std::vector<CompareCell> cells;  // one per build; cells[0] is the reference build's layer
};

struct CompareResult {
  std::vector<const Build*> builds;
  std::vector<DiffSide> sides;   // per-build figures
  std::vector<CompareRow> rows;  // reference order; layers only in build k after their predecessor
};

CompareResult compare_builds(const std::vector<const Capture*>& captures,
                             const std::vector<const Build*>& builds);

}  // namespace trtlens
