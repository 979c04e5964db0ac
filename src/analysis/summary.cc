#include "analysis/summary.h"

#include <algorithm>
#include <unordered_map>

namespace trtlens {
namespace {

std::vector<std::pair<std::string, size_t>> by_count(const std::map<std::string, size_t>& m) {
  std::vector<std::pair<std::string, size_t>> v(m.begin(), m.end());
  std::stable_sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.second > b.second; });
  return v;
}

}  // namespace

bool is_reformat(const Layer& layer) { return layer.role == LayerRole::Reformat; }

std::string output_precision(const Layer& layer) {
  return layer.outputs.empty() ? std::string() : layer.outputs.front().dtype;
}

BuildSummary summarize(const Build& build) {
  BuildSummary s;
  s.layers = build.layers.size();
  std::map<std::string, size_t> types, precisions;
  std::unordered_map<std::string, const Tensor*> consumed, produced;
  for (const auto& l : build.layers) {
    if (is_reformat(l)) ++s.reformats;
    ++types[l.type.empty() ? "(unknown)" : l.type];
    if (!build.names_only) {
      std::string p = output_precision(l);
      ++precisions[p.empty() ? (l.outputs.empty() ? "(no outputs)" : "(unknown)") : p];
    }
    for (const auto& t : l.inputs) consumed.emplace(t.name, &t);
    for (const auto& t : l.outputs) produced[t.name] = &t;
  }
  s.types = by_count(types);
  s.precisions = by_count(precisions);
  for (const auto& name : build.graph.inputs)
    if (auto it = consumed.find(name); it != consumed.end()) s.inputs.push_back(it->second);
  for (const auto& name : build.graph.outputs)
    if (auto it = produced.find(name); it != produced.end()) s.outputs.push_back(it->second);
  return s;
}

}  // namespace trtlens
