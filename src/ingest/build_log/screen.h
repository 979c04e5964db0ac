// The stateless half of reading a log, safe on several threads at once: log prefixes are
// stripped and each line is matched against the sections' trigger patterns. The driver keeps
// the stateful half (which section is open) on one thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ingest/build_log/section.h"
#include "io/input.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

struct hs_database;
struct hs_scratch;

namespace trtlens {

struct Trigger {
  LogSection* section;
  size_t which;  // index into section->triggers()
  const GrammarPattern* pattern;
};

// A block of whole lines after screening: the lines a trigger matched, in order.
struct ScreenedBlock {
  struct Hit {
    uint32_t offset;  // where the line starts in `bytes`
    uint32_t line;    // its index in the block
    uint32_t trigger;
    uint32_t length;  // the line's, without its line end (so the driver need not look for it)
    uint32_t next;    // where the line after it starts
    // The trigger's position reader's captures (LogLine::captured), as offsets into the
    // message, which starts `message` bytes into the line.
    uint32_t message = 0;
    uint32_t captured_at[2] = {0, 0}, captured_size[2] = {0, 0};
    uint8_t captures = 0;
  };
  std::string_view bytes;  // whole lines, in `storage`
  ByteBlock storage;
  // In a file read in blocks (FileBlocks): which block, where its lines end in the file, and
  // whether a line too long for a block follows them.
  size_t index = 0;
  uint64_t end_offset = 0;
  bool stopped = false;
  bool has_cr = false;    // a '\r' somewhere: lines may end in CR or CRLF
  bool has_esc = false;   // an ESC somewhere: ANSI sequences to remove
  uint64_t lines = 0;
  uint64_t recognized = 0;  // lines with a log prefix or a trigger match
  std::vector<Hit> hits;
  // Runs of consecutive lines the body section reads (LogSection::body_line), with their values.
  // Body lines are not hits, but the lines the body section's shortcut read were not matched
  // against the triggers either (a tactic line almost always has its timing block open): such a
  // run (not `checked`), when the open body section does not take it whole, is read line by
  // line and matched then.
  struct Body {
    uint32_t offset;       // where the first line starts
    uint32_t line;         // its index in the block
    uint32_t count;        // lines in the run
    uint32_t next;         // where the line after the run starts
    uint32_t values_at;    // index of the first value in `values`
    uint32_t value_count;  // values of the run (lines taken silently have none)
    uint32_t unprefixed;   // lines of the run without a log prefix (not yet counted as recognized)
    bool checked;          // every line of the run was matched against the triggers
    bool closes = false;   // its last line is a LogSection::Body::Closing one
  };
  std::vector<Body> bodies;
  std::vector<uint64_t> values;
  // The other lines the screen read whole (no trigger, no body line), for an open section:
  // where each starts, its length without the line end, where the next starts, and whether the
  // body section refuses it (LogSection::refuses).
  struct Other {
    uint32_t offset, length, next;
    bool refused;
  };
  std::vector<Other> others;
  std::vector<uint32_t> truncated;  // indexes of lines cut at the line limit
  // Set by the worker pool under its lock.
  bool screened = false;
  std::exception_ptr error;
};

// Aligned to a cache line of its own: the screening threads read it on every line, and a
// neighbour the dispatching thread writes (the driver's state beside it on that thread's stack)
// would take the line away from them at each write.
class alignas(kCacheLine) LogScreen {
 public:
  LogScreen(const Grammar& grammar, const std::vector<std::unique_ptr<LogSection>>& sections);
  ~LogScreen();
  LogScreen(const LogScreen&) = delete;
  LogScreen& operator=(const LogScreen&) = delete;

  // A line of text (ANSI already removed) with its prefixes stripped from `message`.
  LogLine line(std::string_view text, uint64_t number) const;
  // The trigger matching line.message, or -1.
  int match(const LogLine& line) const;
  const Trigger& trigger(int i) const { return triggers_[size_t(i)]; }
  // The section whose body lines screen() reads ahead, or null.
  LogSection* body_section() const { return body_; }
  // Splits, strips and matches every line of `b.bytes`.
  void screen(ScreenedBlock& b, size_t max_line) const;
  // Searches a message for every trigger literal in one Hyperscan scan once the literal set is
  // compiled (only long logs ask: see ReadLimits::literal_scan_min_bytes), instead of one search
  // per literal. enable_literal_scan() compiles it here; start_literal_scan() on a thread of its
  // own, while blocks are screened with the searches per literal (both give the same results),
  // so the compile is off the reading's critical path. literal_scan(): whether it is on
  // (without Hyperscan it stays off).
  // Both take the build's database of the built-in literals when it holds every literal of the
  // grammar (`embedded`: the tests may ask for a compile instead), and compile otherwise.
  void enable_literal_scan(bool embedded = true);
  void start_literal_scan();
  bool literal_scan() const { return literal_scan_.load(std::memory_order_acquire) != nullptr; }
  bool literal_scan_embedded() const { return literal_scan() && embedded_; }
  // Whether the body section's shortcut is in use (see LogSection::fast_body).
  bool body_shortcut() const { return fast_read_ != nullptr; }
  // Whether blocks screened from now on match body lines against the triggers too. The driver
  // turns it off once an open body section takes most body lines whole (a verbose log's tactic
  // lines sit in their timing blocks), and on when it does not (a log of tactic lines alone),
  // so that it need not match them itself on its one thread. It starts on: the blocks in
  // flight before the first answer are then matched on the workers. Either way the result is
  // the same.
  void check_body_lines(bool on) const { check_body_.store(on, std::memory_order_relaxed); }

 private:
  struct Prefix {
    const GrammarPattern* pattern;
    bool severity;  // captures the severity (letter or word)
    bool blank;     // leading blanks: not a log prefix
  };
  void strip(LogLine& line) const;
  // A trigger as the hot loop sees it: the first (up to) 8 bytes of its literal prefix as a
  // word and a mask, so most candidates are rejected without a call.
  struct Candidate {
    std::string prefix;  // the pattern's literal prefix, or one of its "# starts:" literals
    uint64_t word = 0, mask = 0;
    uint32_t trigger = 0;
    const GrammarPattern* pattern = nullptr;
    std::vector<uint32_t> literals;             // "# contains:" literals, as indexes into literals_
    uint64_t literal_bits = 0;                  // the same as bits, when literals_ are at most 64
    // A position reader proven equal to the pattern, with its captures (at most two).
    bool (*reads)(std::string_view, std::string_view*, uint8_t&) = nullptr;
  };
  // The candidates of one first byte. Most lines match none of them; when the second byte
  // already rules out every literal prefix, only the candidates without one are tried.
  struct FirstByte {
    std::vector<Candidate> all;
    std::vector<Candidate> unprefixed;  // the subsequence without a literal prefix
    std::array<uint64_t, 4> second{};   // second bytes some literal prefix allows
    bool second_allows(unsigned char c) const { return (second[c >> 6] >> (c & 63)) & 1; }
  };
  // `holds`: which literals the message holds, as a functor of k or as bits (LazyBits).
  // `captured`: room for what a position reader captures (LogLine::captured).
  template <class Holds>
  int match(const LogLine& line, const Holds& holds, std::string_view* captured,
            uint8_t& captures) const;
  template <class Holds>
  bool first_match(const std::vector<Candidate>& list, const LogLine& line, const Holds& holds,
                   std::string_view* captured, uint8_t& captures, int& hit) const;

  std::vector<Prefix> prefixes_;
  bool fast_prefix_ = false;
  std::vector<Trigger> triggers_;
  // Candidates by the first byte a match can start with (RE2's own analysis); patterns that
  // can start with anything run on every line, behind their "# contains:" literals.
  std::array<FirstByte, 256> by_first_{};
  std::vector<Candidate> always_;
  uint64_t always_bits_ = 0;           // every literal of always_, as bits
  bool always_gated_ = false;          // each of always_ needs one of its literals
  std::vector<std::string> literals_;  // every "# contains:" literal once
  // Which literals_ a message holds, as bits, found in one pass over it (instead of one search
  // per literal) when they are at most 64 with at most 4 distinct first bytes.
  uint64_t literals_in(std::string_view m) const;
  bool one_pass_literals_ = false;
  std::string literal_firsts_;  // distinct first bytes of literals_
  int error_trigger_ = -1;      // for error and warning lines no trigger matched
  LogSection* body_ = nullptr;
  // What the screen found on one line: its trigger `hit` (or -1), else a body line.
  void record(ScreenedBlock& b, const LogLine& l, int hit, uint32_t index, size_t pos,
              size_t length, size_t next, const std::string_view* captured = nullptr,
              uint8_t captures = 0) const;
  // Adds a body line to the block's runs.
  static void add_body(ScreenedBlock& b, bool prefixed, bool checked, LogSection::Body kind,
                       uint64_t value, uint32_t index, size_t pos, size_t next);
  // The body section's shortcut (LogSection::fast_body), and the line it reads at `pos`.
  const char* (*fast_read_)(const char*, const char*, uint64_t&) = nullptr;
  std::vector<std::pair<std::string, LogSection::Body>> fast_silent_;  // NoValue or Closing
  struct FastLine {
    LogLine line;
    LogSection::Body kind;
    uint64_t value;
  };
  // The last usual prefix read, and its severity: the lines of a log share their time stamp
  // with the lines around them, and 32 equal bytes are checked faster than their shape.
  struct UsualPrefix {
#ifdef __SSE2__
    __m128i first = _mm_setzero_si128(), second = _mm_setzero_si128();
#endif
    char last = 0;
    char severity(const char* p);
    // Whether the 32 bytes at p are the kept prefix.
    bool same(const char* p) const;
  };
  bool fast_line(const ScreenedBlock& b, size_t pos, size_t max_line, UsualPrefix& prefix,
                 FastLine& out) const;
  // Takes the usual body lines from `pos` on that share the kept prefix into the block's last
  // run, as fast_line() and add_body() would one by one; returns where the first line it did
  // not take starts. `fetched`: how far the bytes ahead were asked for (see screen()).
  size_t fast_run(ScreenedBlock& b, size_t pos, size_t max_line, const UsualPrefix& prefix,
                  size_t& fetched) const;
  size_t fast_run_tactics_avx2(ScreenedBlock& b, size_t pos, size_t max_line,
                               const UsualPrefix& prefix, size_t& fetched) const;
  bool tactic_line_ = false;

  struct LiteralScan {
    hs_database* db = nullptr;
    hs_scratch* scratch = nullptr;  // a prototype: each block's scans use their own clone
    std::vector<uint64_t> bit_of;   // a match id's bits of literals_
  };
  // The compiled set, or null; published once, when compiled.
  static LiteralScan* compile_literal_scan(const std::vector<std::string>& literals);
  // The build's set of the built-in literals (embedded_literal_database()), when it holds every
  // one of `literals`, or null.
  static LiteralScan* embedded_literal_scan(const std::vector<std::string>& literals);
  // Publishes the build's set when it serves (see embedded_literal_scan); whether it did.
  bool use_embedded_literal_scan();
  std::atomic<const LiteralScan*> literal_scan_{nullptr};
  bool embedded_ = false;  // the set is the build's
  std::unique_ptr<LiteralScan> owned_literal_scan_;
  std::thread compiling_;
  // Set by the dispatching thread once a block: on a line of its own, away from what the
  // screening threads read on every line.
  alignas(kCacheLine) mutable std::atomic<bool> check_body_{true};
};

}  // namespace trtlens
