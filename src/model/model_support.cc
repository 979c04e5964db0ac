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

namespace {

// Position of the first element named `name`; the index is rebuilt when the vector moved or
// changed size, and a hit is checked against the element itself.
template <class T>
const T* lookup(const std::vector<T>& items, auto& index, const std::string& name) {
  auto rebuild = [&] {
    index.at.clear();
    index.data = items.data();
    index.size = items.size();
    for (size_t i = items.size(); i-- > 0;) index.at[items[i].name] = i;
  };
  if (index.data != items.data() || index.size != items.size()) rebuild();
  auto it = index.at.find(name);
  if (it != index.at.end() && (it->second >= items.size() || items[it->second].name != name)) {
    rebuild();
    it = index.at.find(name);
  }
  return it == index.at.end() ? nullptr : &items[it->second];
}

}  // namespace

const OnnxNode* OnnxModel::find(const std::string& name) const {
  return lookup(nodes, node_index_, name);
}

bool OnnxModel::is_initializer(const std::string& name) const {
  return lookup(initializers, initializer_index_, name) != nullptr;
}

std::string RunInfo::build_option(const std::string& key) const {
  for (const auto& [k, v] : build_options)
    if (k == key) return v;
  return "";
}

}  // namespace trtlens
