#include "ingest/json_text.h"

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

uint64_t line_of_offset(const std::string& text, size_t pos) {
  pos = std::min(pos, text.size());
  return 1 + uint64_t(std::count(text.begin(), text.begin() + long(pos), '\n'));
}

uint64_t count_lines(const std::string& text) {
  uint64_t n = uint64_t(std::count(text.begin(), text.end(), '\n'));
  return n + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

namespace {

// One pass over the bytes: raw control bytes inside strings (invalid JSON, so TRT's raw
// Metadata separators need the sanitising pass) and nesting deeper than the limit (simdjson's
// On-Demand parser skips nested values without a bound, and the attribute reader recurses).
struct JsonShape {
  bool raw_control = false;
  bool too_deep = false;
};

JsonShape json_shape(const std::string& s, int limit) {
  JsonShape r;
  bool in_string = false;
  int depth = 0;
  const size_t n = s.size();
  for (size_t i = 0; i < n; ++i) {
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
      case '[':
      case '{':
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

bool json_needs_sanitizing(const std::string& text) {
  const JsonShape shape = json_shape(text, kJsonDepthLimit);
  return shape.raw_control || shape.too_deep || !simdjson::validate_utf8(text.data(), text.size());
}

simdjson::padded_string_view prepare_json(std::string& text, Assembler& out,
                                          const std::string& path) {
  const JsonShape shape = json_shape(text, kJsonDepthLimit);
  if (shape.too_deep)
    throw InputError(path,
                     "JSON nested deeper than " + std::to_string(kJsonDepthLimit) + " levels");
  if (shape.raw_control || !simdjson::validate_utf8(text.data(), text.size())) {
    JsonSanitizeResult clean = sanitize_json(text, kJsonDepthLimit);
    if (clean.invalid_utf8)
      out.diagnostic(
          Severity::Warning, {path, 0},
          std::to_string(clean.invalid_utf8) + " bytes that are not UTF-8 were replaced by U+FFFD");
    text = std::move(clean.text);
  }
  // Written padding (not just capacity): the parser reads it, and it should be defined bytes.
  const size_t size = text.size();
  text.append(simdjson::SIMDJSON_PADDING, ' ');
  text.resize(size);
  return simdjson::padded_string_view(text.data(), text.size(), text.capacity());
}

uint64_t LineCounter::line_at(const char* p) {
  size_t off = size_t(p - text_.data());
  if (off > text_.size()) off = text_.size();
  if (off < pos_) {  // not expected; stay correct
    pos_ = 0;
    line_ = 1;
  }
  line_ += uint64_t(std::count(text_.begin() + long(pos_), text_.begin() + long(off), '\n'));
  pos_ = off;
  return line_;
}

std::string json_error_place(const std::string& path, const std::string& text,
                             simdjson::ondemand::document& doc) {
  const char* at = nullptr;
  if (doc.current_location().get(at) != simdjson::SUCCESS || !at) return path;
  size_t off = size_t(at - text.data());
  if (off > text.size()) return path;
  return path + ":" + std::to_string(line_of_offset(text, off));
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
