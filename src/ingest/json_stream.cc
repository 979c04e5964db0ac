#include "ingest/json_stream.h"

#include <algorithm>
#include <cstring>

#include "ingest/json_text.h"
#include "io/input.h"

namespace trtlens {
namespace {

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Where a bare value (number, true, false, null) ends.
bool ends_scalar(char c) {
  return static_cast<unsigned char>(c) <= ' ' || c == ',' || c == ']' || c == '}' || c == ':' ||
         c == '"' || c == '[' || c == '{';
}

}  // namespace

JsonStream::JsonStream(Source source, std::string path, int depth_limit, size_t chunk)
    : source_(std::move(source)),
      path_(std::move(path)),
      depth_limit_(depth_limit),
      chunk_(std::max<size_t>(chunk, 1)) {}

bool JsonStream::fill() {
  if (pos_ > 0) {  // what the cursor passed is dropped; its lines are counted first
    line_of_offset(pos_);
    line_base_ = counted_line_;
    counted_ = 0;
    std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
  }
  if (eof_) return false;
  // At least as much as the window holds: a value longer than a chunk is read in doubling
  // steps, so scanning it again after each read stays linear.
  size_t want = std::max(chunk_, end_);
  if (bytes_ == 0) want = std::max<size_t>(want, 3);  // room to see a byte order mark
  if (buf_.size() < end_ + want + simdjson::SIMDJSON_PADDING)
    buf_.resize(end_ + want + simdjson::SIMDJSON_PADDING);
  size_t got = 0;
  while (got < want) {
    const size_t n = source_(buf_.data() + end_ + got, want - got);
    if (n == 0) {
      eof_ = true;
      break;
    }
    got += n;
  }
  if (got) last_byte_ = buf_[end_ + got - 1];
  // A UTF-8 byte order mark (Windows tools write one) says nothing about the document.
  if (bytes_ == 0 && got >= 3 && std::memcmp(buf_.data(), "\xEF\xBB\xBF", 3) == 0) pos_ = 3;
  bytes_ += got;
  end_ += got;
  // Defined bytes after the input: simdjson may read its padding.
  std::memset(buf_.data() + end_, ' ', simdjson::SIMDJSON_PADDING);
  return got > 0;
}

uint64_t JsonStream::line_of_offset(size_t off) {
  if (off < counted_) {  // behind the counter: count again from the window's start
    counted_ = 0;
    counted_line_ = line_base_;
  }
  counted_line_ += count_newlines(buf_.data() + counted_, off - counted_);
  counted_ = off;
  return counted_line_;
}

uint64_t JsonStream::line_at(const char* p) {
  if (!clean_.empty() && p >= clean_.data() && p <= clean_.data() + clean_.size())
    return line_of_offset(taken_at_) + count_newlines(clean_.data(), size_t(p - clean_.data()));
  if (p < buf_.data() || p > buf_.data() + end_) return line_of_offset(taken_at_);
  return line_of_offset(size_t(p - buf_.data()));
}

void JsonStream::fail(const std::string& reason, size_t at) {
  throw InputError(path_ + ":" + std::to_string(line_of_offset(std::min(at, end_))),
                   "invalid JSON: " + reason);
}

bool JsonStream::skip_space() {
  for (;;) {
    while (pos_ < end_ && is_space(buf_[pos_])) ++pos_;
    if (pos_ < end_) return true;
    if (!fill()) return false;
  }
}

char JsonStream::peek() {
  if (!skip_space()) return 0;
  if (buf_[pos_] == '\0') fail("a NUL byte outside a string", pos_);  // 0 means the end
  return buf_[pos_];
}

void JsonStream::enter() {
  const char c = peek();
  if (c != '{' && c != '[') fail("expected an object or a list", pos_);
  if (++depth_ > depth_limit_)
    throw InputError(path_, "JSON nested deeper than " + std::to_string(depth_limit_) + " levels");
  ++pos_;
  open_.push_back({c, true});
}

bool JsonStream::next_item(char kind, char& c) {
  const bool object = kind == '{';
  if (open_.empty() || open_.back().kind != kind)
    fail(object ? "not inside an object" : "not inside a list", pos_);
  const char close = object ? '}' : ']';
  const char* ends = object ? "the input ends inside an object" : "the input ends inside a list";
  c = peek();
  if (c == close) {
    ++pos_;
    --depth_;
    open_.pop_back();
    return false;
  }
  if (!open_.back().first) {
    if (c != ',')
      fail(!c       ? ends
           : object ? "expected ',' or '}' after a member"
                    : "expected ',' or ']' after a list item",
           pos_);
    ++pos_;
    c = peek();
    if (c == close) fail(object ? "expected a key" : "expected a value after ','", pos_);
  }
  if (!c) fail(ends, pos_);
  open_.back().first = false;
  return true;
}

bool JsonStream::next_member(std::string& key) {
  char c = 0;
  if (!next_item('{', c)) return false;
  if (c != '"') fail("expected a key", pos_);
  const simdjson::padded_string_view k = take();
  const std::string_view raw(k.data(), k.length());
  if (raw.find('\\') == std::string_view::npos) {
    key.assign(raw.substr(1, raw.size() - 2));
  } else {  // escapes: simdjson unescapes the key as a document of its own
    simdjson::ondemand::parser p;
    simdjson::ondemand::document d;
    std::string_view s;
    if (p.iterate(k).get(d) != simdjson::SUCCESS || d.get_string().get(s) != simdjson::SUCCESS)
      fail("a key is not a valid string", taken_at_);
    key.assign(s);
  }
  if (peek() != ':') fail("expected ':' after a key", pos_);
  ++pos_;
  if (!peek()) fail("the input ends where a value was expected", pos_);
  return true;
}

bool JsonStream::next_element() {
  char c = 0;
  return next_item('[', c);
}

JsonStream::Scan JsonStream::scan_value(bool keep) {
  Scan s;
  if (!skip_space()) fail("the input ends where a value was expected", pos_);
  size_t i = pos_;
  const char first = buf_[i];
  if (first == ',' || first == ']' || first == '}' || first == ':') fail("expected a value", i);
  const bool container = first == '{' || first == '[';
  const bool string = first == '"';
  const bool bare = !container && !string;
  if (!container) ++i;  // a bare value's first byte, or a string's opening quote
  s.in_string = string;
  bool escape = false;
  for (;;) {
    if (i >= end_) {
      // Out of window: keep the value's start (or drop what was scanned), read more.
      const size_t base = keep ? pos_ : i;
      pos_ = base;
      const bool more = fill();
      i -= base;
      if (!more) {
        if (bare) break;  // a bare value ends with the input
        fail("the input ends inside a value", end_);
      }
      continue;
    }
    if (bare) {  // up to the next delimiter
      if (ends_scalar(buf_[i])) break;
      ++i;
      continue;
    }
    if (escape) {
      escape = false;
      ++i;
      continue;
    }
    if (end_ - i >= 16) {
      const unsigned m = json_special_bytes(buf_.data() + i);
      if (m == 0) {
        i += 16;
        continue;
      }
      i += unsigned(__builtin_ctz(m));
    }
    const unsigned char c = static_cast<unsigned char>(buf_[i++]);
    if (s.in_string) {
      if (c == '\\')
        escape = true;
      else if (c == '"')
        s.in_string = false;
      else if (c < 0x20)
        s.raw_control = true;
      if (string && !s.in_string) break;
      continue;
    }
    switch (c) {
      case '"':
        s.in_string = true;
        break;
      case '{':
      case '[':
        if (depth_ + ++s.depth > depth_limit_)
          throw InputError(path_,
                           "JSON nested deeper than " + std::to_string(depth_limit_) + " levels");
        break;
      case '}':
      case ']':
        if (--s.depth < 0) fail("unbalanced brackets", i - 1);
        break;
      default:
        break;
    }
    if (s.depth == 0) break;
  }
  s.at = i;
  return s;
}

simdjson::padded_string_view JsonStream::take() {
  const Scan s = scan_value(true);
  const size_t start = pos_;
  const size_t length = s.at - start;
  pos_ = s.at;
  taken_at_ = start;
  clean_.clear();
  const char* p = buf_.data() + start;
  if (!s.raw_control && simdjson::validate_utf8(p, length))
    return simdjson::padded_string_view(p, length, buf_.size() - start);
  // Raw control bytes inside strings (TRT's Metadata separators) or bytes that are not UTF-8:
  // the value's copy is made acceptable to the strict parser.
  JsonSanitizeResult r = sanitize_json(std::string(p, length), depth_limit_);
  invalid_utf8_ += uint64_t(r.invalid_utf8);
  clean_ = std::move(r.text);
  const size_t n = clean_.size();
  clean_.append(simdjson::SIMDJSON_PADDING, ' ');
  return simdjson::padded_string_view(clean_.data(), n, clean_.size());
}

void JsonStream::skip() { pos_ = scan_value(false).at; }

void JsonStream::finish() {
  if (peek()) fail("text after the document", pos_);
  lines_total_ = line_of_offset(end_) - 1 + (bytes_ && last_byte_ != '\n' ? 1 : 0);
}

}  // namespace trtlens
