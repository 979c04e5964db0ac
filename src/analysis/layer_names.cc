#include "analysis/layer_names.h"

#include <string_view>

namespace trtlens {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Splits on any of `seps` where no bracket is open.
std::vector<std::string_view> split_top(std::string_view s,
                                        std::initializer_list<std::string_view> seps) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0)
      --depth;
    if (depth != 0) continue;
    for (std::string_view sep : seps) {
      if (s.compare(i, sep.size(), sep) == 0) {
        parts.push_back(s.substr(start, i - start));
        i += sep.size() - 1;
        start = i + 1;
        break;
      }
    }
  }
  parts.push_back(s.substr(start));
  return parts;
}

void strip_suffix(std::string& s, std::string_view suffix) {
  if (s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0)
    s.resize(s.size() - suffix.size());
}

void strip_profile(std::string& s) {
  // " [profile 12]"
  size_t p = s.rfind(" [profile ");
  if (p == std::string::npos || s.back() != ']') return;
  for (size_t i = p + 10; i + 1 < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return;
  s.resize(p);
}

void collect(std::string_view part, std::vector<std::string>& out, int depth) {
  part = trim(part);
  if (part.empty()) return;
  if (depth < 32 && part.size() > 5 && part.substr(0, 4) == "PWN(" && part.back() == ')') {
    for (auto p : split_top(part.substr(4, part.size() - 5), {", ", " + ", " || "}))
      collect(p, out, depth + 1);
    return;
  }
  std::string name(part);
  strip_profile(name);
  strip_suffix(name, "_quantize_scale_node");
  strip_suffix(name, "_dequantize_scale_node");
  if (!name.empty()) out.push_back(std::move(name));
}

}  // namespace

std::vector<std::string> fused_node_names(const std::string& layer_name) {
  std::string name = layer_name;
  strip_profile(name);
  std::vector<std::string> out;
  for (auto p : split_top(name, {" + ", " || "})) collect(p, out, 0);
  return out;
}

}  // namespace trtlens
