// Shared by the JSON readers: making real exporter JSON acceptable to a strict parser without
// changing what it says (raw control characters inside strings, as TRT 8.6+ Metadata has, become
// \u escapes; bytes that are not UTF-8 become U+FFFD, reported; nesting depth is bounded), and
// the scans and line counts they share.
#pragma once

#include <emmintrin.h>  // SSE2: part of every x86-64
#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace trtlens {

class Assembler;

struct JsonSanitizeResult {
  std::string text;
  int invalid_utf8 = 0;  // bytes replaced
  int max_depth = 0;
  bool too_deep = false;
};

JsonSanitizeResult sanitize_json(const std::string& in, int depth_limit = 512);

// Bit k set when byte k of the 16 at `p` is one a JSON scanner must look at: a quote, a backslash,
// a bracket or brace, or a control byte. Names and indentation are skipped 16 bytes at a time.
inline unsigned json_special_bytes(const char* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  auto eq = [&v](char c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8(c)); };
  // Unsigned c < 0x20: min(c, 0x1f) == c.
  const __m128i ctrl = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
  // '[' 0x5b, '\\' 0x5c, ']' 0x5d and '{' 0x7b, '}' 0x7d: clear bit 5 and compare once.
  const __m128i folded = _mm_andnot_si128(_mm_set1_epi8(0x20), v);
  const __m128i brackets = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(folded, _mm_set1_epi8(0x5b)),
                                                     _mm_cmpeq_epi8(folded, _mm_set1_epi8(0x5d))),
                                        eq('\\'));
  return unsigned(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(ctrl, brackets), eq('"'))));
}

// '\n' bytes in [p, p + n).
uint64_t count_newlines(const char* p, size_t n);

// Number of lines in `text` (a last line without a line end counts).
uint64_t count_lines(const std::string& text);

constexpr int kJsonDepthLimit = 512;

// Raw control bytes (inside strings, invalid JSON), nesting deeper than kJsonDepthLimit, or
// bytes that are not UTF-8: not for the strict parser as it is.
// `records` (when given) gets the number of objects directly inside the root value (the
// records of a profile), so a reader can size its list once.
bool json_needs_sanitizing(const std::string& text, uint64_t* records = nullptr);

// Lines of positions that only move forward, counted incrementally (linear overall).
class LineCounter {
 public:
  explicit LineCounter(std::string_view text) : text_(text) {}
  uint64_t line_at(const char* p);

 private:
  std::string_view text_;
  size_t pos_ = 0;
  uint64_t line_ = 1;
};

// Text left after the document's root value was read.
bool json_has_more(simdjson::ondemand::document& doc);

// A short name for a JSON value's type ("a number", "an array", ...).
const char* json_type_name(simdjson::ondemand::json_type t);

}  // namespace trtlens
