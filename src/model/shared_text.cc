#include "model/shared_text.h"

#include <functional>
#include <mutex>
#include <unordered_set>

namespace trtlens {

namespace {

struct Hash {  // looks up a string_view without making a string of it
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

}  // namespace

const std::string* SharedText::intern(std::string_view text) {
  // Never freed: the model lives until exit, and a set's nodes keep their addresses.
  static auto* pool = new std::unordered_set<std::string, Hash, std::equal_to<>>;
  static auto* lock = new std::mutex;
  std::lock_guard<std::mutex> hold(*lock);
  auto it = pool->find(text);
  if (it == pool->end()) it = pool->emplace(text).first;
  return &*it;
}

const std::string& SharedText::empty_text() {
  static const std::string empty;
  return empty;
}

}  // namespace trtlens
