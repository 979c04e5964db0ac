#include "analysis/summary.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>

#include "model/parallel.h"

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
  return layer.outputs.empty() ? std::string() : layer.outputs.front().dtype.str();
}

BuildCounts summarize(const Build& build) {
  BuildCounts s;
  std::map<std::string, size_t> types, precisions;
  std::unordered_map<std::string_view, const Tensor*> consumed, produced;
  for (const auto& l : build.layers) {
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
  // One entry per graph input / output, in the graph's order; a name no layer lists stays a
  // bare name.
  auto view = [](const std::unordered_map<std::string_view, const Tensor*>& seen,
                 const std::string& name) {
    if (auto it = seen.find(name); it != seen.end()) return *it->second;
    Tensor t;
    t.name = name;
    return t;
  };
  for (const auto& name : build.graph.inputs) s.inputs.push_back(view(consumed, name));
  for (const auto& name : build.graph.outputs) s.outputs.push_back(view(produced, name));
  return s;
}

void summarize_builds(Capture& c, unsigned threads, const std::vector<bool>& only) {
  parallel_for(c.builds.size(), threads, [&](size_t i) {
    if (only.empty() || only[i]) c.builds[i].counts = summarize(c.builds[i]);
  });
}

}  // namespace trtlens
