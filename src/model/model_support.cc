// Small member functions of the per-area model structs.
#include "model/onnx.h"
#include "model/timing.h"

namespace trtlens {

const char* to_string(NodeFate f) {
  switch (f) {
    case NodeFate::Unknown:
      return "unknown";
    case NodeFate::Standalone:
      return "standalone";
    case NodeFate::Fused:
      return "fused";
    case NodeFate::InMyelin:
      return "in-myelin";
    case NodeFate::Eliminated:
      return "eliminated";
  }
  return "unknown";
}

namespace {

// The first element named `name`. The index is rebuilt when the vector moved or changed size;
// a probe compares the element's current name, so a renamed element is never a wrong hit. Each
// slot keeps the upper half of its name's hash beside the position: a probe compares a name
// (a random read of a large element and its text) only when the two halves agree, so a miss
// and most collisions never touch the elements.
template <class T, class Index>
const T* lookup(const std::vector<T>& items, Index& index, std::string_view name) {
  if (items.empty()) return nullptr;  // (an empty vector may have the null data of a fresh index)
  std::hash<std::string_view> hash;
  // (0 where size_t has 32 bits: every probe then compares names, as before)
  constexpr auto tag = [](size_t h) { return uint64_t(h) >> 32 << 32; };
  if (index.data != items.data() || index.size != items.size()) {
    index.data = items.data();
    index.size = items.size();
    size_t cap = 16;
    while (cap < items.size() * 2) cap *= 2;
    index.slots.assign(cap, 0);
    for (size_t i = 0; i < items.size(); ++i) {
      const size_t h = hash(items[i].name);
      for (size_t s = h & (cap - 1);; s = (s + 1) & (cap - 1)) {
        uint64_t& slot = index.slots[s];
        if (!slot) {
          slot = tag(h) | uint32_t(i + 1);
          break;
        }
        if ((slot & ~uint64_t{0xffffffff}) == tag(h) &&
            items[uint32_t(slot) - 1].name == items[i].name)
          break;  // the first of a name wins
      }
    }
  }
  const size_t mask = index.slots.size() - 1;
  const size_t h = hash(name);
  for (size_t s = h & mask;; s = (s + 1) & mask) {
    const uint64_t slot = index.slots[s];
    if (!slot) return nullptr;
    if ((slot & ~uint64_t{0xffffffff}) != tag(h)) continue;
    const T& item = items[uint32_t(slot) - 1];
    if (item.name == name) return &item;
  }
}

}  // namespace

const SourceLoc& OnnxNode::source() const {
  static const SourceLoc none;
  return origin ? origin->source : none;
}

const std::vector<int64_t>& OnnxNode::kernel() const {
  static const std::vector<int64_t> none;
  return origin ? origin->kernel : none;
}

const OnnxNode* OnnxModel::find(std::string_view name) const {
  return lookup(nodes, node_index_, name);
}

bool OnnxModel::is_initializer(std::string_view name) const {
  return lookup(initializers, initializer_index_, name) != nullptr;
}

void OnnxModel::index() const {
  lookup(nodes, node_index_, {});
  lookup(initializers, initializer_index_, {});
}

std::string RunInfo::build_option(const std::string& key) const {
  for (const auto& [k, v] : build_options)
    if (k == key) return v;
  return "";
}

}  // namespace trtlens
