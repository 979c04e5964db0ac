#include "analysis/liveness.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/classify.h"

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
  // Keyed by views of the layers' tensor names, which outlive this function: with trees of
  // string copies the estimate took twice as long on an engine of 8,000 layers.
  std::unordered_map<std::string_view, Life> lives;
  std::vector<std::string_view> order;  // first appearance, for stable output
  // An elided layer's outputs alias its input (no memory of their own): their uses extend the
  // life of the tensor they alias. Constants, shape calls and stream events hold no activations.
  std::unordered_map<std::string_view, std::string_view> alias_of;
  std::unordered_set<std::string_view> graph_io(b.graph.inputs.begin(), b.graph.inputs.end());
  graph_io.insert(b.graph.outputs.begin(), b.graph.outputs.end());
  auto root = [&](std::string_view name) {
    auto it = alias_of.find(name);
    return it == alias_of.end() ? name : it->second;
  };
  std::unordered_set<std::string_view> not_activations;
  auto touch = [&](const Tensor& t0, int i, bool output) {
    if (not_activations.count(t0.name)) return;
    const std::string_view name = root(t0.name);
    const bool alias = name != t0.name;
    if (alias) output = false;  // a use of the aliased tensor
    auto [it, added] = lives.try_emplace(name);
    if (added) order.push_back(name);
    Life& l = it->second;
    if (alias && graph_io.count(t0.name)) graph_io.insert(name);
    if (!l.sized && !alias) {
      l.bytes = size_of(t0);
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
    const Layer& layer = b.layers[size_t(i)];
    for (const auto& t : layer.inputs) touch(t, i, false);
    if (moves_no_activations(layer)) {
      for (const auto& t : layer.outputs) not_activations.insert(t.name);
      continue;
    }
    if (layer.role == LayerRole::Elided && !layer.inputs.empty() &&
        !not_activations.count(layer.inputs.front().name)) {
      const std::string_view source = root(layer.inputs.front().name);
      for (const auto& t : layer.outputs) alias_of[t.name] = source;
    }
    for (const auto& t : layer.outputs) touch(t, i, true);
  }
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
    if (l.bytes && l.first <= best_at && best_at <= l.last) m.peak_tensors.emplace_back(name);
  }
}

}  // namespace trtlens
