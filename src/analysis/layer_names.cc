#include "analysis/layer_names.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <iterator>

#include "model/values.h"

namespace trtlens {
namespace {

// Written without substr(), whose range check kept these from being inlined: they run on
// every layer name several times in an analysis.
inline bool starts_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && std::memcmp(s.data(), p.data(), p.size()) == 0;
}
inline bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() &&
         std::memcmp(s.data() + s.size() - p.size(), p.data(), p.size()) == 0;
}

// What split_fused() looks at in a byte: an opening or closing bracket, or the first byte of a
// separator (' ' or ','); most bytes of a name are none of these.
enum ByteClass : uint8_t { kPlain, kOpen, kClose, kSeparator };
constexpr std::array<uint8_t, 256> kByteClass = [] {
  std::array<uint8_t, 256> t{};
  for (unsigned char c : {'(', '[', '{'}) t[c] = kOpen;
  for (unsigned char c : {')', ']', '}'}) t[c] = kClose;
  t[' '] = t[','] = kSeparator;
  return t;
}();
inline uint8_t byte_class(char c) { return kByteClass[static_cast<unsigned char>(c)]; }

// Removes a trailing " [profile N]"; returns N or -1.
int strip_profile(std::string_view& s) {
  if (!ends_with(s, "]")) return -1;
  size_t open = s.rfind(" [profile ");
  if (open == std::string_view::npos) return -1;
  std::string_view digits = s.substr(open + 10, s.size() - 1 - (open + 10));
  if (digits.empty() || digits.size() > 6) return -1;
  int n = 0;
  for (char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
    n = n * 10 + (c - '0');
  }
  s = s.substr(0, open);
  return n;
}

// Position of the bracket closing the one at `open`, or npos.
size_t matching_close(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    char c = s[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) return i;
    }
  }
  return std::string_view::npos;
}

// Splits at bracket depth 0 on " + " and " || " (and ", " inside PWN(...)), unwrapping PWN.
// Names with unbalanced brackets are split without regard to brackets.
// Views of `s`: the callers that only look names up allocate nothing per piece.
void split_fused(std::string_view s, bool commas, std::vector<std::string_view>& out) {
  auto emit = [&](std::string_view piece) {
    piece = trim(piece);
    if (piece.empty()) return;
    if (starts_with(piece, "PWN(") && matching_close(piece, 3) == piece.size() - 1) {
      split_fused(piece.substr(4, piece.size() - 5), true, out);
      return;
    }
    out.emplace_back(piece);
  };
  // Brackets are tracked on the guess that they balance, as nearly every name's do: a name whose
  // brackets turn out not to is split again without regard to them (one pass over a name, not a
  // check of its brackets first).
  const size_t first = out.size();
  for (const bool track : {true, false}) {
    int depth = 0;
    size_t start = 0;
    bool unbalanced = false;
    for (size_t i = 0; i < s.size(); ++i) {
      // Every separator starts with ' ' or ',': other bytes need no comparison (this loop runs
      // over every layer name several times in an analysis).
      const uint8_t k = byte_class(s[i]);
      if (k == kPlain) continue;
      if (k == kOpen) {
        if (track) ++depth;
        continue;
      }
      if (k == kClose) {
        if (track && depth-- == 0) {
          unbalanced = true;
          break;
        }
        continue;
      }
      if (depth != 0) continue;
      size_t sep = 0;
      if (s.compare(i, 3, " + ") == 0)
        sep = 3;
      else if (s.compare(i, 4, " || ") == 0)
        sep = 4;
      else if (commas && s.compare(i, 2, ", ") == 0)
        sep = 2;
      if (!sep) continue;
      emit(s.substr(start, i - start));
      start = i + sep;
      i = start - 1;
    }
    if (track && (unbalanced || depth != 0)) {
      out.resize(first);
      continue;
    }
    emit(s.substr(start));
    return;
  }
}

bool is_myelin_sublayer(std::string_view s) {
  if (starts_with(s, "__myl_") || starts_with(s, "__mye")) return true;
  // "node_linear_myl7_1", "matMul1_myl0_0"
  size_t p = s.rfind("_myl");
  if (p == std::string_view::npos) return false;
  std::string_view rest = s.substr(p + 4);
  bool digit = false, underscore = false;
  for (char c : rest) {
    if (std::isdigit(static_cast<unsigned char>(c)))
      digit = true;
    else if (c == '_')
      underscore = true;
    else
      return false;
  }
  return digit && underscore;
}

}  // namespace

const char* to_string(LayerNameKind k) {
  switch (k) {
    case LayerNameKind::Fused:
      return "onnx";
    case LayerNameKind::Reformat:
      return "reformat";
    case LayerNameKind::Copy:
      return "copy";
    case LayerNameKind::Internal:
      return "internal";
    case LayerNameKind::Foreign:
      return "myelin";
    case LayerNameKind::Myelin:
      return "myelin-sublayer";
  }
  return "other";
}

bool is_internal_name(std::string_view piece) { return starts_with(piece, "(Unnamed Layer* "); }

namespace {

std::string_view strip_trt_view(std::string_view piece) {
  static constexpr std::string_view kSuffixes[] = {"_quantize_scale_node",
                                                   "_dequantize_scale_node"};
  static constexpr std::string_view kPrefixes[] = {"copied_squeeze_after_", "reshape_before_",
                                                   "reshape_after_", "squeeze_after_",
                                                   "unsqueeze_before_"};
  // Most pieces have none of these: one test of the suffixes' common end, and of a prefix's
  // first letter, before a comparison (this runs on every piece of every layer name).
  static constexpr std::string_view kSuffixesEnd = "_scale_node";
  static_assert(std::all_of(std::begin(kSuffixes), std::end(kSuffixes),
                            [](std::string_view s) { return s.ends_with(kSuffixesEnd); }));
  bool changed = true;
  while (changed && !piece.empty()) {
    changed = strip_profile(piece) >= 0;
    if (ends_with(piece, kSuffixesEnd))
      for (auto suf : kSuffixes)
        if (ends_with(piece, suf) && piece.size() > suf.size()) {
          piece.remove_suffix(suf.size());
          changed = true;
        }
    for (auto pre : kPrefixes)
      if (!piece.empty() && piece.front() == pre.front() && starts_with(piece, pre) &&
          piece.size() > pre.size()) {
        piece.remove_prefix(pre.size());
        changed = true;
      }
  }
  return piece;
}

constexpr std::string_view kReformat = "Reformatting CopyNode for ";

// The kind of a layer name without its " [profile N]".
LayerNameKind name_kind(std::string_view name) {
  if (starts_with(name, kReformat) && name.find(" to ", kReformat.size()) != std::string_view::npos)
    return LayerNameKind::Reformat;
  if (starts_with(name, "{ForeignNode[") && ends_with(name, "]}")) return LayerNameKind::Foreign;
  if (is_internal_name(name) && matching_close(name, 0) != std::string_view::npos) {
    std::vector<std::string_view> parts;
    split_fused(name, false, parts);
    if (parts.size() == 1) return LayerNameKind::Internal;
  }
  if (ends_with(name, " copy") && name.size() > 5 && name.find(" + ") == std::string_view::npos)
    return LayerNameKind::Copy;
  if (is_myelin_sublayer(name)) return LayerNameKind::Myelin;
  return LayerNameKind::Fused;
}

}  // namespace

std::string strip_trt_additions(std::string_view piece) {
  return std::string(strip_trt_view(piece));
}

ParsedLayerName parse_layer_name(std::string_view name) {
  ParsedLayerName p;
  p.profile = strip_profile(name);
  p.kind = name_kind(name);
  switch (p.kind) {
    case LayerNameKind::Reformat:
      p.attached_to = std::string(name.substr(name.find(" to ", kReformat.size()) + 4));
      break;
    case LayerNameKind::Foreign: {
      std::string_view range = name.substr(13, name.size() - 15);
      size_t dots = range.find("...");
      if (dots == std::string_view::npos) {
        p.range_first = p.range_last = std::string(range);
      } else {
        p.range_first = std::string(range.substr(0, dots));
        p.range_last = std::string(range.substr(dots + 3));
        p.range_ambiguous = range.find("...", dots + 3) != std::string_view::npos;
      }
      break;
    }
    case LayerNameKind::Copy:
      p.attached_to = std::string(name.substr(0, name.size() - 5));
      break;
    case LayerNameKind::Fused: {
      std::vector<std::string_view> parts;
      split_fused(name, false, parts);
      p.parts.assign(parts.begin(), parts.end());
      break;
    }
    case LayerNameKind::Internal:
    case LayerNameKind::Myelin:
      break;
  }
  return p;
}

void fused_node_views(std::string_view layer_name, std::vector<std::string_view>& out) {
  out.clear();
  strip_profile(layer_name);
  if (name_kind(layer_name) != LayerNameKind::Fused) return;
  split_fused(layer_name, false, out);
  size_t kept = 0;
  for (std::string_view part : out) {
    if (is_internal_name(part)) continue;
    if (std::string_view s = strip_trt_view(part); !s.empty()) out[kept++] = s;
  }
  out.resize(kept);
}

std::vector<std::string> fused_node_names(const std::string& layer_name) {
  std::vector<std::string_view> names;
  fused_node_views(layer_name, names);
  return {names.begin(), names.end()};
}

std::vector<std::string> fused_node_names(const ParsedLayerName& p) {
  std::vector<std::string> out;
  if (p.kind != LayerNameKind::Fused) return out;
  for (const auto& part : p.parts) {
    if (is_internal_name(part)) continue;
    std::string s = strip_trt_additions(part);
    if (!s.empty()) out.push_back(std::move(s));
  }
  return out;
}

std::vector<std::string> metadata_node_names(std::string_view metadata) {
  static constexpr std::string_view kOpen = "[ONNX Layer: ";
  std::vector<std::string> out;
  size_t chunk_start = 0;
  while (chunk_start <= metadata.size()) {
    size_t chunk_end = metadata.find_first_of("\x1e\x1f", chunk_start);
    if (chunk_end == std::string_view::npos) chunk_end = metadata.size();
    std::string_view chunk = metadata.substr(chunk_start, chunk_end - chunk_start);
    size_t at = chunk.find(kOpen);
    while (at != std::string_view::npos) {
      size_t begin = at + kOpen.size();
      // The entry ends at "][ONNX Layer: " or at the chunk's last ']' (names may hold ']').
      size_t next = chunk.find(std::string("]") + std::string(kOpen), begin);
      size_t end = next != std::string_view::npos ? next : chunk.rfind(']');
      if (end == std::string_view::npos || end < begin) break;
      std::string_view entry = chunk.substr(begin, end - begin);
      if (!entry.empty()) out.emplace_back(entry);
      at = next != std::string_view::npos ? next + 1 : std::string_view::npos;
    }
    if (chunk_end == metadata.size()) break;
    chunk_start = chunk_end + 1;
  }
  return out;
}

std::string op_from_node_name(std::string_view name) {
  size_t slash = name.rfind('/');
  std::string_view last = slash == std::string_view::npos ? name : name.substr(slash + 1);
  size_t us = last.rfind('_');
  if (us != std::string_view::npos && us + 1 < last.size()) {
    bool digits = true;
    for (char c : last.substr(us + 1))
      digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (digits) last = last.substr(0, us);
  }
  if (last.empty() || !std::isupper(static_cast<unsigned char>(last[0]))) return "";
  for (char c : last)
    if (!std::isalnum(static_cast<unsigned char>(c))) return "";
  if (slash == std::string_view::npos && us == std::string_view::npos) return "";
  return std::string(last);
}

bool looks_like_initializer(std::string_view name) {
  return starts_with(name, "onnx::") || ends_with(name, ".weight") || ends_with(name, ".bias");
}

std::optional<std::string> unique_prefix_match(const std::vector<std::string>& sorted,
                                               const std::string& cut) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (cut.size() < 4) return std::nullopt;
  auto it = std::upper_bound(sorted.begin(), sorted.end(), cut);
  if (it == sorted.end() || it->compare(0, cut.size(), cut) != 0) return std::nullopt;
  auto next = std::next(it);
  if (next != sorted.end() && next->compare(0, cut.size(), cut) == 0) return std::nullopt;
  if (digit(cut.back()) && digit((*it)[cut.size()])) return std::nullopt;
  return *it;
}

}  // namespace trtlens
