// A JSON document read through a window that holds one value at a time.
//
// simdjson's On-Demand parser indexes a whole document before it reads any of it: the text is
// held whole, with 4 bytes of index per structural character. For an export of many layers
// that is most of the peak memory, and it grows with the file, not with the engine. simdjson 3.0
// cannot hand out one element of a list as a document of its own, so the root's members and a
// list's elements are delimited here by hand (strings, escapes and nesting only); each value is
// then parsed and checked by simdjson on its own, in place.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace trtlens {

class JsonStream {
 public:
  // Fills `buf` with up to `n` bytes of the input; 0 at its end.
  using Source = std::function<size_t(char* buf, size_t n)>;

  // Read size: the source is called rarely, and the window is small next to any model.
  static constexpr size_t kChunk = size_t{1} << 20;

  // Names `path` in messages; values nested deeper than `depth_limit` (counting the root)
  // are refused. The source is read `chunk` bytes at a time (tests make it small so that
  // values straddle every read).
  JsonStream(Source source, std::string path, int depth_limit, size_t chunk = kChunk);

  // The first byte of the value at the cursor ('{', '[', '"', a digit, ...), whitespace
  // skipped; 0 at the end of the input.
  char peek();
  // Consumes the '{' or '[' at the cursor: the members or elements follow.
  void enter();
  // In an object entered: true with the next member's key read and the cursor at its value;
  // false when the object ended (its '}' consumed).
  bool next_member(std::string& key);
  // In a list entered: true with the cursor at the next element; false when it ended.
  bool next_element();

  // The value at the cursor, whole and in place, with simdjson's padding readable after it
  // (what follows it in the window, or written padding). Valid until the next call. Text with
  // raw control bytes inside strings or bytes that are not UTF-8 comes back sanitised (a copy).
  simdjson::padded_string_view take();
  // Moves past the value at the cursor without holding it whole.
  void skip();
  // After the root value: only whitespace may follow.
  void finish();

  // 1-based line of a byte of the value last taken.
  uint64_t line_at(const char* p);
  // Lines in the input (a last line without a line end counts); after finish().
  uint64_t lines() const { return lines_total_; }
  // Bytes that were not UTF-8 and were replaced by U+FFFD, over all values taken.
  uint64_t invalid_utf8() const { return invalid_utf8_; }
  // Bytes of the input before the cursor.
  uint64_t offset() const { return bytes_ - (end_ - pos_); }
  // Bytes the window holds now (it grows only for a value longer than a chunk).
  size_t window_bytes() const { return buf_.size(); }

 private:
  struct Scan {  // where a value ends, and what its scan saw
    size_t at = 0;
    int depth = 0;
    bool in_string = false;
    bool raw_control = false;
  };

  bool fill();  // reads more; moves the window past what the cursor consumed; false at the end
  bool skip_space();
  // In the container of `kind` ('{' or '[') entered last: false when it ends (consumed);
  // otherwise the separator before the next item is read and `c` is the item's first byte.
  bool next_item(char kind, char& c);
  // Scans the value at the cursor to its end; with `keep`, the whole value stays in the window.
  Scan scan_value(bool keep);
  [[noreturn]] void fail(const std::string& reason, size_t at);
  uint64_t line_of_offset(size_t off);

  struct Open {  // a container entered
    char kind;   // '{' or '['
    bool first;  // no member or element read yet
  };

  Source source_;
  std::string path_;
  int depth_limit_;
  size_t chunk_;
  int depth_ = 0;  // containers entered
  std::vector<Open> open_;

  std::string buf_;  // the window: [0, end_) are input bytes; padding after them
  size_t end_ = 0;   // bytes of input in the window
  size_t pos_ = 0;   // the cursor
  bool eof_ = false;
  uint64_t line_base_ = 1;  // line of buf_[0]
  size_t counted_ = 0;      // newlines in [0, counted_) are in counted_line_
  uint64_t counted_line_ = 1;
  uint64_t bytes_ = 0;
  uint64_t lines_total_ = 0;
  char last_byte_ = '\n';

  // The value last taken: where it starts in the window, and its sanitised copy if any.
  size_t taken_at_ = 0;
  std::string clean_;
  uint64_t invalid_utf8_ = 0;
};

}  // namespace trtlens
