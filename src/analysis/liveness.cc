#include "analysis/liveness.h"

#include <map>
#include <set>
#include <string>

namespace trtlens {

void estimate_liveness(Build& b, const TensorSize& size_of) {
  BuildMemory& m = b.memory;
  m.peak_live_bytes.reset();
  m.peak_layer = -1;
  m.peak_tensors.clear();
  m.liveness_unknown_tensors = 0;
  m.liveness_refused.clear();
  const int n = int(b.layers.size());
  if (n == 0 || b.names_only) return;
  // Lifetimes over engine order mean nothing when the order is not one an engine can run in.
  if (!b.graph.problems.empty()) {
    m.liveness_refused =
        "the engine graph is inconsistent (" + describe(b.graph.problems.front(), b.layers) + ")";
    return;
  }

  struct Life {
    int first = -1, last = -1;
    bool produced = false, consumed = false;
    std::optional<uint64_t> bytes;
    bool sized = false;
  };
  std::map<std::string, Life> lives;
  std::vector<std::string> order;  // first appearance, for stable output
  auto touch = [&](const Tensor& t, int i, bool output) {
    auto [it, added] = lives.try_emplace(t.name);
    if (added) order.push_back(t.name);
    Life& l = it->second;
    if (!l.sized) {
      l.bytes = size_of(t);
      l.sized = l.bytes.has_value();
    }
    if (output) {
      if (!l.produced) l.first = i;
      l.produced = true;
    } else {
      l.consumed = true;
    }
    if (l.first < 0) l.first = i;
    l.last = std::max(l.last, i);
  };
  for (int i = 0; i < n; ++i) {
    for (const auto& t : b.layers[size_t(i)].inputs) touch(t, i, false);
    for (const auto& t : b.layers[size_t(i)].outputs) touch(t, i, true);
  }
  std::set<std::string> graph_io(b.graph.inputs.begin(), b.graph.inputs.end());
  graph_io.insert(b.graph.outputs.begin(), b.graph.outputs.end());
  for (auto& [name, l] : lives) {
    // Never produced = a network input; never consumed = a network output.
    if (!l.produced || !l.consumed || graph_io.count(name)) {
      l.first = 0;
      l.last = n - 1;
    }
    if (!l.bytes) ++m.liveness_unknown_tensors;
  }
  // Sweep: add at first, remove after last.
  std::vector<int64_t> delta(size_t(n) + 1, 0);
  for (const auto& [name, l] : lives) {
    if (!l.bytes) continue;
    delta[size_t(l.first)] += int64_t(*l.bytes);
    delta[size_t(l.last) + 1] -= int64_t(*l.bytes);
  }
  if (size_t(m.liveness_unknown_tensors) == lives.size()) return;  // nothing to estimate from
  int64_t live = 0, best = -1;
  int best_at = -1;
  for (int i = 0; i < n; ++i) {
    live += delta[size_t(i)];
    if (live > best) {
      best = live;
      best_at = i;
    }
  }
  m.peak_live_bytes = uint64_t(best);
  m.peak_layer = best_at;
  for (const auto& name : order) {
    const Life& l = lives[name];
    if (l.bytes && l.first <= best_at && best_at <= l.last) m.peak_tensors.push_back(name);
  }
}

}  // namespace trtlens
