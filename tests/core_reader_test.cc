// The streaming reader at its edges: line ends that straddle the 1 MiB read blocks, lone CRs,
// over-long lines, ANSI sequences, gzip members, stdin-sized memory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "io/input.h"
#include "test_support.h"

namespace trtlens::test {
namespace {

class TempFile {
 public:
  explicit TempFile(const std::string& bytes) {
    char tmpl[] = "/tmp/trtlens-reader-XXXXXX";
    int fd = mkstemp(tmpl);
    path_ = tmpl;
    ::close(fd);
    std::ofstream(path_, std::ios::binary) << bytes;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::vector<std::string> read_lines(const std::string& path, size_t max_line = size_t{8} << 20,
                                    uint64_t* truncated = nullptr) {
  auto in = InputStream::open(path);
  in->peek(8192);  // as the loader does before reading
  LineReader r(*in, max_line);
  std::vector<std::string> out;
  Line l;
  while (r.next(l)) out.emplace_back(l.text);
  if (truncated) *truncated = r.truncated_lines();
  return out;
}

constexpr size_t kMiB = size_t{1} << 20;

TEST(CoreReader, CrlfStraddlingTheBlockBoundary) {
  // "\r" is the last byte of the first 1 MiB block, "\n" the first of the next.
  std::string first(kMiB - 1, 'a');
  TempFile f(first + "\r\nsecond\r\n\r\nfourth");
  auto lines = read_lines(f.path());
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], first);
  EXPECT_EQ(lines[1], "second");
  EXPECT_EQ(lines[2], "");
  EXPECT_EQ(lines[3], "fourth");
}

TEST(CoreReader, LoneCrAtTheBlockBoundary) {
  std::string first(kMiB - 1, 'b');
  TempFile f(first + "\rnext\rlast\r");
  auto lines = read_lines(f.path());
  EXPECT_EQ(lines, (std::vector<std::string>{first, "next", "last"}));
}

TEST(CoreReader, ManyBlocksOfMixedLineEnds) {
  // 3 MiB of numbered lines with LF, CRLF and CR in turn: every line comes back once, in order.
  std::string text;
  const char* ends[] = {"\n", "\r\n", "\r"};
  int n = 0;
  while (text.size() < 3 * kMiB) {
    text += "[V] [TRT] line " + std::to_string(n) + std::string(size_t(n % 151), 'x') + ends[n % 3];
    ++n;
  }
  TempFile f(text);
  auto lines = read_lines(f.path());
  ASSERT_EQ(lines.size(), size_t(n));
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(lines[size_t(i)], "[V] [TRT] line " + std::to_string(i) + std::string(size_t(i % 151), 'x'));
}

TEST(CoreReader, OverLongLinesAreCutAndCounted) {
  std::string huge(3 * kMiB + 17, 'z');
  TempFile f("before\n" + huge + "\nafter\n");
  uint64_t truncated = 0;
  auto lines = read_lines(f.path(), kMiB, &truncated);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "before");
  EXPECT_EQ(lines[1], std::string(kMiB, 'z'));
  EXPECT_EQ(lines[2], "after");
  EXPECT_EQ(truncated, 1u);
}

TEST(CoreReader, AnsiSequencesRemoved) {
  std::string scratch;
  EXPECT_EQ(strip_ansi("\x1b[0G\x1b[2K[V] \x1b[1;36mtext\x1b[0m", scratch), "[V] text");
  EXPECT_EQ(strip_ansi("\x1b]0;title\x07rest", scratch), "rest");
  EXPECT_EQ(strip_ansi("no escapes \xff\xfe", scratch), "no escapes \xff\xfe");
  EXPECT_EQ(strip_ansi("cut at the end \x1b", scratch), "cut at the end ");
}

TEST(CoreReader, ConcatenatedGzipMembers) {
  TempFile f(gzip_bytes("one\ntwo\n") + gzip_bytes("three\r\nfour"));
  auto in = InputStream::open(f.path());
  EXPECT_TRUE(in->gzip());
  auto lines = read_lines(f.path());
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two", "three", "four"}));
}

TEST(CoreReader, CorruptAndTruncatedGzipAreInputErrors) {
  std::string gz = gzip_bytes(std::string(100000, 'q') + "\n");
  TempFile cut(gz.substr(0, gz.size() / 2));
  EXPECT_THROW(read_lines(cut.path()), InputError);
  std::string bad = gz;
  for (size_t i = 20; i < 60 && i < bad.size(); ++i) bad[i] = char(bad[i] ^ 0x5a);
  TempFile corrupt(bad);
  EXPECT_THROW(read_lines(corrupt.path()), InputError);
  // The CLI keeps what a cut log delivered (here nothing TensorRT wrote) and says so.
  RunResult r = run_trtlens("summary " + shell_quote(cut.path()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("trtlens: " + cut.path() + ": no TensorRT output recognised\n"),
            std::string::npos) << r.err;
}

// A file's blocks, each read alone with the bytes around its range, tile the file: joined
// they are the file, and each ends where LineReader ends a line (after LF, CRLF or a lone CR,
// never between the CR and LF of a CRLF). A line longer than the stretch stops them at its start.
TEST(CoreReader, FileBlocksTileTheFileAtLineEnds) {
  std::string text;
  static const char* ends[] = {"\n", "\r\n", "\r", "\r\r\n", "\n\n", "\r\r"};
  for (int i = 0; i < 60; ++i) text += std::string(size_t(i % 23), char('a' + i % 26)) + ends[i % 6];
  text += "last line without an end";
  TempFile f(text);
  for (size_t block : {size_t(1), size_t(2), size_t(3), size_t(7), size_t(16), size_t(61),
                       size_t(4096)}) {
    SCOPED_TRACE("block " + std::to_string(block));
    auto in = InputStream::open(f.path());
    in->peek(8192);
    auto blocks = in->blocks(1, block, 64);
    ASSERT_TRUE(blocks);
    std::string joined;
    ByteBlock storage;
    for (size_t k = 0; k < blocks->count(); ++k) {
      const FileBlocks::Block b = blocks->block(k, storage);
      EXPECT_FALSE(b.stopped);
      EXPECT_LE(b.end, text.size());
      if (b.bytes.empty()) continue;
      EXPECT_EQ(b.end, joined.size() + b.bytes.size());
      joined += b.bytes;
      const size_t end = joined.size();
      if (end == text.size()) continue;
      const char last = text[end - 1];
      EXPECT_TRUE(last == '\n' || (last == '\r' && text[end] != '\n')) << "block " << k;
    }
    EXPECT_EQ(joined, text);
  }

  // Line 3 is 100 bytes without an end, more than the 64-byte stretch.
  const std::string head = "one\ntwo\r\n";
  TempFile g(head + std::string(100, 'x') + "\nfour\n");
  for (size_t block : {size_t(1), size_t(4), size_t(11), size_t(16)}) {
    SCOPED_TRACE("block " + std::to_string(block));
    auto in = InputStream::open(g.path());
    auto blocks = in->blocks(1, block, 64);
    ASSERT_TRUE(blocks);
    std::string joined;
    bool stopped = false;
    ByteBlock storage;
    for (size_t k = 0; k < blocks->count() && !stopped; ++k) {
      const FileBlocks::Block b = blocks->block(k, storage);
      joined += b.bytes;
      stopped = b.stopped;
      if (stopped) EXPECT_EQ(b.end, head.size());
    }
    EXPECT_TRUE(stopped);
    EXPECT_EQ(joined, head);
  }
}

// Blocks are read, not mapped: a file cut short while it is read ends where its bytes end, with
// no fault and no block past the cut.
TEST(CoreReader, FileBlocksOfAFileCutShortEndWhereItsBytesEnd) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += "line " + std::to_string(i) + "\n";
  TempFile f(text);
  auto in = InputStream::open(f.path());
  auto blocks = in->blocks(1, 64, 256);
  ASSERT_TRUE(blocks);
  const size_t cut = text.size() / 2 + 3;  // mid-line
  ASSERT_EQ(::truncate(f.path().c_str(), off_t(cut)), 0);
  std::string joined;
  ByteBlock storage;
  for (size_t k = 0; k < blocks->count(); ++k) {
    const FileBlocks::Block b = blocks->block(k, storage);
    EXPECT_FALSE(b.stopped);
    joined += b.bytes;
    if (!b.bytes.empty()) EXPECT_EQ(b.end, joined.size());
  }
  EXPECT_EQ(joined, text.substr(0, cut));
}

}  // namespace
}  // namespace trtlens::test
