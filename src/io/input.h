// Reading: a path or "-" (stdin), gzip detected by its magic bytes, split into lines
// (LF, CRLF, lone CR) with ANSI escape sequences removed. Streams in large blocks: memory
// follows the longest line, not the size of the file.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <zlib.h>

namespace trtlens {

// "trtlens: PATH: <reason>" material; the CLI adds the prefix.
class InputError : public std::runtime_error {
 public:
  InputError(std::string path, std::string reason)
      : std::runtime_error(path + ": " + reason), path_(std::move(path)), reason_(std::move(reason)) {}
  const std::string& path() const { return path_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string path_;
  std::string reason_;
};

struct ReadLimits {
  uint64_t max_input_bytes = uint64_t{16} << 30;  // decoded bytes (gzip bombs)
  size_t max_line_bytes = size_t{8} << 20;        // longer lines are cut, with a note
};

// Decoded bytes of one input. The first block is kept so detectors can peek at it.
class InputStream {
 public:
  static std::unique_ptr<InputStream> open(const std::string& path, ReadLimits limits = {});
  ~InputStream();
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;

  const std::string& path() const { return path_; }
  bool gzip() const { return gzip_; }
  // Up to n decoded bytes from the start, without consuming them.
  std::string_view peek(size_t n);
  // Next decoded bytes; 0 at the end.
  size_t read(char* buf, size_t n);
  // Whole remaining content (for small JSON inputs).
  std::string read_all();
  uint64_t bytes_read() const { return total_; }

 private:
  InputStream(std::string path, int fd, bool owns_fd, ReadLimits limits);
  size_t read_raw(char* buf, size_t n);
  size_t read_decoded(char* buf, size_t n);

  std::string path_;
  int fd_ = -1;
  bool owns_fd_ = false;
  bool gzip_ = false;
  bool eof_raw_ = false;
  ReadLimits limits_;
  std::string head_;     // decoded bytes peeked but not yet consumed
  size_t head_pos_ = 0;
  std::string raw_head_; // raw bytes read while sniffing the magic
  size_t raw_head_pos_ = 0;
  z_stream zs_{};
  bool z_init_ = false;
  bool z_end_ = false;
  std::vector<unsigned char> zin_;
  uint64_t total_ = 0;
};

struct Line {
  std::string_view text;  // without the line end; ANSI escapes removed
  uint64_t number = 0;    // 1-based
  bool truncated = false;
};

class LineReader {
 public:
  explicit LineReader(InputStream& in, size_t max_line = size_t{8} << 20);
  bool next(Line& line);
  uint64_t lines() const { return number_; }
  // Lines longer than the limit were cut; how many.
  uint64_t truncated_lines() const { return truncated_; }

 private:
  bool fill();
  bool next_cut(Line& line);

  InputStream& in_;
  size_t max_line_;
  std::vector<char> buf_;
  size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  bool pending_cr_ = false;  // last block ended on '\r': a following '\n' belongs to it
  std::string scratch_;      // ANSI-stripped copy when needed
  std::string long_;         // head of an over-long line
  uint64_t number_ = 0;
  uint64_t truncated_ = 0;
};

// Removes CSI / OSC / two-byte ESC sequences (progress bars: "ESC[0G ESC[2K").
std::string_view strip_ansi(std::string_view text, std::string& scratch);

}  // namespace trtlens
