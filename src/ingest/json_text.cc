#include "ingest/json_text.h"

#include <emmintrin.h>  // SSE2: part of every x86-64, so no -march and no dispatch needed

#include <algorithm>
#include <cstdio>

#include "io/input.h"
#include "model/assembler.h"
#include "model/values.h"

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

// GCC does not vectorise std::count at -O2; this counts 16 bytes per step (a tenth of the
// instructions), which matters because every JSON input is counted once more for its lines.
uint64_t count_newlines(const char* p, size_t n) {
  uint64_t total = 0;
  const __m128i nl = _mm_set1_epi8('\n');
  size_t i = 0;
  while (n - i >= 16) {
    // Byte counters of up to 255 steps, then summed by SAD.
    __m128i acc = _mm_setzero_si128();
    const size_t steps = std::min<size_t>((n - i) / 16, 255);
    for (size_t k = 0; k < steps; ++k, i += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, nl));
    }
    const __m128i sums = _mm_sad_epu8(acc, _mm_setzero_si128());
    total += uint64_t(_mm_cvtsi128_si64(sums)) +
             uint64_t(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
  }
  for (; i < n; ++i) total += p[i] == '\n';
  return total;
}

uint64_t count_lines(const std::string& text) {
  uint64_t n = count_newlines(text.data(), text.size());
  return n + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

namespace {

// One pass over the bytes: raw control bytes inside strings (invalid JSON, so TRT's raw
// Metadata separators need the sanitising pass) and nesting deeper than the limit (simdjson's
// On-Demand parser skips nested values without a bound, and the attribute reader recurses).
struct JsonShape {
  bool raw_control = false;
  bool too_deep = false;
  uint64_t depth2_objects = 0;  // objects directly inside the root array or object
};

JsonShape json_shape(const std::string& s, int limit) {
  JsonShape r;
  bool in_string = false;
  int depth = 0;
  const size_t n = s.size();
  for (size_t i = 0; i < n; ++i) {
    if (n - i >= 16) {
      const unsigned m = json_special_bytes(s.data() + i);
      if (m == 0) {
        i += 15;
        continue;
      }
      i += unsigned(__builtin_ctz(m));
    }
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      else if (c < 0x20)
        r.raw_control = true;
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '{':
        if (depth == 1) ++r.depth2_objects;
        [[fallthrough]];
      case '[':
        if (++depth > limit) {
          r.too_deep = true;
          return r;
        }
        break;
      case ']':
      case '}':
        --depth;
        break;
      default:
        break;
    }
  }
  return r;
}

}  // namespace

bool json_needs_sanitizing(const std::string& text, uint64_t* records) {
  const JsonShape shape = json_shape(text, kJsonDepthLimit);
  if (records) *records = shape.depth2_objects;
  return shape.raw_control || shape.too_deep || !simdjson::validate_utf8(text.data(), text.size());
}

uint64_t LineCounter::line_at(const char* p) {
  size_t off = size_t(p - text_.data());
  if (off > text_.size()) off = text_.size();
  if (off < pos_) {  // not expected; stay correct
    pos_ = 0;
    line_ = 1;
  }
  line_ += count_newlines(text_.data() + pos_, off - pos_);
  pos_ = off;
  return line_;
}

bool json_has_more(simdjson::ondemand::document& doc) {
  const char* at = nullptr;
  return doc.current_location().get(at) == simdjson::SUCCESS;
}

const char* json_type_name(simdjson::ondemand::json_type t) {
  using T = simdjson::ondemand::json_type;
  switch (t) {
    case T::array:
      return "an array";
    case T::object:
      return "an object";
    case T::number:
      return "a number";
    case T::string:
      return "a string";
    case T::boolean:
      return "a boolean";
    case T::null:
      return "null";
  }
  return "a value";
}

}  // namespace trtlens
