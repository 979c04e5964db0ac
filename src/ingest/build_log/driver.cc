#include <array>
#include <cstring>

#include "ingest/build_log.h"
#include "ingest/build_log/section.h"

namespace trtlens {
namespace {

// Strips log prefixes (grammar/prefix.re2) from the front of a line, repeatedly.
class PrefixStripper {
 public:
  explicit PrefixStripper(const Grammar& g) {
    for (const auto& p : g.patterns())
      if (p->name.rfind("prefix_", 0) == 0) patterns_.push_back(p.get());
  }

  void strip(LogLine& line) const {
    re2::StringPiece s(line.message.data(), line.message.size());
    for (int round = 0; round < 8 && !s.empty(); ++round) {
      char c = s[0];
      if (c != '[' && c != ' ' && c != '\t' && !(c >= '0' && c <= '9')) break;
      bool any = false;
      for (const GrammarPattern* p : patterns_) {
        re2::StringPiece before = s;
        std::string sev;
        if (p->name == "prefix_severity" || p->name == "prefix_python_old") {
          if (!RE2::Consume(&s, *p->re, &sev)) continue;
          if (!sev.empty()) line.severity = sev == "INTERNAL_ERROR" ? 'E' : sev[0];
        } else if (!RE2::Consume(&s, *p->re)) {
          continue;
        }
        if (s.size() == before.size()) continue;
        if (p->name != "prefix_blank") line.prefixed = true;
        any = true;
        break;
      }
      if (!any) break;
    }
    line.message = std::string_view(s.data(), s.size());
  }

 private:
  std::vector<const GrammarPattern*> patterns_;
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

  // Candidates by the first byte of their literal prefix; patterns without one run always.
  std::array<std::vector<Trigger>, 256> by_first{};
  std::vector<Trigger> always;
  for (auto& s : sections) {
    auto names = s->triggers();
    for (size_t i = 0; i < names.size(); ++i) {
      const GrammarPattern& p = grammar.pattern(names[i]);
      Trigger t{s.get(), i, &p};
      if (p.literal_prefix.empty()) always.push_back(t);
      else by_first[static_cast<unsigned char>(p.literal_prefix[0])].push_back(t);
    }
  }

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
