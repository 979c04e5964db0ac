#include "model/values.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace trtlens {
namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

struct Spelling {
  std::string_view key;  // upper-case spelling
  std::string_view canonical;
};

// Log spellings (Float, Half, Int8 ...), JSON bare types and the canonical names themselves.
constexpr std::array<Spelling, 33> kSpellings{{
    {"FLOAT", "FP32"},   {"FLOAT32", "FP32"}, {"FP32", "FP32"},   {"KFLOAT", "FP32"},
    {"HALF", "FP16"},    {"FLOAT16", "FP16"}, {"FP16", "FP16"},   {"KHALF", "FP16"},
    {"BFLOAT16", "BF16"}, {"BF16", "BF16"},   {"KBF16", "BF16"},  {"FP8", "FP8"},
    {"FLOAT8", "FP8"},   {"KFP8", "FP8"},     {"FP4", "FP4"},     {"KFP4", "FP4"},
    {"INT4", "INT4"},    {"KINT4", "INT4"},   {"INT8", "INT8"},   {"KINT8", "INT8"},
    {"UINT8", "UINT8"},  {"KUINT8", "UINT8"}, {"INT32", "INT32"}, {"KINT32", "INT32"},
    {"INT64", "INT64"},  {"KINT64", "INT64"}, {"BOOL", "BOOL"},   {"KBOOL", "BOOL"},
    {"E4M3", "FP8"},     {"FP8E4M3", "FP8"},  {"E2M1", "FP4"},    {"FLOAT4", "FP4"},
    {"DOUBLE", "FP64"},
}};

}  // namespace

size_t utf8_sequence_length(std::string_view s, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  if (n == 2 && c < 0xc2) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xc0) != 0x80) return 0;
  if (n == 3) {
    unsigned cp = ((c & 0x0f) << 12) | ((b(i + 1) & 0x3f) << 6) | (b(i + 2) & 0x3f);
    if (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  }
  if (n == 4) {
    unsigned cp = ((c & 0x07) << 18) | ((b(i + 1) & 0x3f) << 12);
    if (cp < 0x10000 || cp > 0x10ffff) return 0;
  }
  return n;
}

namespace {

// A word that could name a dtype TensorRT adds later ("FP6", "E8M0"): one token of letters,
// digits and underscores that is not a placeholder. "N/A due to dynamic shapes", "None" or
// "Unknown" in a dtype position say that no dtype is given.
bool dtype_like(const std::string& key) {
  if (key.empty() || key.size() > 24) return false;
  if (key == "NONE" || key == "UNKNOWN" || key == "NA" || key == "UNSPECIFIED") return false;
  if (!std::isalpha(static_cast<unsigned char>(key.front()))) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

}  // namespace

DtypeResult canonical_dtype(std::string_view spelling) {
  const std::string key = upper(trim(spelling));
  for (const auto& s : kSpellings) {
    if (s.key == key) return {std::string(s.canonical), s.canonical != "FP64"};
  }
  return {dtype_like(key) ? key : std::string(), false};
}

std::optional<int> dtype_bits(std::string_view c) {
  if (c == "FP32" || c == "INT32") return 32;
  if (c == "FP16" || c == "BF16") return 16;
  if (c == "FP8" || c == "INT8" || c == "UINT8" || c == "BOOL") return 8;
  if (c == "FP4" || c == "INT4") return 4;
  if (c == "INT64" || c == "FP64") return 64;
  return std::nullopt;
}

FormatInfo parse_format(std::string_view format) {
  FormatInfo info;
  std::string f(trim(format));
  // "Row major linear FP4 format (kLINEAR)": drop the enum suffix.
  if (auto p = f.find(" (k"); p != std::string::npos && !f.empty() && f.back() == ')') f.resize(p);
  const std::string u = upper(f);

  // A bare dtype ("Half", "Int8", "None") as Myelin/kgen layers print it.
  if (u.find(' ') == std::string::npos) {
    info.dtype = canonical_dtype(u);
    return info;
  }
  // The dtype is one of the words; the longest known spelling wins ("BFloat16" before "Float").
  std::string word;
  DtypeResult best;
  auto consider = [&](const std::string& w) {
    if (w.empty()) return;
    DtypeResult d = canonical_dtype(w);
    if (d.known && !best.known) best = d;
  };
  for (char c : u) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word.push_back(c);
    } else {
      consider(word);
      word.clear();
    }
  }
  consider(word);
  // No dtype among the words ("N/A due to dynamic shapes"): the dtype is unknown; the format
  // string itself stays on the tensor.
  info.dtype = best.known ? best : DtypeResult{};

  static constexpr std::array<std::pair<std::string_view, int>, 6> kWidths{{
      {"TWO WIDE", 2}, {"FOUR WIDE", 4}, {"EIGHT WIDE", 8},
      {"SIXTEEN WIDE", 16}, {"THIRTY-TWO WIDE", 32}, {"SIXTY-FOUR WIDE", 64},
  }};
  for (const auto& [words, width] : kWidths) {
    if (u.find(words) != std::string::npos) {
      info.vector_width = width;
      info.vector_axis = 1;
    }
  }
  // "Channel major FP16 format where channel % 8 == 0" (HWC8 family).
  if (auto p = u.find("CHANNEL % "); p != std::string::npos) {
    int n = 0;
    auto s = u.data() + p + 10;
    std::from_chars(s, u.data() + u.size(), n);
    if (n > 1) {
      info.vector_width = n;
      info.vector_axis = 1;
    }
    info.channel_last = true;
  } else if (u.find("CHANNEL MAJOR") != std::string::npos ||
             u.find("CHANNEL LAST") != std::string::npos) {
    info.channel_last = true;
  }
  return info;
}

std::optional<std::vector<int64_t>> parse_x_dims(std::string_view text) {
  std::vector<int64_t> dims;
  for (size_t i = 0; i <= text.size();) {
    size_t j = std::min(text.find('x', i), text.size());
    const std::string_view part = text.substr(i, j - i);
    int64_t v = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size() || v < 0)
      return std::nullopt;
    dims.push_back(v);
    i = j + 1;
  }
  return dims;
}

std::optional<Dims> parse_dims(std::string_view text) {
  Dims out;
  text = trim(text);
  if (text.empty()) return out;
  out.dims.reserve(size_t(std::count(text.begin(), text.end(), ',')) + 1);  // one allocation
  size_t pos = 0;
  int axis = 0;
  // The items are a few bytes each: a loop finds their ends sooner than a memchr call.
  auto find = [](std::string_view s, char c, size_t from) {
    while (from < s.size() && s[from] != c) ++from;
    return from;
  };
  while (pos <= text.size()) {
    const size_t end = find(text, ',', pos);
    std::string_view item = trim(text.substr(pos, end - pos));
    std::string_view width;
    if (const size_t colon = find(item, ':', 0); colon < item.size()) {
      width = item.substr(colon + 1);
      item = item.substr(0, colon);
    }
    int64_t v = 0;
    auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || p != item.data() + item.size() || item.empty()) return std::nullopt;
    if (!width.empty()) {
      int w = 0;
      auto [q, ec2] = std::from_chars(width.data(), width.data() + width.size(), w);
      if (ec2 != std::errc() || q != width.data() + width.size()) return std::nullopt;
      out.vector_axis = axis;
      out.vector_width = w;
    }
    out.dims.push_back(v);
    ++axis;
    if (end == text.size()) break;
    pos = end + 1;
  }
  return out;
}

bool tactic_value(std::string_view text, uint64_t& value) {
  if (!text.empty() && (text.front() <= ' ' || text.back() <= ' ')) text = trim(text);
  if (text.empty()) return false;
  value = 0;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    std::string_view hex = text.substr(2);
    if (hex.size() > 16) return false;
    if (hex.size() == 16) return hex16(hex.data(), value);  // nearly every tactic id
    auto [p, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), value, 16);
    return ec == std::errc() && p == hex.data() + hex.size();
  }
  bool negative = text[0] == '-';
  std::string_view digits = negative ? text.substr(1) : text;
  uint64_t magnitude = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
  if (ec != std::errc() || p != digits.data() + digits.size() || digits.empty()) return false;
  if (negative && magnitude > (uint64_t{1} << 63)) return false;
  value = negative ? ~magnitude + 1 : magnitude;
  return true;
}

std::string tactic_text(uint64_t value) {
  // By hand rather than snprintf (about 1,000 instructions a call): every tactic of a layer
  // listing and of each timing block's kept attempts is written this way.
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(18, '0');
  out[1] = 'x';
  for (size_t i = 17; i >= 2; --i, value >>= 4) out[i] = kDigits[value & 15];
  return out;
}

std::optional<std::string> canonical_tactic(std::string_view text) {
  uint64_t value = 0;
  if (!tactic_value(text, value)) return std::nullopt;
  return tactic_text(value);
}

std::string trt_version_from_number(std::string_view digits) {
  if (!digits.empty() && (digits[0] == 'v' || digits[0] == 'V')) digits.remove_prefix(1);
  if (digits.find('.') != std::string_view::npos) return std::string(digits);
  long n = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || n <= 0) return std::string(digits);
  long major, minor, patch;
  if (n >= 10000) {  // TRT 10+: MAJOR*10000 + MINOR*100 + PATCH
    major = n / 10000;
    minor = (n / 100) % 100;
    patch = n % 100;
  } else {  // TRT <= 9: MAJOR*1000 + MINOR*100 + PATCH
    major = n / 1000;
    minor = (n / 100) % 10;
    patch = n % 100;
  }
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace trtlens
