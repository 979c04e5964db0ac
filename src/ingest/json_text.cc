#include "ingest/json_text.h"

#include "model/values.h"

#include <algorithm>
#include <cstdio>

namespace trtlens {

JsonSanitizeResult sanitize_json(const std::string& in, int depth_limit) {
  JsonSanitizeResult r;
  r.text.reserve(in.size());
  bool in_string = false;
  int depth = 0;
  for (size_t i = 0; i < in.size();) {
    unsigned char c = static_cast<unsigned char>(in[i]);
    if (in_string) {
      if (c == '\\' && i + 1 < in.size()) {
        r.text.append(in, i, 2);
        i += 2;
        continue;
      }
      if (c == '"') in_string = false;
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        r.text += buf;
        ++i;
        continue;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      r.max_depth = std::max(r.max_depth, ++depth);
      if (depth > depth_limit) {
        r.too_deep = true;
        return r;
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
    if (c >= 0x80) {
      size_t n = utf8_sequence_length(in, i);
      if (n == 0) {
        r.text += "\xef\xbf\xbd";
        ++r.invalid_utf8;
        ++i;
        continue;
      }
      r.text.append(in, i, n);
      i += n;
      continue;
    }
    r.text.push_back(char(c));
    ++i;
  }
  return r;
}

uint64_t line_of_offset(const std::string& text, size_t pos) {
  pos = std::min(pos, text.size());
  return 1 + uint64_t(std::count(text.begin(), text.begin() + long(pos), '\n'));
}

uint64_t count_lines(const std::string& text) {
  uint64_t n = uint64_t(std::count(text.begin(), text.end(), '\n'));
  return n + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

}  // namespace trtlens
