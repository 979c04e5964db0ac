// Making real exporter JSON acceptable to a strict parser without changing what it says:
// raw control characters inside strings (TRT 8.6+ Metadata separators) become \u escapes,
// bytes that are not UTF-8 become U+FFFD (reported), and nesting depth is bounded.
#pragma once

#include <cstdint>
#include <string>

namespace trtlens {

struct JsonSanitizeResult {
  std::string text;
  int invalid_utf8 = 0;  // bytes replaced
  int max_depth = 0;
  bool too_deep = false;
};

JsonSanitizeResult sanitize_json(const std::string& in, int depth_limit = 512);

// 1-based line of byte offset `pos` in `text` (for error messages).
uint64_t line_of_offset(const std::string& text, size_t pos);

// Number of lines in `text` (a last line without a line end counts).
uint64_t count_lines(const std::string& text);

}  // namespace trtlens
