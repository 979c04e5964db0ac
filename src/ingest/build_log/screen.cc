#include "ingest/build_log/screen.h"

#include <pthread.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <optional>
#include <stdexcept>
#include <utility>

#include "ingest/build_log/tactic_line.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#ifdef TRTLENS_HAVE_HYPERSCAN
#include <hs/hs.h>

#include "io/library.h"
#endif

namespace trtlens {
namespace {

#ifdef TRTLENS_HAVE_HYPERSCAN
// Hyperscan is opened when a log large enough for the literal scan is read, not linked: loading
// it cost every run, most of which read small files, a twentieth of trtlens's start-up. Without
// it the screen searches literal by literal and reads the same.
// clang-format off
#define TRTLENS_HYPERSCAN_FUNCTIONS(X)                                                     \
  X(hs_compile_lit_multi) X(hs_free_compile_error) X(hs_deserialize_database)             \
  X(hs_free_database) X(hs_alloc_scratch) X(hs_clone_scratch) X(hs_free_scratch) X(hs_scan)
// clang-format on

struct Hyperscan {
#define X(f) decltype(&::f) f = nullptr;
  TRTLENS_HYPERSCAN_FUNCTIONS(X)
#undef X
};

// The library's functions, or null when it cannot be opened or lacks one.
const Hyperscan* hyperscan() {
  static const Hyperscan* const hs = []() -> const Hyperscan* {
    static Library lib(TRTLENS_HYPERSCAN_SONAME);
    static Hyperscan h;
#define X(f) \
  if (!lib.get(h.f, #f)) return nullptr;
    TRTLENS_HYPERSCAN_FUNCTIONS(X)
#undef X
    return &h;
  }();
  return hs;
}
#endif

bool severity_letter(char c) { return c == 'V' || c == 'I' || c == 'W' || c == 'E' || c == 'F'; }

// "[MM/DD/YYYY-HH:MM:SS]" at p (n >= 22 bytes readable).
bool time_stamp(const char* p) {
#ifdef __SSE2__
  // The first 16 bytes at once: punctuation where the shape has it, digits elsewhere.
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i shape = _mm_setr_epi8('[', 0, 0, '/', 0, 0, '/', 0, 0, 0, 0, '-', 0, 0, ':', 0);
  const __m128i d = _mm_sub_epi8(v, _mm_set1_epi8('0'));
  const __m128i digit = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
  const __m128i punct = _mm_cmpeq_epi8(v, shape);
  const __m128i is_punct = _mm_cmpeq_epi8(shape, _mm_setzero_si128());  // 0xff: a digit slot
  const __m128i ok =
      _mm_or_si128(_mm_and_si128(is_punct, digit), _mm_andnot_si128(is_punct, punct));
  if (_mm_movemask_epi8(ok) != 0xffff) return false;
  return re2_digit(p[16]) && p[17] == ':' && re2_digit(p[18]) && re2_digit(p[19]) && p[20] == ']';
#else
  return p[0] == '[' && re2_digit(p[1]) && re2_digit(p[2]) && p[3] == '/' && re2_digit(p[4]) &&
         re2_digit(p[5]) && p[6] == '/' && re2_digit(p[7]) && re2_digit(p[8]) && re2_digit(p[9]) &&
         re2_digit(p[10]) && p[11] == '-' && re2_digit(p[12]) && re2_digit(p[13]) && p[14] == ':' &&
         re2_digit(p[15]) && re2_digit(p[16]) && p[17] == ':' && re2_digit(p[18]) &&
         re2_digit(p[19]) && p[20] == ']';
#endif
}

// The shape nearly every line of a trtexec log has, "[MM/DD/YYYY-HH:MM:SS] [X] [TRT] ",
// checked by position: what the first three prefix patterns consume, without running them
// (they cost most of a log's parse time). Only with the built-in prefix grammar; a test checks
// both paths agree.
// The usual whole prefix, "[MM/DD/YYYY-HH:MM:SS] [X] [TRT] " (32 bytes), at p (33 readable),
// 16 bytes at a time: its severity letter, or 0 when p holds something else.
char usual_prefix(const char* p) {
#ifdef __SSE2__
  // Each half: the punctuation where the shape has it (0 marks a digit slot), digits elsewhere.
  const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16));
  const __m128i shape_a = _mm_setr_epi8('[', 0, 0, '/', 0, 0, '/', 0, 0, 0, 0, '-', 0, 0, ':', 0);
  const __m128i shape_b =
      _mm_setr_epi8(0, ':', 0, 0, ']', ' ', '[', 0, ']', ' ', '[', 'T', 'R', 'T', ']', ' ');
  const __m128i zero = _mm_setzero_si128(), nine = _mm_set1_epi8(9), d0 = _mm_set1_epi8('0');
  const __m128i da = _mm_sub_epi8(a, d0), db = _mm_sub_epi8(b, d0);
  const int digits_a = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(da, nine), da));
  const int digits_b = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(db, nine), db));
  const int slots_a = _mm_movemask_epi8(_mm_cmpeq_epi8(shape_a, zero));
  const int exact_a = _mm_movemask_epi8(_mm_cmpeq_epi8(a, shape_a));
  const int exact_b = _mm_movemask_epi8(_mm_cmpeq_epi8(b, shape_b));
  const bool ok_a = ((digits_a & slots_a) | (exact_a & ~slots_a)) == 0xffff;
  // b's digit slots are 0, 2 and 3; its severity letter (7) is checked on its own
  const bool ok_b = ((digits_b & 0x0d) | (exact_b & ~0x8d) | 0x80) == 0xffff;
  if (ok_a && ok_b && severity_letter(p[23])) return p[23];
#else
  (void)p;
#endif
  return 0;
}

void fast_trtexec(re2::StringPiece& s, LogLine& line) {
  const char* p = s.data();
  const size_t n = s.size();
  if (n >= 33) {
    if (const char severity = usual_prefix(p)) {
      line.prefixed = true;
      line.severity = severity;
      s.remove_prefix(32);
      return;
    }
  }
  if (n >= 22 && time_stamp(p)) {
    size_t k = p[21] == ' ' ? 22 : 21;
    line.prefixed = true;
    if (n >= k + 3 && p[k] == '[' && p[k + 2] == ']' && p[k + 1] != '\0' &&
        severity_letter(p[k + 1])) {
      line.severity = p[k + 1];
      k += 3;
      if (k < n && p[k] == ' ') ++k;
      if (n >= k + 5 && p[k] == '[' && p[k + 1] == 'T' && p[k + 2] == 'R' && p[k + 3] == 'T' &&
          p[k + 4] == ']') {
        k += 5;
        if (k < n && p[k] == ' ') ++k;
      }
    }
    s.remove_prefix(k);
  }
}

// Up to 8 bytes of `s` as a little-endian word (zero beyond its end).
uint64_t head_word(std::string_view s) {
  uint64_t w = 0;
  if (s.size() >= 8) {
    std::memcpy(&w, s.data(), 8);
  } else {
    for (size_t i = 0; i < s.size(); ++i) w |= uint64_t(uint8_t(s[i])) << (8 * i);
  }
  return w;
}

struct LineScan {
  const char* eol;  // the '\n' or '\r' ending the line, or the end of the bytes
  bool esc;         // an ESC before it
};

// One pass over a line finds its end (LF or CR) and whether it holds an ESC, so each byte of a
// block is read once here instead of once per question (two whole-block memchr calls for CR and
// ESC, then one per line for LF). No libc call looks for three bytes at once.
// Inline: it also reads the short rest of a line read by position (a tactic line's " Time: "
// and its figure), where a call would cost more than the scan.
__attribute__((always_inline)) inline LineScan scan_line_sse2(const char* p, const char* end) {
  bool esc = false;
#ifdef __SSE2__
  const __m128i nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), es = _mm_set1_epi8('\x1b');
  for (; end - p >= 16; p += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const unsigned e =
        unsigned(_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, nl), _mm_cmpeq_epi8(v, cr))));
    const unsigned x = unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(v, es)));
    if (e) {
      const unsigned first = unsigned(__builtin_ctz(e));
      return {p + first, esc || (x & ((1u << first) - 1)) != 0};
    }
    esc = esc || x != 0;
  }
#endif
  for (; p < end; ++p) {
    if (*p == '\n' || *p == '\r') return {p, esc};
    esc = esc || *p == '\x1b';
  }
  return {end, esc};
}

#if defined(__x86_64__) && defined(__GNUC__)
// The same 32 bytes at a time, for CPUs with AVX2 (checked once at run time): log lines are
// 100-250 bytes, so this halves the loop's trips.
__attribute__((target("avx2"))) LineScan scan_line_avx2(const char* p, const char* end) {
  const __m256i nl = _mm256_set1_epi8('\n'), cr = _mm256_set1_epi8('\r'),
                es = _mm256_set1_epi8('\x1b');
  bool esc = false;
  for (; end - p >= 32; p += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const unsigned e = unsigned(
        _mm256_movemask_epi8(_mm256_or_si256(_mm256_cmpeq_epi8(v, nl), _mm256_cmpeq_epi8(v, cr))));
    const unsigned x = unsigned(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, es)));
    if (e) {
      const unsigned first = unsigned(__builtin_ctz(e));
      return {p + first, esc || (uint64_t(x) & ((uint64_t{1} << first) - 1)) != 0};
    }
    esc = esc || x != 0;
  }
  LineScan rest = scan_line_sse2(p, end);
  rest.esc = rest.esc || esc;
  return rest;
}

const bool kAvx2 = __builtin_cpu_supports("avx2");
#endif

// Where the line after the one ending at `eol` starts: past its LF, CR or CRLF (has_cr set at a
// CR).
size_t next_line(const char* data, size_t size, size_t eol, bool& has_cr) {
  size_t next = eol;
  if (next < size) {
    ++next;
    if (data[eol] == '\r') {
      has_cr = true;
      if (next < size && data[next] == '\n') ++next;
    }
  }
  return next;
}

LineScan scan_line(const char* p, const char* end) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (kAvx2) return scan_line_avx2(p, end);
#endif
  return scan_line_sse2(p, end);
}

// The triggers on most lines of a verbose log after the tactic lines (one per timing runner and
// per layer) have position readers the tests hold to their patterns: they decide the match.
// Each sets `n` to the captures it keeps in `v` (at most two).
bool (*position_reader(const std::string& name))(std::string_view, std::string_view*, uint8_t&) {
  if (name == "tactic_computing_costs")
    return [](std::string_view m, std::string_view* v, uint8_t& n) {
      n = 1;
      return parse_computing_costs(m, v[0]);
    };
  if (name == "tactic_format_combination")
    return [](std::string_view m, std::string_view* v, uint8_t& n) {
      n = 1;
      return parse_format_combination(m, v[0]);
    };
  if (name == "tactic_timing_runner")
    return [](std::string_view m, std::string_view* v, uint8_t& n) {
      n = 2;
      return parse_timing_runner(m, v[0], v[1]);
    };
  if (name == "mem_layer")
    return [](std::string_view m, std::string_view*, uint8_t& n) {
      std::string_view f[4];
      n = 0;  // four: not kept
      return parse_memory_layer(m, f);
    };
  return nullptr;
}

}  // namespace

static_assert(alignof(LogScreen) == kCacheLine, "the screen shares a line with its neighbours");

LogScreen::LogScreen(const Grammar& grammar,
                     const std::vector<std::unique_ptr<LogSection>>& sections) {
  bool builtin = true;
  for (const auto& p : grammar.patterns()) {
    if (p->name.rfind("prefix_", 0) != 0) continue;
    prefixes_.push_back(Prefix{p.get(),
                               p->name == "prefix_severity" || p->name == "prefix_python_old",
                               p->name == "prefix_blank"});
    builtin = builtin && p->builtin;
  }
  fast_prefix_ = builtin;

  for (const auto& s : sections) {
    auto names = s->triggers();
    for (size_t i = 0; i < names.size(); ++i) {
      const GrammarPattern& p = grammar.pattern(names[i]);
      Candidate t;
      t.trigger = uint32_t(triggers_.size());
      t.pattern = &p;
      if (p.builtin) t.reads = position_reader(p.name);
      for (const auto& lit : p.contains) {
        auto at = std::find(literals_.begin(), literals_.end(), lit);
        t.literals.push_back(uint32_t(at - literals_.begin()));
        if (at == literals_.end()) literals_.push_back(lit);
      }
      triggers_.push_back(Trigger{s.get(), i, &p});
      // Filed under each fixed start: the pattern's literal prefix, or its "# starts:" list.
      std::vector<std::string> starts = p.starts;
      if (!p.literal_prefix.empty()) starts = {p.literal_prefix};
      for (const std::string& start : starts) {
        Candidate c = t;
        c.prefix = start;
        const size_t n = std::min<size_t>(start.size(), 8);
        c.word = head_word(std::string_view(start).substr(0, n));
        c.mask = n == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * n)) - 1;
        FirstByte& f = by_first_[static_cast<unsigned char>(start[0])];
        f.all.push_back(c);
        if (start.size() == 1) {
          f.second.fill(~uint64_t{0});
        } else {
          const auto b = static_cast<unsigned char>(start[1]);
          f.second[b >> 6] |= uint64_t{1} << (b & 63);
        }
      }
      if (starts.empty() && (p.first_min != 0 || p.first_max != 255)) {
        for (unsigned c = p.first_min; c <= p.first_max; ++c) {
          by_first_[c].all.push_back(t);
          by_first_[c].unprefixed.push_back(t);
        }
      } else if (starts.empty()) {
        always_.push_back(t);
      }
    }
    if (s->has_body() && !body_) body_ = s.get();
    if (s->takes_error_lines() && error_trigger_ < 0) {
      error_trigger_ = int(triggers_.size());
      triggers_.push_back(Trigger{s.get(), names.size(), nullptr});
    }
  }
  for (const auto& lit : literals_)
    if (!lit.empty() && literal_firsts_.find(lit[0]) == std::string::npos)
      literal_firsts_ += lit[0];
  if (literals_.size() <= 64) {
    auto bits = [](Candidate& c) {
      for (uint32_t k : c.literals) c.literal_bits |= uint64_t{1} << k;
    };
    for (FirstByte& f : by_first_) {
      for (Candidate& c : f.all) bits(c);
      for (Candidate& c : f.unprefixed) bits(c);
    }
    always_gated_ = true;
    for (Candidate& c : always_) {
      bits(c);
      always_bits_ |= c.literal_bits;
      always_gated_ = always_gated_ && !c.literals.empty();
    }
  }
  if (body_ && fast_prefix_) {
    // strip() must stop right after the usual prefix on such a message. No trigger is tried on
    // the lines the shortcut reads: the dispatcher tries them when the open section does not
    // take them (see ScreenedBlock::bodies).
    LogSection::FastBody fast = body_->fast_body();
    bool ok = fast.read != nullptr && !fast.starts.empty();
    for (const auto* list : {&fast.starts, &fast.silent, &fast.closing})
      for (const std::string& start : *list)
        ok = ok && start.size() >= 2 && start[0] != '[' && start[0] != ' ' &&
             start[0] != '\t' && !re2_digit(start[0]);
    if (ok) {
      fast_read_ = fast.read;
      tactic_line_ = fast.tactic_line;
      for (std::string& start : fast.silent)
        fast_silent_.emplace_back(std::move(start), LogSection::Body::NoValue);
      for (std::string& start : fast.closing)
        fast_silent_.emplace_back(std::move(start), LogSection::Body::Closing);
    }
  }
  one_pass_literals_ = literals_.size() <= 64 && literal_firsts_.size() <= 4 &&
                       std::none_of(literals_.begin(), literals_.end(),
                                    [](const std::string& l) { return l.empty(); });
}

LogScreen::LiteralScan* LogScreen::compile_literal_scan(const std::vector<std::string>& literals) {
#ifdef TRTLENS_HAVE_HYPERSCAN
  // Every literal of every trigger in one set, searched in a message at once when a trigger
  // first needs one (as bits: at most 64). An empty literal would match everywhere, so such a
  // grammar keeps the search per literal.
  const bool usable = !literals.empty() && literals.size() <= 64 &&
                      std::none_of(literals.begin(), literals.end(), [](const std::string& l) {
                        return l.empty();
                      });
  const Hyperscan* hs = hyperscan();
  if (!usable || !hs) return nullptr;
  std::vector<const char*> exprs;
  std::vector<size_t> lens;
  std::vector<unsigned> ids;
  for (size_t i = 0; i < literals.size(); ++i) {
    exprs.push_back(literals[i].data());
    lens.push_back(literals[i].size());
    ids.push_back(unsigned(i));
  }
  std::vector<unsigned> flags(exprs.size(), 0);
  hs_compile_error_t* err = nullptr;
  hs_database_t* db = nullptr;
  if (hs->hs_compile_lit_multi(exprs.data(), flags.data(), ids.data(), lens.data(),
                               unsigned(exprs.size()), HS_MODE_BLOCK, nullptr, &db,
                               &err) != HS_SUCCESS) {
    hs->hs_free_compile_error(err);  // e.g. a CPU without SSSE3: the fallback reads the same
    return nullptr;
  }
  auto set = std::make_unique<LiteralScan>();
  set->db = db;
  if (hs->hs_alloc_scratch(db, &set->scratch) != HS_SUCCESS) {
    hs->hs_free_database(db);
    return nullptr;
  }
  for (size_t k = 0; k < literals.size(); ++k) set->bit_of.push_back(uint64_t{1} << k);
  return set.release();
#else
  (void)literals;
  return nullptr;
#endif
}

LogScreen::LiteralScan* LogScreen::embedded_literal_scan(const std::vector<std::string>& literals) {
#ifdef TRTLENS_HAVE_HYPERSCAN
  // Read in microseconds, where compiling the set took 3 ms of CPU beside the first blocks.
  const GrammarLiteralDatabase& e = embedded_literal_database();
  const Hyperscan* hs = hyperscan();
  if (e.size == 0 || literals.empty() || literals.size() > 64 || !hs) return nullptr;
  std::vector<uint64_t> bit_of(e.count, 0);
  for (size_t k = 0; k < literals.size(); ++k) {
    const char* const* at = std::find(e.literals, e.literals + e.count, literals[k]);
    if (at == e.literals + e.count) return nullptr;  // a literal of a --grammar-dir file
    bit_of[size_t(at - e.literals)] |= uint64_t{1} << k;
  }
  hs_database_t* db = nullptr;
  if (hs->hs_deserialize_database(e.bytes, e.size, &db) != HS_SUCCESS) return nullptr;
  auto set = std::make_unique<LiteralScan>();
  set->db = db;
  // Another Hyperscan release or a CPU it cannot serve fails here or above: then compiled.
  if (hs->hs_alloc_scratch(db, &set->scratch) != HS_SUCCESS) {
    hs->hs_free_database(db);
    return nullptr;
  }
  set->bit_of = std::move(bit_of);
  return set.release();
#else
  (void)literals;
  return nullptr;
#endif
}

bool LogScreen::use_embedded_literal_scan() {
  owned_literal_scan_.reset(embedded_literal_scan(literals_));
  embedded_ = owned_literal_scan_ != nullptr;
  if (embedded_) literal_scan_.store(owned_literal_scan_.get(), std::memory_order_release);
  return embedded_;
}

void LogScreen::enable_literal_scan(bool embedded) {
  if (compiling_.joinable() || owned_literal_scan_) return;
  if (embedded && use_embedded_literal_scan()) return;
  owned_literal_scan_.reset(compile_literal_scan(literals_));
  literal_scan_.store(owned_literal_scan_.get(), std::memory_order_release);
}

void LogScreen::start_literal_scan() {
#ifdef TRTLENS_HAVE_HYPERSCAN
  if (compiling_.joinable() || owned_literal_scan_ || use_embedded_literal_scan()) return;
  compiling_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "trtlens-compile");
    try {
      owned_literal_scan_.reset(compile_literal_scan(literals_));
    } catch (...) {  // out of memory: the line-by-line search reads the same
      return;
    }
    literal_scan_.store(owned_literal_scan_.get(), std::memory_order_release);
  });
#endif
}

LogScreen::~LogScreen() {
  if (compiling_.joinable()) compiling_.join();
#ifdef TRTLENS_HAVE_HYPERSCAN
  if (owned_literal_scan_) {  // made only when the library was opened
    const Hyperscan* hs = hyperscan();
    if (owned_literal_scan_->scratch) hs->hs_free_scratch(owned_literal_scan_->scratch);
    if (owned_literal_scan_->db) hs->hs_free_database(owned_literal_scan_->db);
  }
#endif
}

// Strips log prefixes (grammar/prefix.re2) from the front of the message, repeatedly.
void LogScreen::strip(LogLine& line) const {
  re2::StringPiece s(line.message.data(), line.message.size());
  if (fast_prefix_) fast_trtexec(s, line);
  for (int round = 0; round < 8 && !s.empty(); ++round) {
    char c = s[0];
    if (c != '[' && c != ' ' && c != '\t' && !re2_digit(c)) break;
    bool any = false;
    for (const Prefix& p : prefixes_) {
      const size_t before = s.size();
      re2::StringPiece sev;
      if (p.severity) {
        if (!RE2::Consume(&s, p.pattern->re(), &sev)) continue;
        if (!sev.empty()) line.severity = sev == "INTERNAL_ERROR" ? 'E' : sev[0];
      } else if (!RE2::Consume(&s, p.pattern->re())) {
        continue;
      }
      if (s.size() == before) continue;
      if (!p.blank) line.prefixed = true;
      any = true;
      break;
    }
    if (!any) break;
  }
  line.message = std::string_view(s.data(), s.size());
}

// Never true before a prefix is kept (`last` is 0 until then).
inline bool LogScreen::UsualPrefix::same(const char* p) const {
#ifdef __SSE2__
  const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16));
  return last && _mm_movemask_epi8(
                     _mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, second))) == 0xffff;
#else
  (void)p;
  return false;
#endif
}

inline char LogScreen::UsualPrefix::severity(const char* p) {
  if (same(p)) return last;
  const char s = usual_prefix(p);
#ifdef __SSE2__
  if (s) {
    first = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    second = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16));
    last = s;
  }
#endif
  return s;
}

LogLine LogScreen::line(std::string_view text, uint64_t number) const {
  LogLine line;
  line.text = text;
  line.message = text;
  line.number = number;
  strip(line);
  return line;
}

namespace {

// A message's literals as bits (literals_ are then at most 64), found when first asked: most
// lines are decided by their first bytes before any trigger needs a literal.
template <class Find>
struct LazyBits {
  Find find;
  mutable uint64_t bits = 0;
  mutable bool known = false;
  uint64_t get() const {
    if (!known) {
      bits = find();
      known = true;
    }
    return bits;
  }
};
template <class Find>
LazyBits<Find> lazy_bits(Find find) {
  return LazyBits<Find>{std::move(find)};
}
template <class T>
constexpr bool kIsBits = false;
template <class Find>
constexpr bool kIsBits<LazyBits<Find>> = true;

}  // namespace

template <class Holds>
bool LogScreen::first_match(const std::vector<Candidate>& list, const LogLine& line,
                            const Holds& holds, std::string_view* captured, uint8_t& captures,
                            int& hit) const {
  const std::string_view m = line.message;
  const uint64_t head = head_word(m);
  for (const Candidate& c : list) {
    if ((head & c.mask) != c.word) continue;
    const GrammarPattern& p = *c.pattern;
    const std::string& lit = c.prefix;
    if (m.size() < lit.size()) continue;
    if (lit.size() > 8 && std::memcmp(m.data() + 8, lit.data() + 8, lit.size() - 8) != 0) continue;
    if constexpr (kIsBits<Holds>) {
      if (!c.literals.empty() && (holds.get() & c.literal_bits) == 0) continue;
    } else {
      if (!c.literals.empty() && std::none_of(c.literals.begin(), c.literals.end(), holds))
        continue;
    }
    if (c.reads) {
      uint8_t n = 0;
      if (!c.reads(m, captured, n)) continue;
      captures = n;
    } else if (!RE2::PartialMatch(m, p.re())) {
      continue;
    }
    hit = int(c.trigger);
    return true;
  }
  return false;
}

template <class Holds>
int LogScreen::match(const LogLine& line, const Holds& holds, std::string_view* captured,
                     uint8_t& captures) const {
  captures = 0;
  if (line.message.empty()) return -1;
  int hit = -1;
  const FirstByte& f = by_first_[static_cast<unsigned char>(line.message[0])];
  const auto second = static_cast<unsigned char>(line.message.size() > 1 ? line.message[1] : 0);
  const std::vector<Candidate>& list = f.second_allows(second) ? f.all : f.unprefixed;
  bool found = first_match(list, line, holds, captured, captures, hit);
  if constexpr (kIsBits<Holds>) {
    if (!found && always_gated_ && (holds.get() & always_bits_) == 0) found = true;  // none can
  }
  if (!found) first_match(always_, line, holds, captured, captures, hit);
  if (hit < 0 && error_trigger_ >= 0 && line.alarm()) hit = error_trigger_;
  return hit;
}

uint64_t LogScreen::literals_in(std::string_view m) const {
  uint64_t found = 0;
  const char* const base = m.data();
  const size_t n = m.size();
  auto check = [&](size_t i) {
    for (size_t k = 0; k < literals_.size(); ++k) {
      const std::string& lit = literals_[k];
      if (lit[0] == base[i] && n - i >= lit.size() &&
          std::memcmp(base + i, lit.data(), lit.size()) == 0)
        found |= uint64_t{1} << k;
    }
  };
  size_t i = 0;
#ifdef __SSE2__
  const size_t nf = literal_firsts_.size();
  if (nf > 0) {
    __m128i firsts[4];
    for (size_t j = 0; j < nf; ++j) firsts[j] = _mm_set1_epi8(literal_firsts_[j]);
    for (; i + 16 <= n; i += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + i));
      __m128i any = _mm_cmpeq_epi8(v, firsts[0]);
      for (size_t j = 1; j < nf; ++j) any = _mm_or_si128(any, _mm_cmpeq_epi8(v, firsts[j]));
      for (unsigned bits = unsigned(_mm_movemask_epi8(any)); bits; bits &= bits - 1)
        check(i + unsigned(__builtin_ctz(bits)));
    }
  }
#endif
  for (; i < n; ++i)
    if (literal_firsts_.find(base[i]) != std::string::npos) check(i);
  return found;
}

int LogScreen::match(const LogLine& line) const {
  std::string_view captured[2];
  uint8_t captures;
  if (one_pass_literals_)
    return match(line, lazy_bits([&] { return literals_in(line.message); }), captured, captures);
  return match(
      line, [&](uint32_t k) { return line.message.find(literals_[k]) != std::string_view::npos; },
      captured, captures);
}

namespace {

// What a screen pass fills in, emptied before the pass.
void clear_results(ScreenedBlock& b) {
  b.has_cr = b.has_esc = false;
  b.lines = b.recognized = 0;
  b.hits.clear();
  b.bodies.clear();
  b.values.clear();
  b.others.clear();
  b.truncated.clear();
}

#ifdef TRTLENS_HAVE_HYPERSCAN
// The literals a scan found, as bits of literals_.
struct FoundLiterals {
  uint64_t bits = 0;
  const uint64_t* bit_of;
};
int on_literal(unsigned id, unsigned long long, unsigned long long, unsigned, void* ctx) {
  auto* found = static_cast<FoundLiterals*>(ctx);
  found->bits |= found->bit_of[id];
  return 0;
}

// A scratch of its own for one block's scans (a prototype's clone: workers scan at once).
struct BlockScratch {
  const Hyperscan* hs = hyperscan();  // opened: a scan exists
  hs_scratch_t* scratch = nullptr;
  explicit BlockScratch(hs_scratch_t* prototype) {
    if (hs->hs_clone_scratch(prototype, &scratch) != HS_SUCCESS) throw std::bad_alloc();
  }
  ~BlockScratch() { hs->hs_free_scratch(scratch); }
  BlockScratch(const BlockScratch&) = delete;
  BlockScratch& operator=(const BlockScratch&) = delete;
};
#endif

}  // namespace

// Inlined: it runs once per tactic line.
__attribute__((always_inline)) inline void LogScreen::add_body(ScreenedBlock& b, bool prefixed,
                                                               bool checked,
                                                               LogSection::Body kind,
                                                               uint64_t value, uint32_t index,
                                                               size_t pos, size_t next) {
  if (b.bodies.empty() || b.bodies.back().line + b.bodies.back().count != index ||
      b.bodies.back().closes)
    b.bodies.push_back({uint32_t(pos), index, 0, 0, uint32_t(b.values.size()), 0, 0, true});
  ScreenedBlock::Body& run = b.bodies.back();
  run.checked = run.checked && checked;
  run.closes = kind == LogSection::Body::Closing;
  ++run.count;
  run.next = uint32_t(next);
  if (!prefixed) ++run.unprefixed;
  if (kind == LogSection::Body::Value) {
    b.values.push_back(value);
    ++run.value_count;
  }
}

void LogScreen::record(ScreenedBlock& b, const LogLine& l, int hit, uint32_t index, size_t pos,
                       size_t length, size_t next, const std::string_view* captured,
                       uint8_t captures) const {
  if (hit >= 0 || l.prefixed) ++b.recognized;
  if (hit >= 0) {
    ScreenedBlock::Hit h{uint32_t(pos), index, uint32_t(hit), uint32_t(length), uint32_t(next)};
    if (captured && captures) {
      h.message = uint32_t(l.message.data() - l.text.data());
      for (uint8_t i = 0; i < captures; ++i) {
        h.captured_at[i] = uint32_t(captured[i].data() - l.message.data());
        h.captured_size[i] = uint32_t(captured[i].size());
      }
      h.captures = captures;
    }
    b.hits.push_back(h);
    return;
  }
  uint64_t value = 0;
  const LogSection::Body kind = body_ ? body_->body_line(l, value) : LogSection::Body::No;
  if (kind != LogSection::Body::No)
    add_body(b, l.prefixed, true, kind, value, index, pos, next);
  else
    b.others.push_back(
        {uint32_t(pos), uint32_t(length), uint32_t(next), body_ && body_->refuses(l)});
}

namespace {

// Where the line whose shortcut read stopped at `tail` ends, or 0 when the usual path must read
// it (an ESC in its rest, or longer than the line limit).
__attribute__((always_inline)) inline size_t usual_line_end(const char* data, size_t size,
                                                            size_t pos, const char* tail,
                                                            size_t max_line) {
  const LineScan rest = scan_line_sse2(tail, data + size);
  const size_t eol = size_t(rest.eol - data);
  return rest.esc || eol - pos > max_line ? 0 : eol;
}

}  // namespace

// The body section's usual line at `pos`, read straight from the block (see fast_read_): false
// for the usual path. `line` is what line() would make of it.
__attribute__((always_inline)) inline bool LogScreen::fast_line(const ScreenedBlock& b, size_t pos,
                                                                size_t max_line,
                                                                UsualPrefix& prefix,
                                                                FastLine& out) const {
  const char* const data = b.bytes.data();
  const size_t size = b.bytes.size();
  if (size - pos < 33) return false;
  const char severity = prefix.severity(data + pos);
  if (!severity || severity == 'E' || severity == 'W' || severity == 'F') return false;
  const char* const message = data + pos + 32;
  out.value = 0;
  out.kind = LogSection::Body::Value;
  const char* tail = fast_read_(message, data + size, out.value);
  if (!tail) {
    for (const auto& [start, kind] : fast_silent_)
      if (size - pos - 32 >= start.size() &&
          std::memcmp(message, start.data(), start.size()) == 0) {
        tail = message + start.size();
        out.kind = kind;
        break;
      }
    if (!tail) return false;
  }
  const size_t eol = usual_line_end(data, size, pos, tail, max_line);
  if (!eol) return false;
  out.line.text = std::string_view(data + pos, eol - pos);
  out.line.message = std::string_view(message, size_t(data + eol - message));
  out.line.prefixed = true;
  out.line.severity = severity;
  return true;
}

namespace {

// The bytes a page ahead of `pos` are asked for before they are read: the hardware's
// prefetcher stops at each 4 KiB page of the mapping, and the screen otherwise waited on memory
// at the start of most lines (a sixth of the CPU on the large-engine log, over a quarter on the
// small-engine one). Two cache lines a step (lines are 100-250 bytes); the second may lie past
// the end, where a prefetch is dropped without a fault.
__attribute__((always_inline)) inline void fetch_ahead(const char* data, size_t size, size_t pos,
                                                       size_t& fetched) {
  constexpr size_t kAhead = 4096;
  const uintptr_t base = reinterpret_cast<uintptr_t>(data);
  for (const size_t ahead = std::min(size, pos + kAhead); fetched < ahead;
       fetched += 2 * kCacheLine) {
    __builtin_prefetch(data + fetched);
    __builtin_prefetch(reinterpret_cast<const char*>(base + fetched + kCacheLine));
  }
}

// The loop of fast_run() with the body section's reader `read`: inline in each caller, so that
// a reader known here (the usual tactic line) is inlined into it, its constants kept in
// registers across lines, instead of called through a pointer on every line.
template <class Prefix, class Read>
__attribute__((always_inline)) inline size_t take_run(ScreenedBlock& b, size_t pos, size_t max_line,
                                                      const Prefix& prefix, size_t& fetched,
                                                      Read read) {
  const char* const data = b.bytes.data();
  const size_t size = b.bytes.size();
  const size_t first = pos;
  uint32_t taken = 0;
  while (size - pos >= 33 && prefix.same(data + pos)) {
    fetch_ahead(data, size, pos, fetched);
    uint64_t value = 0;
    const char* tail = read(data + pos + 32, data + size, value);
    if (!tail) break;
    const size_t eol = usual_line_end(data, size, pos, tail, max_line);
    if (!eol) break;
    b.values.push_back(value);
    ++taken;
    pos = next_line(data, size, eol, b.has_cr);
  }
  if (pos == first) return pos;
  ScreenedBlock::Body& run = b.bodies.back();
  run.count += taken;
  run.value_count += taken;
  run.next = uint32_t(pos);
  b.lines += taken;
  b.recognized += taken;
  return pos;
}

}  // namespace

#if defined(__x86_64__) && defined(__GNUC__)
// The lambda is not always_inline: it may be inlined only once take_run() is, into this AVX2
// function (compilers refuse an AVX2 body inlined into code built without it).
__attribute__((target("avx2"))) size_t LogScreen::fast_run_tactics_avx2(ScreenedBlock& b,
                                                                        size_t pos, size_t max_line,
                                                                        const UsualPrefix& prefix,
                                                                        size_t& fetched) const {
  return take_run(
      b, pos, max_line, prefix, fetched,
      [](const char* m, const char* end, uint64_t& value)
          __attribute__((target("avx2"))) { return tactic_line::read_avx2(m, end, value); });
}
#endif

// Most lines of a verbose log are tactic lines in runs of tens: this loop keeps only what
// changes from one to the next, where the general loop paid its per-line bookkeeping (line
// views, trigger checks, the run's fields) on each, as much as reading the line itself.
size_t LogScreen::fast_run(ScreenedBlock& b, size_t pos, size_t max_line, const UsualPrefix& prefix,
                           size_t& fetched) const {
#if defined(__x86_64__) && defined(__GNUC__)
  if (tactic_line_ && kAvx2) return fast_run_tactics_avx2(b, pos, max_line, prefix, fetched);
#endif
  return take_run(b, pos, max_line, prefix, fetched, fast_read_);
}

void LogScreen::screen(ScreenedBlock& b, size_t max_line) const {
  const std::string_view bytes = b.bytes;
  const char* const data = bytes.data();
  const size_t size = bytes.size();
  clear_results(b);
#ifdef TRTLENS_HAVE_HYPERSCAN
  const LiteralScan* set = literal_scan_.load(std::memory_order_acquire);
  std::optional<BlockScratch> scratch;
  if (set) scratch.emplace(set->scratch);
#endif
  // The trigger a line without ESC matches: Hyperscan finds the literals when a trigger first
  // needs them, else one search per literal.
  std::string_view captured[2];
  uint8_t captures = 0;
  auto trigger_of = [&](const LogLine& l) {
#ifdef TRTLENS_HAVE_HYPERSCAN
    if (set && l.message.size() < (size_t{1} << 31))
      return match(l, lazy_bits([&] {
                     FoundLiterals found{0, set->bit_of.data()};
                     if (scratch->hs->hs_scan(set->db, l.message.data(), unsigned(l.message.size()),
                                              0, scratch->scratch, on_literal,
                                              &found) != HS_SUCCESS)
                       throw std::runtime_error("the log screen's literal scan failed");
                     return found.bits;
                   }),
                   captured, captures);
#endif
    if (one_pass_literals_)
      return match(l, lazy_bits([&] { return literals_in(l.message); }), captured, captures);
    return match(
        l, [&](uint32_t k) { return l.message.find(literals_[k]) != std::string_view::npos; },
        captured, captures);
  };

  // The lines as block_line() splits them when has_cr is set: a block with any CR has CR line
  // ends, so splitting at every CR here is the same split.
  std::string scratch_text;
  const bool check_all = check_body_.load(std::memory_order_relaxed);
  // A body line right after a closing one (LogSection::Body::Closing) finds its section ended:
  // it is matched here, not by the driver on its one thread.
  bool after_closing = false;
  auto checked = [&] { return check_all || std::exchange(after_closing, false); };
  FastLine fast;
  UsualPrefix prefix;
  size_t fetched = 0;
  for (size_t pos = 0; pos < size;) {
    fetch_ahead(data, size, pos, fetched);
    if (fast_read_ && fast_line(b, pos, max_line, prefix, fast)) {
      const size_t eol = pos + fast.line.text.size();
      const size_t next = next_line(data, size, eol, b.has_cr);
      const uint32_t index = uint32_t(b.lines++);
      const bool check = checked();
      const int hit = check ? trigger_of(fast.line) : -1;
      if (hit >= 0) {
        record(b, fast.line, hit, index, pos, eol - pos, next, captured, captures);
      } else {
        ++b.recognized;
        add_body(b, true, check, fast.kind, fast.value, index, pos, next);
        after_closing = fast.kind == LogSection::Body::Closing;
        // Unmatched body lines like it follow: the run goes on without the checks above.
        if (!check && fast.kind == LogSection::Body::Value) {
          pos = fast_run(b, next, max_line, prefix, fetched);
          continue;
        }
      }
      pos = next;
      continue;
    }
    const char* start = data + pos;
    const LineScan scan = scan_line(start, data + size);
    const size_t stop = size_t(scan.eol - start);
    const size_t next = next_line(data, size, pos + stop, b.has_cr);
    b.has_esc = b.has_esc || scan.esc;
    const uint32_t index = uint32_t(b.lines++);
    std::string_view text(start, stop);
    if (stop > max_line) {
      b.truncated.push_back(index);
      text = text.substr(0, max_line);
    }
    LogLine l;
    int hit;
    captures = 0;
    const bool check = checked();
    if (scan.esc) {  // a literal may be split by escape sequences: look after removing them
      l = line(strip_ansi(text, scratch_text), 0);
      hit = match(l);
    } else {
      l = line(text, 0);
      // Unless asked to, a line the body section takes is not matched against the triggers,
      // as on the shortcut above: the driver matches it if that section is not open.
      uint64_t value = 0;
      const LogSection::Body kind =
          !check && body_ && stop <= max_line ? body_->body_line(l, value) : LogSection::Body::No;
      if (kind != LogSection::Body::No) {
        if (l.prefixed) ++b.recognized;
        add_body(b, l.prefixed, false, kind, value, index, pos, next);
        after_closing = kind == LogSection::Body::Closing;
        pos = next;
        continue;
      }
      hit = trigger_of(l);
    }
    record(b, l, hit, index, pos, stop, next, captured, captures);
    // Whether record() made the line the closing line of a run.
    const std::vector<ScreenedBlock::Body>& runs = b.bodies;
    after_closing =
        !runs.empty() && runs.back().closes && runs.back().line + runs.back().count == index + 1;
    pos = next;
  }
}

}  // namespace trtlens
