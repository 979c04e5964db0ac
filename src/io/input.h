// Reading: a path or "-" (stdin), gzip detected by its magic bytes, split into lines
// (LF, CRLF, lone CR) with ANSI escape sequences removed. Streams in large blocks: memory
// follows the longest line, not the size of the file.
#pragma once

#include <cstdint>
#include <cstring>
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
  // How logs are read (not limits, but they travel the same way): blocks of whole lines
  // screened by `threads` workers (0: one per core, 1: all on the calling thread); block size 0
  // reads line by line. In regular files of at least `file_blocks_min_bytes` each block is read by
  // the thread that screens it (see FileBlocks). Blocks of 256 KiB stay in the caches between their
  // read, their screen and their dispatch: 1 MiB took 1.06-1.20 of the CPU, 64 KiB 1.10-1.14
  // (more blocks to hand over).
  size_t log_block_bytes = size_t{256} << 10;
  unsigned threads = 0;
  size_t file_blocks_min_bytes = size_t{32} << 20;
  // Logs of at least this size search their lines for every trigger literal in one Hyperscan
  // scan: compiling the literal set takes about 2 ms, what searching 0.7 MB for them one
  // literal at a time takes.
  size_t literal_scan_min_bytes = size_t{1} << 20;
  // Called on the reading thread each time a build log is read in blocks (one of at least
  // `file_blocks_min_bytes`): the program's memory policy for a large model (see main.cc).
  void (*on_large_log)() = nullptr;
};

// A growable byte buffer that is not zero-filled on growth (blocks are read straight into it).
class ByteBlock {
 public:
  char* data() { return data_.get(); }
  const char* data() const { return data_.get(); }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  std::string_view view() const { return {data_.get(), size_}; }
  void reserve(size_t n);
  void resize(size_t n) {  // up to capacity only
    reserve(n);
    size_ = n;
  }
  void assign(std::string_view bytes) {
    resize(bytes.size());
    if (!bytes.empty()) std::memcpy(data_.get(), bytes.data(), bytes.size());
  }

 private:
  std::unique_ptr<char[]> data_;
  size_t size_ = 0, capacity_ = 0;
};

// A regular file cut into blocks of whole lines for several threads at once: block k holds the
// lines that start in [k * block, (k + 1) * block) under LineReader's rules (LF, CRLF, lone CR),
// so the thread that reads a block finds its bounds alone, from the bytes around them. Each
// thread reads its block with pread() into a buffer it reuses, not through a mapping: the copy
// lands in a cache-warm buffer, where mapping the file's pages cost a page-table entry and a TLB
// miss per page (and six times the copy on a file whose page cache was filled by writes).
class FileBlocks {
 public:
  // `fd` stays open and owned by the caller; `path` names the file in errors.
  FileBlocks(int fd, std::string path, uint64_t size, size_t block, size_t max_stretch)
      : fd_(fd), path_(std::move(path)), size_(size), block_(block), max_(max_stretch) {}
  uint64_t size() const { return size_; }
  size_t count() const { return size_t((size_ + block_ - 1) / block_); }
  struct Block {
    std::string_view bytes;  // its whole lines, in the storage (empty: none starts in its range)
    uint64_t end = 0;        // where they end in the file
    // A line starting in the block runs on for more than max_stretch bytes without a line end
    // (one huge line, a binary file): `bytes` stops before it, and the rest of the file is for a
    // LineReader, from `end`.
    bool stopped = false;
  };
  // Reads block k into `storage` (grown as needed, not shrunk). Safe on several threads at once,
  // each with its own storage. A file cut short meanwhile ends where its bytes end.
  Block block(size_t k, ByteBlock& storage) const;

 private:
  int fd_;
  std::string path_;
  uint64_t size_;
  size_t block_, max_;
};

// Decoded bytes of one input. The first block is kept so detectors can peek at it.
class InputStream {
 public:
  static std::unique_ptr<InputStream> open(const std::string& path, ReadLimits limits = {});
  // An already open file (an archive member held in memory), read from its start; takes
  // ownership of `fd`. `path` names it in errors.
  static std::unique_ptr<InputStream> open_fd(const std::string& path, int fd,
                                              ReadLimits limits = {});
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
  // The decoded size when the input is a regular uncompressed file, 0 when it is not known.
  uint64_t size_hint() const;
  // A gzip stream that ends before its end marker ends the input instead of throwing;
  // cut_short() then says so (logs keep the lines that arrived).
  void keep_cut_gzip() { keep_cut_ = true; }
  bool cut_short() const { return cut_short_; }
  // The file cut into blocks of whole lines (see FileBlocks), when it is a regular uncompressed
  // file of at least `min_size` bytes and nothing was read from it yet (peek does not count);
  // null otherwise.
  std::unique_ptr<FileBlocks> blocks(size_t min_size, size_t block, size_t max_stretch);
  // Go on reading at this byte offset (after blocks(): the rest of a file read line by line).
  void seek(uint64_t offset);

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
  ByteBlock zin_;  // compressed bytes: not zero-filled, as a small file reads little
  uint64_t total_ = 0;
  bool consumed_ = false;  // read() was called
  bool keep_cut_ = false;
  bool cut_short_ = false;
};

struct Line {
  std::string_view text;  // without the line end; ANSI escapes removed
  uint64_t number = 0;    // 1-based
  bool truncated = false;
};

class LineReader {
 public:
  explicit LineReader(InputStream& in, size_t max_line = size_t{8} << 20);
  // Continue where a BlockReader stopped: `pending` bytes come first, numbering after `lines`.
  void resume(std::string_view pending, uint64_t lines);
  bool next(Line& line);
  uint64_t lines() const { return number_; }
  // The last line read had no line end (the input stops mid-line).
  bool unterminated() const { return unterminated_; }
  // Lines longer than the limit were cut; how many.
  uint64_t truncated_lines() const { return truncated_; }

 private:
  bool fill();
  bool next_cut(Line& line);

  InputStream& in_;
  size_t max_line_;
  ByteBlock buf_;  // not zero-filled: a small input touches only what it reads
  size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  bool pending_cr_ = false;  // last block ended on '\r': a following '\n' belongs to it
  bool unterminated_ = false;
  std::string scratch_;      // ANSI-stripped copy when needed
  std::string long_;         // head of an over-long line
  uint64_t number_ = 0;
  uint64_t truncated_ = 0;
};

// Runs of whole lines read from a stream (gzip, a pipe, a small file), for reading a log on
// several threads: every block but the last ends just after a '\n', so LF, CRLF and lone CR split
// inside a block exactly as LineReader splits them. When no '\n' comes within `max_stretch`
// bytes (one huge line, a CR-only file) block mode stops; resume_lines() then sets up a
// LineReader for the rest.
class BlockReader {
 public:
  BlockReader(InputStream& in, size_t block_bytes, size_t max_stretch);
  // The next block, read into `storage` (whose buffer is reused). False at the end or on stop.
  bool next(ByteBlock& storage, std::string_view& out);
  bool stopped() const { return stopped_; }
  // The block next() gave last was the input's last.
  bool at_end() const { return eof_; }
  // After a stop: `lines` continues where block mode ended, numbering after `lines_before`.
  void resume_lines(LineReader& lines, uint64_t lines_before);

 private:
  InputStream& in_;
  size_t block_, max_;
  ByteBlock carry_;  // the unfinished line after the last block's final '\n'
  bool eof_ = false;
  bool stopped_ = false;
};

// One line of a block from `pos` under LineReader's rules (the last line of the input may lack
// its end); `text` is cut to `max_line` bytes. False at the end of the block.
struct BlockLine {
  std::string_view text;
  size_t next = 0;  // where the following line starts
  bool truncated = false;
};
bool block_line(std::string_view block, size_t pos, bool has_cr, size_t max_line, BlockLine& out);

// Removes CSI / OSC / two-byte ESC sequences (progress bars: "ESC[0G ESC[2K").
std::string_view strip_ansi(std::string_view text, std::string& scratch);

}  // namespace trtlens
