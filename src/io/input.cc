#include "io/input.h"

#include <fcntl.h>
#include <string.h>  // memrchr
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "io/library.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace trtlens {
namespace {

constexpr size_t kBlock = size_t{1} << 20;
constexpr size_t kPeekStep = size_t{64} << 10;

// zlib is opened by the first gzip input, not linked: most inputs are plain text, and its
// loading cost every run a few percent of trtlens's start-up.
struct Zlib {
  decltype(&::inflateInit2_) init = nullptr;
  decltype(&::inflate) inflate = nullptr;
  decltype(&::inflateReset) reset = nullptr;
  decltype(&::inflateEnd) end = nullptr;
  std::string missing;
};

const Zlib& zlib(const std::string& path) {
  static const Zlib z = [] {
    static Library lib(TRTLENS_ZLIB_SONAME);
    Zlib z;
    if (!lib.get(z.init, "inflateInit2_") || !lib.get(z.inflate, "inflate") ||
        !lib.get(z.reset, "inflateReset") || !lib.get(z.end, "inflateEnd"))
      z.missing = lib.error();
    return z;
  }();
  if (!z.missing.empty())
    throw InputError(path, "reading gzip needs zlib (" TRTLENS_ZLIB_SONAME "): " + z.missing);
  return z;
}

std::string errno_reason() {
  switch (errno) {
    case ENOENT: return "no such file";
    case EACCES: return "permission denied";
    case EISDIR: return "is a directory";
    default: return std::strerror(errno);
  }
}

// The first '\n' or '\r' in [p, end), or `end`. libc has no two-byte memchr, and two memchr
// calls are quadratic on CR-only text (the '\n' search runs to the end of the buffer for every
// line); one pass finds either byte at memchr's speed.
const char* find_eol(const char* p, const char* end) {
#ifdef __SSE2__
  const __m128i nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
  for (; end - p >= 16; p += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const int m = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, nl), _mm_cmpeq_epi8(v, cr)));
    if (m) return p + __builtin_ctz(unsigned(m));
  }
#endif
  for (; p < end; ++p)
    if (*p == '\n' || *p == '\r') return p;
  return end;
}

// Where a block of `n` bytes may be cut: after its last '\n', else (CR-only text) after its last
// '\r' that is not the final byte (a '\n' may follow in the next read). 0 when neither.
size_t cut_after_last_eol(const char* p, size_t n) {
  if (const void* nl = memrchr(p, '\n', n)) return size_t(static_cast<const char*>(nl) - p) + 1;
  if (n < 2) return 0;
  if (const void* cr = memrchr(p, '\r', n - 1)) return size_t(static_cast<const char*>(cr) - p) + 1;
  return 0;
}

}  // namespace

std::unique_ptr<InputStream> InputStream::open(const std::string& path, ReadLimits limits) {
  if (path == "-") return std::unique_ptr<InputStream>(new InputStream("-", 0, false, limits));
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw InputError(path, errno_reason());
  if (S_ISDIR(st.st_mode)) throw InputError(path, "is a directory");
  // A FIFO with no writer would block open() forever: open it without waiting, then read it
  // normally (with no writer attached, reading ends at once).
  const bool fifo = S_ISFIFO(st.st_mode);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (fifo ? O_NONBLOCK : 0));
  if (fd < 0) throw InputError(path, errno_reason());
  if (fifo) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return std::unique_ptr<InputStream>(new InputStream(path, fd, true, limits));
}

std::unique_ptr<InputStream> InputStream::open_fd(const std::string& path, int fd,
                                                  ReadLimits limits) {
  if (::lseek(fd, 0, SEEK_SET) < 0) {
    const std::string why = errno_reason();
    ::close(fd);
    throw InputError(path, why);
  }
  return std::unique_ptr<InputStream>(new InputStream(path, fd, true, limits));
}

InputStream::InputStream(std::string path, int fd, bool owns_fd, ReadLimits limits)
    : path_(std::move(path)), fd_(fd), owns_fd_(owns_fd), limits_(limits) {
  raw_head_.resize(2);
  size_t got = 0;
  while (got < 2) {
    ssize_t n = ::read(fd_, raw_head_.data() + got, 2 - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(path_, errno_reason());
    if (n == 0) {
      eof_raw_ = true;
      break;
    }
    got += size_t(n);
  }
  raw_head_.resize(got);
  gzip_ = got == 2 && uint8_t(raw_head_[0]) == 0x1f && uint8_t(raw_head_[1]) == 0x8b;
  if (gzip_) {
    if (zlib(path_).init(&zs_, 15 + 32, ZLIB_VERSION, int(sizeof(z_stream))) != Z_OK)
      throw InputError(path_, "cannot start gzip decoder");
    z_init_ = true;
    zin_.resize(kBlock);
  }
}

InputStream::~InputStream() {
  if (z_init_) zlib(path_).end(&zs_);
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
}

size_t InputStream::read_raw(char* buf, size_t n) {
  size_t out = 0;
  if (raw_head_pos_ < raw_head_.size()) {
    size_t k = std::min(n, raw_head_.size() - raw_head_pos_);
    std::memcpy(buf, raw_head_.data() + raw_head_pos_, k);
    raw_head_pos_ += k;
    out += k;
  }
  while (out < n && !eof_raw_) {
    ssize_t r = ::read(fd_, buf + out, n - out);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw InputError(path_, errno_reason());
    if (r == 0) {
      eof_raw_ = true;
      break;
    }
    out += size_t(r);
    if (out > 0) break;  // return what we have; callers loop
  }
  return out;
}

size_t InputStream::read_decoded(char* buf, size_t n) {
  size_t got;
  if (!gzip_) {
    got = read_raw(buf, n);
  } else {
    zs_.next_out = reinterpret_cast<Bytef*>(buf);
    zs_.avail_out = uInt(n);
    while (zs_.avail_out == n) {
      if (zs_.avail_in == 0) {
        size_t r = read_raw(zin_.data(), zin_.size());
        if (r == 0) {
          if (!z_end_) {
            if (!keep_cut_) throw InputError(path_, "truncated gzip stream");
            cut_short_ = true;
          }
          break;
        }
        zs_.next_in = reinterpret_cast<Bytef*>(zin_.data());
        zs_.avail_in = uInt(r);
        if (z_end_) {  // another member follows (gzip a >> f; gzip b >> f)
          zlib(path_).reset(&zs_);
          z_end_ = false;
        }
      }
      int rc = zlib(path_).inflate(&zs_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        z_end_ = true;
        if (zs_.avail_in > 0) {
          zlib(path_).reset(&zs_);
          z_end_ = false;
        }
        continue;
      }
      if (rc != Z_OK && rc != Z_BUF_ERROR) throw InputError(path_, "corrupt gzip data");
    }
    got = n - zs_.avail_out;
  }
  total_ += got;
  if (total_ > limits_.max_input_bytes)
    throw InputError(path_, "decoded input exceeds " + std::to_string(limits_.max_input_bytes) +
                                " bytes (raise --max-input-size)");
  return got;
}

std::string_view InputStream::peek(size_t n) {
  while (head_.size() - head_pos_ < n) {
    // No more than asked for, 64 KiB at a time: resize() writes every byte it adds, and a whole
    // block for the 8 KiB the detector looks at cost a small input 256 page faults.
    const size_t want = std::min(n - (head_.size() - head_pos_), kPeekStep);
    size_t old = head_.size();
    head_.resize(old + want);
    size_t got = read_decoded(head_.data() + old, want);
    head_.resize(old + got);
    if (got == 0) break;
  }
  return std::string_view(head_).substr(head_pos_, n);
}

size_t InputStream::read(char* buf, size_t n) {
  consumed_ = true;
  if (head_pos_ < head_.size()) {
    size_t k = std::min(n, head_.size() - head_pos_);
    std::memcpy(buf, head_.data() + head_pos_, k);
    head_pos_ += k;
    if (head_pos_ == head_.size()) {
      head_.clear();
      head_.shrink_to_fit();
      head_pos_ = 0;
    }
    return k;
  }
  return read_decoded(buf, n);
}

std::string InputStream::read_all() {
  std::string out;
  char buf[1 << 16];
  while (size_t n = read(buf, sizeof buf)) out.append(buf, n);
  return out;
}

std::string_view strip_ansi(std::string_view text, std::string& scratch) {
  if (text.find('\x1b') == std::string_view::npos) return text;
  scratch.clear();
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (c != '\x1b') {
      scratch.push_back(c);
      ++i;
      continue;
    }
    if (i + 1 >= text.size()) break;
    char kind = text[i + 1];
    if (kind == '[') {  // CSI: parameters, then one final byte in 0x40..0x7e
      size_t j = i + 2;
      while (j < text.size() && !(text[j] >= 0x40 && text[j] <= 0x7e)) ++j;
      i = j + 1;
    } else if (kind == ']') {  // OSC: up to BEL or ESC '\'
      size_t j = i + 2;
      while (j < text.size() && text[j] != '\x07' &&
             !(text[j] == '\x1b' && j + 1 < text.size() && text[j + 1] == '\\'))
        ++j;
      i = (j < text.size() && text[j] == '\x07') ? j + 1 : j + 2;
    } else {
      i += 2;
    }
  }
  return scratch;
}

LineReader::LineReader(InputStream& in, size_t max_line) : in_(in), max_line_(max_line) {
  buf_.resize(kBlock);
}

void LineReader::resume(std::string_view pending, uint64_t lines) {
  if (buf_.size() < pending.size() + kBlock) buf_.resize(pending.size() + kBlock);
  if (!pending.empty()) std::memcpy(buf_.data(), pending.data(), pending.size());
  begin_ = 0;
  end_ = pending.size();
  number_ = lines;
}

bool LineReader::fill() {
  // Keep the unfinished line; grow only while a single line is longer than the buffer.
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buf_.size()) buf_.resize(buf_.size() * 2);
  size_t got = in_.read(buf_.data() + end_, buf_.size() - end_);
  if (got == 0) {
    eof_ = true;
    return false;
  }
  end_ += got;
  return true;
}

bool LineReader::next_cut(Line& line) {
  // Keep the first max_line_ bytes of an over-long line and skip the rest of it.
  long_.assign(buf_.data() + begin_, max_line_);
  for (;;) {
    begin_ = end_ = 0;
    if (!fill()) break;
    const char* b = buf_.data();
    const char* p = static_cast<const char*>(std::memchr(b, '\n', end_));
    const char* q = static_cast<const char*>(std::memchr(b, '\r', end_));
    const char* hit = (p && q) ? std::min(p, q) : (p ? p : q);
    if (!hit) continue;
    begin_ = size_t(hit - b) + 1;
    if (*hit == '\r') {
      if (begin_ < end_) {
        if (b[begin_] == '\n') ++begin_;
      } else {
        pending_cr_ = true;
      }
    }
    break;
  }
  ++number_;
  ++truncated_;
  line.text = strip_ansi(long_, scratch_);
  line.number = number_;
  line.truncated = true;
  return true;
}

bool LineReader::next(Line& line) {
  line.truncated = false;
  size_t scan_from = begin_;
  for (;;) {
    const char* base = buf_.data();
    if (pending_cr_ && begin_ < end_) {
      pending_cr_ = false;
      if (base[begin_] == '\n') {
        ++begin_;
        scan_from = begin_;
        continue;
      }
    }
    const char* start = base + scan_from;
    size_t avail = end_ - scan_from;
    const char* eol = find_eol(start, start + avail);
    const bool found = eol != start + avail;
    if (found) {
      size_t line_end = scan_from + size_t(eol - start);
      size_t next = line_end + 1;
      if (*eol == '\r') {
        if (next < end_) {
          if (base[next] == '\n') ++next;
        } else {
          pending_cr_ = true;
        }
      }
      std::string_view text(base + begin_, line_end - begin_);
      begin_ = next;
      ++number_;
      if (text.size() > max_line_) {
        text = text.substr(0, max_line_);
        line.truncated = true;
        ++truncated_;
      }
      line.text = strip_ansi(text, scratch_);
      line.number = number_;
      return true;
    }
    // No line end in the buffer: read more, unless this line is already too long.
    if (end_ - begin_ > max_line_) return next_cut(line);
    scan_from = end_;
    size_t offset = scan_from - begin_;
    if (!fill()) {
      if (end_ > begin_) {
        std::string_view text(buf_.data() + begin_, end_ - begin_);
        begin_ = end_;
        ++number_;
        unterminated_ = true;
        line.text = strip_ansi(text, scratch_);
        line.number = number_;
        return true;
      }
      return false;
    }
    scan_from = begin_ + offset;
  }
}

}  // namespace trtlens

namespace trtlens {

void ByteBlock::reserve(size_t n) {
  if (n <= capacity_) return;
  size_t cap = std::max(n, capacity_ + capacity_ / 2);
  std::unique_ptr<char[]> grown(new char[cap]);
  if (size_) std::memcpy(grown.get(), data_.get(), size_);
  data_ = std::move(grown);
  capacity_ = cap;
}

uint64_t InputStream::size_hint() const {
  struct stat st {};
  if (gzip_ || ::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) return 0;
  return uint64_t(st.st_size);
}

std::unique_ptr<FileBlocks> InputStream::blocks(size_t min_size, size_t block,
                                                size_t max_stretch) {
  if (gzip_ || consumed_ || !owns_fd_) return nullptr;
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) return nullptr;
  const uint64_t size = uint64_t(st.st_size);
  if (size < min_size) return nullptr;
  if (size > limits_.max_input_bytes)
    throw InputError(path_, "decoded input exceeds " + std::to_string(limits_.max_input_bytes) +
                                " bytes (raise --max-input-size)");
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  block = std::max<size_t>(block, 1);
  return std::make_unique<FileBlocks>(fd_, path_, size, block, std::max(max_stretch, block));
}

void InputStream::seek(uint64_t offset) {
  if (gzip_ || ::lseek(fd_, off_t(offset), SEEK_SET) < 0)
    throw InputError(path_, "cannot seek: " + errno_reason());
  head_.clear();
  head_pos_ = 0;
  raw_head_.clear();
  raw_head_pos_ = 0;
  eof_raw_ = false;
  total_ = offset;
  consumed_ = true;
}

FileBlocks::Block FileBlocks::block(size_t k, ByteBlock& storage) const {
  constexpr uint64_t kNone = UINT64_MAX;
  // Bytes past the block's range read with it: most blocks find their last line's end in them.
  constexpr uint64_t kSlack = 4096;
  Block out;
  const uint64_t a = uint64_t(k) * block_;
  out.end = std::min(a, size_);
  if (a >= size_) return out;
  // storage holds the file's bytes [origin, origin + storage.size()), from the byte before the
  // range (does a line start at `a`?).
  const uint64_t origin = a > 0 ? a - 1 : 0;
  uint64_t size = size_;  // less when the file was cut short meanwhile
  storage.resize(0);
  auto have = [&] { return origin + storage.size(); };
  auto fill = [&](uint64_t to) {  // read up to `to` (or the file's end)
    to = std::min(to, size);
    if (to <= have()) return;
    storage.reserve(size_t(to - origin));
    while (have() < to) {
      const size_t old = storage.size();
      const ssize_t got = ::pread(fd_, storage.data() + old, size_t(to - have()), off_t(have()));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw InputError(path_, "read failed: " + errno_reason());
      if (got == 0) {
        size = have();
        return;
      }
      storage.resize(old + size_t(got));
    }
  };
  auto at = [&](uint64_t q) { return storage.data()[q - origin]; };
  // Where the line after the first line end in [from, to) starts, or kNone; reads as it goes.
  auto after_eol = [&](uint64_t from, uint64_t to) {
    for (uint64_t step = kSlack;;) {
      const uint64_t upto = std::min(to, have());
      const char* p = storage.data() + (from - origin);
      const char* eol = find_eol(p, storage.data() + (upto - origin));
      if (eol != storage.data() + (upto - origin)) {
        uint64_t next = origin + uint64_t(eol - storage.data()) + 1;
        fill(next + 1);  // the '\n' of a CRLF
        if (at(next - 1) == '\r' && next < have() && at(next) == '\n') ++next;
        return next;
      }
      if (upto >= to || have() >= size) return kNone;
      from = upto;
      fill(std::min(to, have() + step) + 1);
      step *= 2;
    }
  };
  const uint64_t e = std::min<uint64_t>(a + block_, size_);
  fill(e + kSlack);
  if (have() <= a) return out;  // cut short before the block
  // A line starts at `a` when the bytes before it end one: look from the byte before.
  uint64_t start = 0;
  if (a > 0) {
    start = after_eol(a - 1, std::min(e, have()));
    if (start == kNone || start >= e) return out;
  }
  // The block ends where the next one starts.
  uint64_t end = have();
  if (e < size) {
    const uint64_t limit = std::min<uint64_t>(size_, e + max_);
    end = after_eol(e - 1, limit);
    if (end == kNone && limit < size) {
      // The line crossing e is too long for a block: the block stops where it starts.
      end = start;
      for (uint64_t q = e - 1; q > start; --q)
        if (at(q - 1) == '\n' || at(q - 1) == '\r') {
          end = q;
          break;
        }
      out.stopped = true;
    } else if (end == kNone) {
      end = have();
    }
  }
  out.bytes = std::string_view(storage.data() + (start - origin), size_t(end - start));
  out.end = end;
  return out;
}

BlockReader::BlockReader(InputStream& in, size_t block_bytes, size_t max_stretch)
    : in_(in), block_(std::max<size_t>(block_bytes, 1)), max_(std::max(max_stretch, block_)) {}

void BlockReader::resume_lines(LineReader& lines, uint64_t lines_before) {
  lines.resume(carry_.view(), lines_before);
}

bool BlockReader::next(ByteBlock& storage, std::string_view& view) {
  if (stopped_) return false;
  ByteBlock& out = storage;  // the stream's bytes are copied in
  out.assign(carry_.view());
  size_t scanned = 0;  // bytes of `out` known to hold no '\n'
  for (size_t want = std::max(block_, out.size() + block_ / 2);;) {
    while (!eof_ && out.size() < want) {
      size_t old = out.size();
      out.resize(want);
      size_t got = in_.read(out.data() + old, want - old);
      out.resize(old + got);
      if (got == 0) eof_ = true;
    }
    if (eof_) {
      carry_.resize(0);
      view = out.view();
      return out.size() > 0;
    }
    if (size_t at = cut_after_last_eol(out.data() + scanned, out.size() - scanned)) {
      size_t cut = scanned + at;
      carry_.assign(out.view().substr(cut));
      out.resize(cut);
      view = out.view();
      return true;
    }
    scanned = out.size();
    if (out.size() >= max_) {
      stopped_ = true;
      carry_.assign(out.view());
      out.resize(0);
      return false;
    }
    want = std::min(max_, out.size() + block_);
  }
}

bool block_line(std::string_view block, size_t pos, bool has_cr, size_t max_line, BlockLine& out) {
  if (pos >= block.size()) return false;
  const char* start = block.data() + pos;
  size_t avail = block.size() - pos;
  size_t stop, next;
  if (has_cr) {
    const char* eol = find_eol(start, start + avail);
    stop = size_t(eol - start);
    next = pos + stop + (stop < avail ? 1 : 0);
    if (stop < avail && *eol == '\r' && next < block.size() && block[next] == '\n') ++next;
  } else {
    const void* nl = std::memchr(start, '\n', avail);
    stop = nl ? size_t(static_cast<const char*>(nl) - start) : avail;
    next = pos + stop + (nl ? 1 : 0);
  }
  out.text = std::string_view(start, stop);
  out.truncated = stop > max_line;
  if (out.truncated) out.text = out.text.substr(0, max_line);
  out.next = next;
  return true;
}

}  // namespace trtlens
