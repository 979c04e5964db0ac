// Run banners ("&&&& RUNNING TensorRT.trtexec [TensorRT v8601] # ..."), shell command lines,
// version lines, and the lines that show which stage of the build a run reached: the last one
// is what it was doing when a log stops. Tactic selection keeps the node being timed, its
// formats and the tactics tried, block by block.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "ingest/build_log/section.h"
#include "ingest/build_log/tactic_line.h"
#include "model/values.h"

namespace trtlens {
namespace {

using tactic_line::first_low_in;
using tactic_line::load8;

#if defined(__x86_64__) && defined(__GNUC__)
using tactic_line::first_low_in_avx2;
__attribute__((target("avx2"))) const char* first_low_avx2(const char* p, const char* end) {
  return first_low_in_avx2(p, end);
}
const bool kAvx2 = __builtin_cpu_supports("avx2");
#endif

size_t first_low(std::string_view m, size_t i) {
  const char* const end = m.data() + m.size();
#if defined(__x86_64__) && defined(__GNUC__)
  if (kAvx2) return size_t(first_low_avx2(m.data() + i, end) - m.data());
#endif
  return size_t(first_low_in(m.data() + i, end) - m.data());
}

size_t first_space(std::string_view m, size_t from) {
  for (size_t k = first_low(m, from); k < m.size(); k = first_low(m, k + 1))
    if (re2_space(m[k])) return k;
  return m.size();
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) const char* read_usual_tactic_line_avx2(const char* m,
                                                                        const char* end,
                                                                        uint64_t& value) {
  return tactic_line::read_avx2(m, end, value);
}
#endif

}  // namespace

// The usual tactic line, "Tactic Name: NAME Tactic: 0x" and 16 hex digits (or without the name),
// read straight from a block for the screen (LogSection::FastBody): the name's first byte at most
// ' ' must be the space that ends it, and the id must end after its 16 digits. Every byte taken
// must be of a kind a line end is not, so a line end stops it; anything else is left to the usual
// path. The heads are compared as 8-byte words (a string_view compare is a memcmp call), and the
// name is scanned inline: this runs on most lines of a verbose log.
const char* read_usual_tactic_line(const char* m, const char* end, uint64_t& value) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (kAvx2) return read_usual_tactic_line_avx2(m, end, value);
#endif
  return tactic_line::read(m, end, value);
}

// What the built-in tactic_line pattern, ^(?:Tactic Name: \S+ )?Tactic: (0x[0-9a-fA-F]+|-?\d+)(.*)$,
// captures, read by position: it runs on every tactic line, millions per log, where RE2's
// capturing match costs more than the rest of the screen. A test holds the two to the same
// answers; a grammar that redefines the pattern is read with RE2.
bool parse_tactic_line(std::string_view m, std::string_view& id) {
  uint64_t sixteen;
  bool read;
  return parse_tactic_line(m, id, sixteen, read);
}

bool parse_tactic_line(std::string_view m, std::string_view& id, uint64_t& value, bool& read) {
  read = false;
  constexpr std::string_view kName = "Tactic Name: ", kTactic = "Tactic: ";
  size_t at = 0;
  if (m.substr(0, kName.size()) == kName) {
    // \S+ then one space; when that is not followed by "Tactic: " the optional group is not
    // taken, and the line (starting "Tactic Name") then cannot start with "Tactic: " either.
    const size_t i = first_space(m, kName.size());
    if (i == kName.size() || i >= m.size() || m[i] != ' ') return false;
    at = i + 1;
  }
  if (m.substr(at, kTactic.size()) != kTactic) return false;
  at += kTactic.size();
  size_t end = at;
  if (m.size() > at + 2 && m[at] == '0' && m[at + 1] == 'x' && is_hex_digit(m[at + 2])) {
    end = at + 2;
    if (m.size() >= at + 18 && hex16(m.data() + at + 2, value)) {  // the usual: 16 digits
      end = at + 18;
      read = end == m.size() || !is_hex_digit(m[end]);
    }
    while (end < m.size() && is_hex_digit(m[end])) ++end;
  } else {
    if (end < m.size() && m[end] == '-') ++end;
    const size_t digits = end;
    while (end < m.size() && re2_digit(m[end])) ++end;
    if (end == digits) return false;
  }
  // (.*)$ takes the rest: a line holds no '\n', the one byte '.' does not match.
  id = m.substr(at, end - at);
  return true;
}

namespace {

// `m` without its trailing RE2 \s.
std::string_view trim_end(std::string_view m) {
  while (!m.empty() && re2_space(m.back())) m.remove_suffix(1);
  return m;
}
// After one or more `fill` bytes and " " + `words`, the rest of `m`; false when it is not so.
// Inlined, so that each caller's `words` is a constant and their comparison needs no call.
__attribute__((always_inline)) inline bool banner(std::string_view& m, char fill,
                                                  std::string_view words) {
  size_t i = 0;
  // The fill (15 bytes or more in trtexec's banners) 8 bytes at a time.
  const uint64_t fills = uint64_t(static_cast<unsigned char>(fill)) * 0x0101010101010101u;
  while (i + 8 <= m.size() && load8(m.data() + i) == fills) i += 8;
  while (i < m.size() && m[i] == fill) ++i;
  if (i == 0 || m.size() - i < words.size() + 1 || m[i] != ' ' ||
      std::memcmp(m.data() + i + 1, words.data(), words.size()) != 0)
    return false;
  m.remove_prefix(i + 1 + words.size());
  return true;
}

}  // namespace

// The three tactic-block banners below are read by position like the tactic lines: RE2 needs
// its slowest engine for their captures (about 28,000 instructions a line), and a verbose log
// holds one per timing runner. Tests hold each to its pattern's answers.

// ^=+ Computing costs for (.+?)\s*$
bool parse_computing_costs(std::string_view m, std::string_view& node) {
  if (!banner(m, '=', "Computing costs for ") || m.empty()) return false;
  const std::string_view t = trim_end(m);
  node = t.empty() ? m.substr(0, 1) : t;  // .+? takes at least one byte, a blank one too
  return true;
}

// ^\*+ Autotuning format combination: (.*?) *\**\s*$
bool parse_format_combination(std::string_view m, std::string_view& formats) {
  if (!banner(m, '*', "Autotuning format combination: ")) return false;
  // The shortest capture leaves the longest tail of spaces, stars, blanks.
  size_t end = trim_end(m).size();
  while (end > 0 && m[end - 1] == '*') --end;
  while (end > 0 && m[end - 1] == ' ') --end;
  formats = m.substr(0, end);
  return true;
}

// ^-+ Timing Runner: (.*) \((\w+)(?:\[(?:0x[0-9a-fA-F]+|-?\d+)\])?\)\s*$
bool parse_timing_runner(std::string_view m, std::string_view& node, std::string_view& runner) {
  if (!banner(m, '-', "Timing Runner: ")) return false;
  const std::string_view t = trim_end(m);
  if (t.empty() || t.back() != ')') return false;
  size_t end = t.size() - 1;           // the closing parenthesis
  if (end > 0 && t[end - 1] == ']') {  // the runner's id: 0x + hex digits, or -?digits
    size_t open = end - 1;
    while (open > 0 && t[open - 1] != '[') --open;
    if (open == 0) return false;
    const std::string_view id = t.substr(open, end - 1 - open);
    const bool hex = id.size() > 2 && id[0] == '0' && id[1] == 'x' &&
                     std::all_of(id.begin() + 2, id.end(), [](char c) { return is_hex_digit(c); });
    const std::string_view digits = !id.empty() && id[0] == '-' ? id.substr(1) : id;
    const bool dec = !digits.empty() && std::all_of(digits.begin(), digits.end(), re2_digit);
    if (!hex && !dec) return false;
    end = open - 1;  // the '['
  }
  size_t first = end;
  while (first > 0 && re2_word(t[first - 1])) --first;
  if (first == end || first < 2 || t[first - 1] != '(' || t[first - 2] != ' ') return false;
  node = t.substr(0, first - 2);
  runner = t.substr(first, end - first);
  return true;
}

// ^>+ Chose Runner Type:\x20 (">>>>>>>>>>>>>>> Chose Runner Type: CaskConvolution Tactic: 0x...",
// the runner and tactic chosen for a format combination, after its runners' tactics)
bool chose_runner(std::string_view m) { return banner(m, '>', "Chose Runner Type: "); }

// ^.+\) profiling completed in [^ ]+ seconds\. Fastest Tactic: [^ ]+ Time: [^ ]*\d\s*$ ("NAME
// (RUNNER) profiling completed in 0.0648 seconds. Fastest Tactic: 0x9cb3... Time: 0.0402", which
// TensorRT 8.5 and later log after each runner's tactics). Read backwards from the end, token by
// token (runs of bytes other than ' '), so that another line is refused within its last few
// bytes: most of a log's other lines reach this.
bool profiling_completed(std::string_view m) {
  m = trim_end(m);
  if (m.empty() || !re2_digit(m.back())) return false;  // the time's last digit
  // Before the last token without spaces (there must be one), `fixed` must end the rest.
  auto before = [&m](std::string_view fixed) {
    const void* space = memrchr(m.data(), ' ', m.size());
    const size_t n = space ? size_t(static_cast<const char*>(space) - m.data()) + 1 : 0;
    if (n == m.size() || n < fixed.size() ||
        std::memcmp(m.data() + n - fixed.size(), fixed.data(), fixed.size()) != 0)
      return false;
    m = m.substr(0, n - fixed.size());
    return true;
  };
  return before(" Time: ") && before(" seconds. Fastest Tactic: ") &&
         before(") profiling completed in ") && !m.empty();
}

namespace {

enum Trigger {
  kBanner,
  kVersionLine,
  kVersionLibrary,
  kPolygraphyVersion,
  kCommand,
  kParsing,
  kOptimization,
  kTactics,
  kComputingCosts,
  kFormatCombination,
  kTimingRunner,
  kAutotuningOp,
  kEngineGeneration,
  kSerialization,
  kInference,
};

class RunSection : public LogSection {
  static constexpr std::string_view kTactic = "Tactic", kSkipping = "Skipping tactic ",
                                    kChose = ">>>>>>>>>>>>>>> Chose Runner Type: ";
  // The lines that end a timing block (tactic_chose_runner, tactic_profiling_completed): by
  // position with the built-in grammar, else by their patterns.
  bool closes_timing(std::string_view m) const {
    if (fast_closing_) return chose_runner(m) || profiling_completed(m);
    const Grammar& g = ctx_.grammar;
    return RE2::PartialMatch(m, g.re("tactic_chose_runner")) ||
           RE2::PartialMatch(m, g.re("tactic_profiling_completed"));
  }

 public:
  using LogSection::LogSection;
  ~RunSection() override { ctx_.out.forget_tactic(attempt_); }  // the model keeps what it saw

  std::vector<std::string> triggers() const override {
    return {"run_banner",
            "trt_version_line",
            "trt_version_library",
            "polygraphy_version",
            "run_command",
            "phase_parsing",
            "phase_optimization",
            "phase_tactics",
            "tactic_computing_costs",
            "tactic_format_combination",
            "tactic_timing_runner",
            "tactic_autotuning_op",
            "phase_engine_generation",
            "phase_serialization",
            "phase_inference"};
  }

  bool start(size_t which, const LogLine& line) override {
    const Grammar& g = ctx_.grammar;
    std::string& a = scratch_a_;
    std::string& b = scratch_b_;
    a.clear();
    b.clear();
    switch (which) {
      case kBanner: {
        std::string state, name, version, command;
        RE2::PartialMatch(line.message, g.re("run_banner"), &state, &name, &version, &command);
        if (state == "RUNNING") {
          publish_tactics();
          ctx_.out.new_run();
          attempt_ = {};
          new_attempt();
        }
        if (!version.empty()) ctx_.out.trt_version(trt_version_from_number(version), "banner");
        ctx_.out.run_banner(state, version.empty() ? "" : trt_version_from_number(version), command,
                            ctx_.at(line));
        return false;
      }
      case kVersionLine:
        RE2::PartialMatch(line.message, g.re("trt_version_line"), &a);
        ctx_.out.trt_version(a, "TensorRT version line");
        return false;
      case kVersionLibrary:
        RE2::PartialMatch(line.message, g.re("trt_version_library"), &a);
        ctx_.out.trt_version(a, "library name");
        return false;
      case kPolygraphyVersion:
        RE2::PartialMatch(line.message, g.re("polygraphy_version"), &a);
        ctx_.out.trt_version(a, "Polygraphy module line");
        return false;
      case kCommand:
        RE2::PartialMatch(line.message, g.re("run_command"), &a, &b);
        publish_tactics();
        ctx_.out.run_command(a + " " + b, ctx_.at(line));
        attempt_ = {};
        new_attempt();
        return false;
      case kParsing:
        phase(RunPhase::Parsing, line);
        return false;
      case kOptimization:
        phase(RunPhase::Optimization, line);
        return false;
      case kTactics:
        phase(RunPhase::TacticSelection, line);
        return false;
      case kComputingCosts:
        capture(line, "tactic_computing_costs", parse_computing_costs, a);
        attempt_ = {};
        new_attempt();
        attempt_.node = a;
        attempt_.line = line.number;
        timing(line);
        return false;
      case kFormatCombination:
        attempt_.formats.clear();
        capture(line, "tactic_format_combination", parse_format_combination, attempt_.formats);
        new_attempt();
        timing(line);
        return false;
      case kTimingRunner: {
        // Read into the attempt in place: a verbose log has hundreds of thousands of these.
        std::string_view node, runner;
        if (fast_banners_ && line.captures == 2) {  // read on the screen's thread
          node = line.captured[0];
          runner = line.captured[1];
        } else if (fast_banners_) {
          parse_timing_runner(line.message, node, runner);
        } else {
          RE2::PartialMatch(line.message, g.re("tactic_timing_runner"), &a, &b);
          node = a;
          runner = b;
        }
        if (node != attempt_.node) {
          attempt_.formats.clear();
          attempt_.node.assign(node);
        }
        attempt_.runner.assign(runner);
        attempt_.line = line.number;
        new_attempt();
        timing(line);
        return true;  // the tactic lines follow
      }
      case kAutotuningOp:
        RE2::PartialMatch(line.message, g.re("tactic_autotuning_op"), &a);
        attempt_ = {};
        new_attempt();
        attempt_.node = a;
        attempt_.line = line.number;
        timing(line);
        return true;
      case kEngineGeneration:
        phase(RunPhase::EngineGeneration, line);
        return false;
      case kSerialization:
        phase(RunPhase::Serialization, line);
        return false;
      case kInference:
        phase(RunPhase::Inference, line);
        return false;
    }
    return false;
  }

  // After a Timing Runner: its tactic lines. Warnings among them (skipped tactics, memory) are
  // read as records without closing the block, and the lines that close a runner's or a format
  // combination's timing (profiling completed, runner chosen) are taken without a record: a
  // verbose log holds one or more per runner, and as lines of the block the screen's workers
  // need not match them against every trigger.
  bool next(const LogLine& line) override {
    took_closing_ = false;
    if (line.message.rfind(kTactic, 0) == 0) {
      uint64_t value = 0;
      std::string id;
      if (read_tactic_line(line.message, value, id)) {
        if (ids_.size() < TacticAttempt::kKept) {
          if (!id.empty()) unreadable_.emplace_back(ids_.size(), std::move(id));
          ids_.push_back(value);
        }
        ++tried_;
        tactics_pending_ = true;
        return true;
      }
    }
    if (line.alarm()) return read_error_line(ctx_, line);
    // 8.6 logs a tactic it skips for lack of memory at verbose level, among the timed ones.
    if (line.message.rfind(kSkipping, 0) == 0) return true;
    took_closing_ = closes_timing(line.message);
    return took_closing_;
  }
  bool ended() const override { return took_closing_; }

  // What next() takes: tactic lines, warnings and errors, skipped tactics, the closing lines.
  bool refuses(const LogLine& line) const override {
    return !line.alarm() && line.message.rfind(kTactic, 0) != 0 &&
           line.message.rfind(kSkipping, 0) != 0 && !closes_timing(line.message);
  }

  bool has_body() const override { return true; }
  Body body_line(const LogLine& line, uint64_t& value) const override {
    std::string id;
    if (line.message.rfind(kTactic, 0) == 0 && read_tactic_line(line.message, value, id))
      return id.empty() ? Body::Value : Body::No;
    if (line.alarm()) return Body::No;
    if (line.message.rfind(kSkipping, 0) == 0) return Body::NoValue;
    return closes_timing(line.message) ? Body::Closing : Body::No;
  }
  FastBody fast_body() const override {
    if (!fast_tactic_line_) return {};
    auto read = read_usual_tactic_line;
#if defined(__x86_64__) && defined(__GNUC__)
    if (kAvx2) read = read_usual_tactic_line_avx2;  // without the dispatch's call
#endif
    FastBody fast{{"Tactic Name: ", "Tactic: "}, read, {std::string(kSkipping)}, {}, true};
    if (fast_closing_) fast.closing.emplace_back(kChose);
    return fast;
  }
  void next_body(const uint64_t* values, size_t count) override {
    ids_.insert(ids_.end(), values, values + std::min(count, TacticAttempt::kKept - ids_.size()));
    tried_ += count;
    tactics_pending_ = true;
  }

  // The tactics of a block are handed over only when nothing later can replace them (a new
  // run, the end of the log): the next block's attempt would, and converting millions of ids
  // to text per block costs more than reading them.
  void end() override {}
  void finish() override { publish_tactics(); }

 private:
  // A tactic line's id as a number, or (when it does not fit) as written in `odd`.
  bool read_tactic_line(std::string_view message, uint64_t& value, std::string& odd) const {
    std::string_view id;
    if (fast_tactic_line_) {
      bool read;
      if (!parse_tactic_line(message, id, value, read)) return false;
      if (read) return true;
    } else {
      re2::StringPiece captured;
      if (!RE2::PartialMatch(message, ctx_.grammar.re("tactic_line"), &captured)) return false;
      id = std::string_view(captured.data(), captured.size());
    }
    if (!tactic_value(id, value)) odd.assign(id);
    return true;
  }

  // One capture of a banner: by position with the built-in grammar (on the screen's thread when
  // it matched there), else by its pattern.
  void capture(const LogLine& line, const char* pattern,
               bool (*parse)(std::string_view, std::string_view&), std::string& out) const {
    if (fast_banners_ && line.captures == 1) {
      out.assign(line.captured[0]);
    } else if (fast_banners_) {
      std::string_view v;
      if (parse(line.message, v)) out.assign(v);
    } else {
      RE2::PartialMatch(line.message, ctx_.grammar.re(pattern), &out);
    }
  }

  void new_attempt() {
    attempt_.tactics.clear();
    attempt_.tried = 0;
    ids_.clear();
    tried_ = 0;
    unreadable_.clear();
    tactics_pending_ = false;
  }

  void publish_tactics() {
    if (!tactics_pending_) return;
    tactics_pending_ = false;
    attempt_.tactics.clear();
    const size_t kept = ids_.size();
    attempt_.tactics.reserve(kept);
    attempt_.tried = tried_;
    size_t odd = 0;
    for (size_t i = 0; i < kept; ++i) {
      if (odd < unreadable_.size() && unreadable_[odd].first == i) {
        attempt_.tactics.push_back(unreadable_[odd++].second);
      } else {
        attempt_.tactics.push_back(tactic_text(ids_[i]));
      }
    }
    ctx_.out.run_tactic(attempt_);
  }

  void phase(RunPhase p, const LogLine& line) {
    ctx_.out.run_phase(p, line.number, trim(line.message));
  }

  void timing(const LogLine& line) {
    phase(RunPhase::TacticSelection, line);
    ctx_.out.run_tactic(attempt_);
  }

  // Read by body_line() on the screening threads, with the vtable pointer and ctx_; what
  // follows is written on the dispatching thread, from a cache line of its own (see
  // LogSection::Body).
  const bool fast_tactic_line_ = ctx_.grammar.pattern("tactic_line").builtin;
  const bool fast_closing_ = ctx_.grammar.pattern("tactic_chose_runner").builtin &&
                             ctx_.grammar.pattern("tactic_profiling_completed").builtin;
  const bool fast_banners_ = ctx_.grammar.pattern("tactic_computing_costs").builtin &&
                             ctx_.grammar.pattern("tactic_format_combination").builtin &&
                             ctx_.grammar.pattern("tactic_timing_runner").builtin;
  alignas(kCacheLine) std::string scratch_a_, scratch_b_;  // start()'s captures, buffers kept
  TacticAttempt attempt_;      // its tactics are filled only when published
  // The first kKept tactics of attempt_ and how many there were: a block of a million tactic
  // lines kept whole grew a vector of 8 MB, and each growth faulted in fresh pages.
  std::vector<uint64_t> ids_;
  uint64_t tried_ = 0;
  std::vector<std::pair<size_t, std::string>> unreadable_;  // (index in ids_, id as written)
  bool tactics_pending_ = false;
  bool took_closing_ = false;  // the last line next() took ends the block (ended())
};
// Without the alignas above no test would fail; only a profile would show it.
static_assert(alignof(RunSection) == kCacheLine, "RunSection's state shares a line with its vptr");

}  // namespace

std::unique_ptr<LogSection> make_run_section(LogContext& ctx) {
  return std::make_unique<RunSection>(ctx);
}

}  // namespace trtlens
