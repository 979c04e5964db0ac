// Combining the node lists of a model file and of a log's parse section.
#include <map>
#include <set>

#include "model/onnx.h"

namespace trtlens {

void merge_onnx_model(OnnxModel& into, OnnxModel from) {
  std::map<std::string, OnnxNode*> logged;
  for (auto& n : into.nodes) logged.emplace(n.name, &n);
  std::set<std::string> in_file;
  for (auto& n : from.nodes) {
    in_file.insert(n.name);
    auto it = logged.find(n.name);
    if (it == logged.end()) continue;
    const OnnxNode& l = *it->second;
    // The log printed dims for every tensor it met; the file often has none for intermediates.
    for (auto& v : n.inputs)
      for (const auto& lv : l.inputs)
        if (lv.name == v.name && !v.has_dims && lv.has_dims) v = lv;
    for (auto& v : n.outputs)
      for (const auto& lv : l.outputs)
        if (lv.name == v.name && !v.has_dims && lv.has_dims) v = lv;
    if (l.kernel() != n.kernel())
      n.origin = std::make_shared<const OnnxNodeOrigin>(OnnxNodeOrigin{n.source(), l.kernel()});
    n.num_outputs = l.num_outputs;
    n.groups = l.groups;
  }
  for (auto& n : into.nodes)
    if (!in_file.count(n.name)) from.nodes.push_back(std::move(n));  // log-only: after the file's
  for (size_t i = 0; i < from.nodes.size(); ++i) from.nodes[i].index = int(i);
  into.nodes = std::move(from.nodes);
  std::set<std::string> have;
  for (const auto& v : from.initializers) have.insert(v.name);
  for (auto& v : into.initializers)
    if (!have.count(v.name)) from.initializers.push_back(std::move(v));
  into.initializers = std::move(from.initializers);
  if (!from.graph_inputs.empty()) into.graph_inputs = std::move(from.graph_inputs);
  if (!from.graph_outputs.empty()) into.graph_outputs = std::move(from.graph_outputs);
  for (auto& s : from.sources) into.sources.push_back(std::move(s));
  if (!from.shape_model.empty()) into.shape_model = std::move(from.shape_model);
}

}  // namespace trtlens
