// Small member functions of the per-area model structs.
#include "model/onnx.h"
#include "model/timing.h"

namespace trtlens {

const char* to_string(NodeFate f) {
  switch (f) {
    case NodeFate::Unknown: return "unknown";
    case NodeFate::Standalone: return "standalone";
    case NodeFate::Fused: return "fused";
    case NodeFate::InMyelin: return "in-myelin";
    case NodeFate::Eliminated: return "eliminated";
  }
  return "unknown";
}

const OnnxNode* OnnxModel::find(const std::string& name) const {
  for (const auto& n : nodes)
    if (n.name == name) return &n;
  return nullptr;
}

bool OnnxModel::is_initializer(const std::string& name) const {
  for (const auto& i : initializers)
    if (i.name == name) return true;
  return false;
}

std::string RunInfo::build_option(const std::string& key) const {
  for (const auto& [k, v] : build_options)
    if (k == key) return v;
  return "";
}

}  // namespace trtlens
