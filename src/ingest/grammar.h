// Grammar as data (ARCHITECTURE §2): named RE2 patterns kept in grammar/*.re2, embedded into
// the binary at build time and overridable file by file with --grammar-dir.
//
// File format, one pattern per entry:
//   # example: <a real line, as TensorRT printed it>
//   # versions: <TensorRT versions it was seen in>
//   # contains: <literal> || <literal>     (optional prefilter for unanchored shapes)
//   # starts: <literal> || <literal>       (optional: every match starts with one of these)
//   name = <RE2 pattern>
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <re2/re2.h>

namespace trtlens {

struct GrammarPattern {
  std::string name;
  std::string file;
  int line = 0;
  std::string regex;
  std::string example;
  std::string versions;
  // The compiled pattern: on first use, from any thread, once (a built-in pattern's start
  // analysis below comes from the build, so most patterns of a run are never compiled).
  // Throws GrammarError when the pattern does not compile.
  const RE2& re() const;
  // The file is the one built into trtlens (not replaced through --grammar-dir): code may then
  // use a hand-written fast path that tests prove equivalent to the pattern.
  bool builtin = false;
  // Literal text every match starts with (for anchored patterns); "" when none is known.
  std::string literal_prefix;
  // Bytes a match can start with, from RE2's analysis ([first, last]); 0/255 when unknown.
  unsigned char first_min = 0, first_max = 255;
  // "# contains: a || b": a match holds one of these literals (a prefilter for patterns that
  // do not start with fixed text).
  std::vector<std::string> contains;
  // "# starts: a || b": every match starts with one of these (alternatives of fixed text, which
  // RE2 reports no literal prefix for): each is tried like a literal prefix.
  std::vector<std::string> starts;

 private:
  friend class Grammar;
  mutable std::once_flag compile_once_;
  mutable std::unique_ptr<RE2> compiled_;
  bool analysed_ = false;  // literal_prefix and first_min/first_max are known
};

// A pattern's start analysis as the build computed it for the built-in grammar
// (tools/grammar_index.cc): literal_prefix, first_min and first_max of the pattern `name`
// whose text is `regex`.
struct GrammarStart {
  const char* name;
  const char* regex;
  const char* prefix;
  size_t prefix_size;
  unsigned char first_min, first_max;
};

class Grammar {
 public:
  // The embedded grammar, with files of `override_dir` (if not empty) replacing or adding to it.
  static std::shared_ptr<const Grammar> load(const std::string& override_dir = "");
  static std::shared_ptr<const Grammar> from_files(
      const std::vector<std::pair<std::string, std::string>>& files);  // (name, text)

  // The pattern called `name`; throws GrammarError when the grammar lacks it, or when a pattern
  // does not compile. Built-in patterns compile one by one on first use (GrammarPattern::re());
  // the patterns of files given with --grammar-dir all compile on the first call of any of
  // these, so that a bad one is reported before reading starts. Compiling every pattern took
  // a third of reading a small log.
  const RE2& re(std::string_view name) const;
  const GrammarPattern& pattern(std::string_view name) const;
  bool has(std::string_view name) const;
  const std::vector<std::unique_ptr<GrammarPattern>>& patterns() const {
    compiled();
    return patterns_;
  }

 private:
  void add_file(const std::string& file, const std::string& text);  // read, not compiled
  void compile();
  void compiled() const;  // compiles on first call; rethrows a compile error on every call

  mutable std::once_flag compile_once_;
  mutable std::exception_ptr compile_error_;

  std::vector<std::unique_ptr<GrammarPattern>> patterns_;
  std::map<std::string, GrammarPattern*, std::less<>> by_name_;
};

class GrammarError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The embedded grammar files (generated at build time from grammar/*.re2).
const std::vector<std::pair<std::string, std::string>>& embedded_grammar_files();
// Their patterns' start analysis (generated at build time by tools/grammar_index.cc).
const std::vector<GrammarStart>& embedded_grammar_starts();
// Every "# contains:" literal of the embedded files, each once, and a Hyperscan database that
// finds them (serialized; literal i reports id i), built for any x86-64 CPU. `size` is 0 when
// the build had no Hyperscan.
struct GrammarLiteralDatabase {
  const char* const* literals;
  size_t count;
  const char* bytes;
  size_t size;
};
const GrammarLiteralDatabase& embedded_literal_database();

}  // namespace trtlens
