#include "analysis/compare.h"

namespace trtlens {

CompareResult compare_builds(const std::vector<const Capture*>& captures,
                             const std::vector<const Build*>& builds) {
  CompareResult out;
  out.builds = builds;
  const size_t n = builds.size();
  for (size_t k = 0; k < n; ++k) out.sides.push_back(diff_side(*captures[k], *builds[k]));
  if (n == 0) return out;
  const size_t nb = builds[0]->layers.size();
  // Row of each reference layer, and the rows of layers only in a later build, slotted after
  // the reference layer before them.
  std::vector<CompareRow> main(nb);
  std::vector<std::vector<CompareRow>> extra(nb + 1);
  auto blank = [n] {
    CompareRow r;
    r.cells.resize(n);
    return r;
  };
  for (size_t b = 0; b < nb; ++b) {
    main[b] = blank();
    main[b].cells[0].layer = int(b);
    main[b].cells[0].confidence = 1;
  }
  for (size_t k = 1; k < n; ++k) {
    Alignment a = align_layers(*builds[0], *builds[k]);
    int last = -1;
    for (const auto& p : a.pairs) {
      if (p.base >= 0) {
        last = p.base;
        if (p.head >= 0) main[size_t(p.base)].cells[k] = {p.head, p.by, p.confidence};
      } else {
        CompareRow r = blank();
        r.cells[k] = {p.head, p.by, 0};
        extra[size_t(last + 1)].push_back(std::move(r));
      }
    }
  }
  for (size_t b = 0; b <= nb; ++b) {
    for (auto& r : extra[b]) out.rows.push_back(std::move(r));
    if (b < nb) out.rows.push_back(std::move(main[b]));
  }
  return out;
}

}  // namespace trtlens
