// The verbose build log (and runtime log) ingester is a driver plus one section per family of
// lines (layer listings, run banners, memory, ONNX parse, options, profiles ...). A section
// names the grammar patterns that start it; the driver finds candidate lines with a literal
// prefilter, so lines that matter are found without running every pattern on every line.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/grammar.h"
#include "model/assembler.h"

namespace trtlens {

// The unit of memory the readers ask for ahead of reading it (__builtin_prefetch), and that
// two threads must not share when one of them writes it.
inline constexpr size_t kCacheLine = 64;

struct LogLine {
  std::string_view message;  // the text after the log prefixes
  std::string_view text;     // the whole line
  uint64_t number = 0;
  char severity = 0;  // 'V' 'I' 'W' 'E' 'F', or 0 when the line had no severity tag
  bool prefixed = false;  // the line carried a log prefix (time stamp, severity, [TRT] ...)
  // What the matched trigger's position reader captured on the screen's thread (views into
  // `message`), so that its section need not read the line again; `captures` of them.
  std::string_view captured[2];
  uint8_t captures = 0;
  // A warning, an error or a fatal line ([W], [E], [F]).
  bool alarm() const { return severity == 'W' || severity == 'E' || severity == 'F'; }
};

struct LogContext {
  const Grammar& grammar;
  Assembler& out;
  SharedText path;
  SourceLoc at(const LogLine& line) const { return SourceLoc{path, line.number}; }
  SourceLoc at(uint64_t line) const { return SourceLoc{path, line}; }
};

class LogSection {
 public:
  explicit LogSection(LogContext& ctx) : ctx_(ctx) {}
  virtual ~LogSection() = default;
  // Grammar patterns (anchored with ^) whose match starts this section.
  virtual std::vector<std::string> triggers() const = 0;
  // The line matched triggers()[which]. Return true to be handed the following lines.
  virtual bool start(size_t which, const LogLine& line) = 0;
  // A following line. Return false when it is not this section's: the section is then ended
  // and the driver dispatches the line as usual.
  virtual bool next(const LogLine&) { return false; }
  // True once next() took the section's last line (a Body::Closing one): the driver ends the
  // section right after it, so that no later line, not even a body run read ahead, reaches it.
  virtual bool ended() const { return false; }
  // next() refused the line, yet the section may go on after it: another thread logged into
  // the middle of a listing. The driver holds such lines (a few at most); when the section takes
  // a later line it is told how many it missed, otherwise it ends and the held lines are read
  // as if it had ended at the first of them.
  virtual bool may_resume_after(const LogLine&) { return false; }
  // True when next() would refuse the line and may_resume_after() would not hold it, decided
  // from the line alone (the screen asks on its worker threads, so it must not touch the
  // section's state). False when unsure. The driver then ends the section at such a line
  // without reading it again: most lines between a verbose log's timing blocks are of this kind.
  virtual bool refuses(const LogLine&) const { return false; }
  virtual void interleaved(uint64_t /*count*/, uint64_t /*first_line*/) {}
  virtual void end() {}
  // The log ended (after end(), if the section was open).
  virtual void finish() {}

  // Most of a verbose log is one section's body (tactic timings). Reading it line by line on
  // the dispatching thread would make that thread the bottleneck, so the screen reads body
  // lines ahead on its worker threads with body_line(), which must not touch the section's
  // state. While the section is open, the driver hands it each run of consecutive body lines
  // at once: next_body(values) must do what next() does with those lines. A Closing line is
  // taken silently and ends the section after it (next() refuses the line after it): it is the
  // last of its run, and the driver ends the section once the run is taken.
  // What body_line() and refuses() read must not share a cache line with what start() and
  // next() write on the dispatching thread meanwhile: each such write takes the line from the
  // screening threads (the tactic-block section, with its state beside its vtable pointer, cost
  // a sixth of the CPU of reading a log of per-layer lines). Such a section keeps its mutable
  // members from a line of their own (alignas(kCacheLine)).
  enum class Body { No, Value, NoValue, Closing };  // with a value, silent, silent and last
  virtual bool has_body() const { return false; }
  virtual Body body_line(const LogLine&, uint64_t& /*value*/) const { return Body::No; }
  virtual void next_body(const uint64_t* /*values*/, size_t /*count*/) {}
  // A shortcut for the commonest body lines, whose message starts with one of `starts`: `read`
  // reads a line straight from the block, from its message at `message` (the bytes run on to
  // `end`, past the line's end), and returns where the part it needs ends (the rest of the line
  // is taken whatever it holds) with the value body_line() would give as Body::Value; or null,
  // and the screen takes the usual path. It must never take a line end. The screen does not
  // match such lines against the triggers; the driver does, if the section does not take them.
  // `silent` and `closing`: starts of messages body_line() takes as Body::NoValue and as
  // Body::Closing whatever follows (unless the line is a warning or an error), read the same way.
  struct FastBody {
    std::vector<std::string> starts;
    const char* (*read)(const char* message, const char* end, uint64_t& value) = nullptr;
    std::vector<std::string> silent;
    std::vector<std::string> closing;
    // `read` is read_usual_tactic_line: the screen may call its inline form instead.
    bool tactic_line = false;
  };
  virtual FastBody fast_body() const { return {}; }
  // True for the one section that also gets every error or warning line ([E], [W], [F]) no
  // trigger matched, as trigger index triggers().size().
  virtual bool takes_error_lines() const { return false; }

 protected:
  LogContext& ctx_;
};

// Sections, one file each under src/ingest/build_log/; sections.cc lists them.
std::vector<std::unique_ptr<LogSection>> make_log_sections(LogContext& ctx);
std::unique_ptr<LogSection> make_layers_section(LogContext& ctx);
std::unique_ptr<LogSection> make_run_section(LogContext& ctx);
std::unique_ptr<LogSection> make_memory_section(LogContext& ctx);
std::unique_ptr<LogSection> make_onnx_parse_section(LogContext& ctx);
// "[a -> (1, 3)[FLOAT]], [b -> ()[INT64]]," (the ONNX parser's node tensors); false + error when
// the text is not such a list.
bool parse_onnx_value_list(std::string_view text, std::vector<OnnxValue>& out, std::string* error);

std::unique_ptr<LogSection> make_profile_section(LogContext& ctx);
std::unique_ptr<LogSection> make_runtime_section(LogContext& ctx);

std::unique_ptr<LogSection> make_fusion_section(LogContext& ctx);

// DLA placement and fallbacks; the build tuner's lines
std::unique_ptr<LogSection> make_dla_section(LogContext& ctx);
std::unique_ptr<LogSection> make_tuner_section(LogContext& ctx);

// RE2's \s ([\t\n\f\r ], no \v) and \d, for the readers below that stand in for patterns.
inline bool re2_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}
inline bool re2_digit(char c) { return c >= '0' && c <= '9'; }
// RE2's \w ([0-9A-Za-z_]), by table: names of runners and nodes are read back byte by byte.
inline constexpr std::array<bool, 256> kRe2Word = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c)
    t[size_t(c)] =
        (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  return t;
}();
inline bool re2_word(char c) { return kRe2Word[static_cast<unsigned char>(c)]; }

// The id the built-in tactic_line pattern captures, read without RE2 (tactic lines are most of
// a verbose log); false when the pattern does not match.
bool parse_tactic_line(std::string_view message, std::string_view& id);
// The usual shape of it read straight from a block (see LogSection::FastBody).
const char* read_usual_tactic_line(const char* message, const char* end, uint64_t& value);
// The same, with the id's value when it has the usual 16 hex digits (`read` then true).
bool parse_tactic_line(std::string_view message, std::string_view& id, uint64_t& value,
                       bool& read);
// The same for the banners of a tactic block: tactic_computing_costs,
// tactic_format_combination, tactic_timing_runner.
bool parse_computing_costs(std::string_view message, std::string_view& node);
bool parse_format_combination(std::string_view message, std::string_view& formats);
bool parse_timing_runner(std::string_view message, std::string_view& node,
                         std::string_view& runner);
// tactic_chose_runner and tactic_profiling_completed: the lines that end a timing block.
bool chose_runner(std::string_view message);
bool profiling_completed(std::string_view message);
// mem_layer's four captures (name, host, device, scratch) by position, as its FullMatch.
bool parse_memory_layer(std::string_view message, std::string_view figures[4]);

// Error and warning records, and how a process stopped.
std::unique_ptr<LogSection> make_errors_section(LogContext& ctx);
// Reads an error or warning line into a record of the current run (also for sections that
// keep a block open across such lines). False when the line is neither.
bool read_error_line(LogContext& ctx, const LogLine& line);

}  // namespace trtlens
