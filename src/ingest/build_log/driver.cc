#include <array>
#include <cstring>

#include "ingest/build_log.h"
#include "ingest/build_log/section.h"

namespace trtlens {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Strips log prefixes (grammar/prefix.re2) from the front of a line, repeatedly.
class PrefixStripper {
 public:
  explicit PrefixStripper(const Grammar& g) {
    bool builtin = true;
    for (const auto& p : g.patterns()) {
      if (p->name.rfind("prefix_", 0) != 0) continue;
      Prefix x{p.get(), p->name == "prefix_severity" || p->name == "prefix_python_old",
               p->name == "prefix_blank"};
      patterns_.push_back(x);
      builtin = builtin && p->builtin;
    }
    fast_ = builtin;
  }

  void strip(LogLine& line) const {
    re2::StringPiece s(line.message.data(), line.message.size());
    if (fast_) fast_trtexec(s, line);
    for (int round = 0; round < 8 && !s.empty(); ++round) {
      char c = s[0];
      if (c != '[' && c != ' ' && c != '\t' && !is_digit(c)) break;
      bool any = false;
      for (const Prefix& p : patterns_) {
        const size_t before = s.size();
        re2::StringPiece sev;
        if (p.severity) {
          if (!RE2::Consume(&s, *p.pattern->re, &sev)) continue;
          if (!sev.empty()) line.severity = sev == "INTERNAL_ERROR" ? 'E' : sev[0];
        } else if (!RE2::Consume(&s, *p.pattern->re)) {
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

  // The shape nearly every line of a trtexec log has, "[MM/DD/YYYY-HH:MM:SS] [X] [TRT] ",
  // checked by position: what the first three prefix patterns consume, without running them
  // (they cost most of a log's parse time). Only with the built-in prefix grammar; a test checks
  // both paths agree.
  static void fast_trtexec(re2::StringPiece& s, LogLine& line) {
    const char* p = s.data();
    const size_t n = s.size();
    if (n >= 22 && p[0] == '[' && is_digit(p[1]) && is_digit(p[2]) && p[3] == '/' &&
        is_digit(p[4]) && is_digit(p[5]) && p[6] == '/' && is_digit(p[7]) && is_digit(p[8]) &&
        is_digit(p[9]) && is_digit(p[10]) && p[11] == '-' && is_digit(p[12]) && is_digit(p[13]) &&
        p[14] == ':' && is_digit(p[15]) && is_digit(p[16]) && p[17] == ':' && is_digit(p[18]) &&
        is_digit(p[19]) && p[20] == ']') {
      size_t k = p[21] == ' ' ? 22 : 21;
      line.prefixed = true;
      if (n >= k + 3 && p[k] == '[' && p[k + 2] == ']' && std::strchr("VIWEF", p[k + 1]) &&
          p[k + 1] != '\0') {
        line.severity = p[k + 1];
        k += 3;
        if (k < n && p[k] == ' ') ++k;
        if (n >= k + 5 && std::memcmp(p + k, "[TRT]", 5) == 0) {
          k += 5;
          if (k < n && p[k] == ' ') ++k;
        }
      }
      s.remove_prefix(k);
    }
  }

 private:
  struct Prefix {
    const GrammarPattern* pattern;
    bool severity;  // captures the severity (letter or word)
    bool blank;     // leading blanks: not a log prefix
  };
  std::vector<Prefix> patterns_;
  bool fast_ = false;
};

struct Trigger {
  LogSection* section;
  size_t which;
  const GrammarPattern* pattern;
};

}  // namespace

LogStats ingest_build_log(LineReader& lines, const Grammar& grammar, Assembler& out,
                          const std::string& path) {
  LogContext ctx{grammar, out, path};
  std::vector<std::unique_ptr<LogSection>> sections = make_log_sections(ctx);

  // Candidates by the first byte a match can start with (RE2's own analysis); patterns that can
  // start with anything run on every line, behind their "# contains:" literals when they have some.
  std::array<std::vector<Trigger>, 256> by_first{};
  std::vector<Trigger> always;
  for (auto& s : sections) {
    auto names = s->triggers();
    for (size_t i = 0; i < names.size(); ++i) {
      const GrammarPattern& p = grammar.pattern(names[i]);
      Trigger t{s.get(), i, &p};
      if (!p.literal_prefix.empty()) {
        by_first[static_cast<unsigned char>(p.literal_prefix[0])].push_back(t);
      } else if (p.first_min != 0 || p.first_max != 255) {
        for (unsigned c = p.first_min; c <= p.first_max; ++c) by_first[c].push_back(t);
      } else {
        always.push_back(t);
      }
    }
  }
  auto holds_literal = [](std::string_view m, const GrammarPattern& p) {
    if (p.contains.empty()) return true;
    for (const auto& lit : p.contains)
      if (m.find(lit) != std::string_view::npos) return true;
    return false;
  };

  PrefixStripper prefix(grammar);
  LogStats stats;
  LogSection* active = nullptr;
  Line raw;
  while (lines.next(raw)) {
    if (raw.truncated)
      out.diagnostic(Severity::Warning, {path, raw.number},
                     "line longer than the line limit; its end was skipped");
    LogLine line;
    line.text = raw.text;
    line.message = raw.text;
    line.number = raw.number;
    prefix.strip(line);
    bool recognized = line.prefixed;

    if (active) {
      if (active->next(line)) {
        ++stats.recognized;
        continue;
      }
      active->end();
      active = nullptr;
    }
    if (!line.message.empty()) {
      auto try_list = [&](const std::vector<Trigger>& list) {
        for (const Trigger& t : list) {
          const std::string& lit = t.pattern->literal_prefix;
          if (line.message.size() < lit.size() ||
              std::memcmp(line.message.data(), lit.data(), lit.size()) != 0)
            continue;
          if (!holds_literal(line.message, *t.pattern)) continue;
          if (!RE2::PartialMatch(line.message, *t.pattern->re)) continue;
          recognized = true;
          if (t.section->start(t.which, line)) active = t.section;
          return true;
        }
        return false;
      };
      if (!try_list(by_first[static_cast<unsigned char>(line.message[0])])) try_list(always);
    }
    if (recognized) ++stats.recognized;
  }
  if (active) active->end();
  stats.lines = lines.lines();
  return stats;
}

}  // namespace trtlens
