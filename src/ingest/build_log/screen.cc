#include "ingest/build_log/screen.h"

#include <algorithm>
#include <cstring>

namespace trtlens {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The shape nearly every line of a trtexec log has, "[MM/DD/YYYY-HH:MM:SS] [X] [TRT] ",
// checked by position: what the first three prefix patterns consume, without running them
// (they cost most of a log's parse time). Only with the built-in prefix grammar; a test checks
// both paths agree.
void fast_trtexec(re2::StringPiece& s, LogLine& line) {
  const char* p = s.data();
  const size_t n = s.size();
  if (n >= 22 && p[0] == '[' && is_digit(p[1]) && is_digit(p[2]) && p[3] == '/' &&
      is_digit(p[4]) && is_digit(p[5]) && p[6] == '/' && is_digit(p[7]) && is_digit(p[8]) &&
      is_digit(p[9]) && is_digit(p[10]) && p[11] == '-' && is_digit(p[12]) && is_digit(p[13]) &&
      p[14] == ':' && is_digit(p[15]) && is_digit(p[16]) && p[17] == ':' && is_digit(p[18]) &&
      is_digit(p[19]) && p[20] == ']') {
    size_t k = p[21] == ' ' ? 22 : 21;
    line.prefixed = true;
    if (n >= k + 3 && p[k] == '[' && p[k + 2] == ']' && p[k + 1] != '\0' &&
        std::strchr("VIWEF", p[k + 1])) {
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

}  // namespace

LogScreen::LogScreen(const Grammar& grammar,
                     const std::vector<std::unique_ptr<LogSection>>& sections) {
  bool builtin = true;
  for (const auto& p : grammar.patterns()) {
    if (p->name.rfind("prefix_", 0) != 0) continue;
    prefixes_.push_back(Prefix{p.get(), p->name == "prefix_severity" || p->name == "prefix_python_old",
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
      const size_t n = std::min<size_t>(p.literal_prefix.size(), 8);
      t.word = head_word(std::string_view(p.literal_prefix).substr(0, n));
      t.mask = n == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * n)) - 1;
      for (const auto& lit : p.contains) {
        auto at = std::find(literals_.begin(), literals_.end(), lit);
        t.literals.push_back(uint32_t(at - literals_.begin()));
        if (at == literals_.end()) literals_.push_back(lit);
      }
      triggers_.push_back(Trigger{s.get(), i, &p});
      if (!p.literal_prefix.empty()) {
        by_first_[static_cast<unsigned char>(p.literal_prefix[0])].push_back(t);
      } else if (p.first_min != 0 || p.first_max != 255) {
        for (unsigned c = p.first_min; c <= p.first_max; ++c) by_first_[c].push_back(t);
      } else {
        always_.push_back(t);
      }
    }
    if (s->takes_error_lines() && error_trigger_ < 0) {
      error_trigger_ = int(triggers_.size());
      triggers_.push_back(Trigger{s.get(), names.size(), nullptr});
    }
  }
}

// Strips log prefixes (grammar/prefix.re2) from the front of the message, repeatedly.
void LogScreen::strip(LogLine& line) const {
  re2::StringPiece s(line.message.data(), line.message.size());
  if (fast_prefix_) fast_trtexec(s, line);
  for (int round = 0; round < 8 && !s.empty(); ++round) {
    char c = s[0];
    if (c != '[' && c != ' ' && c != '\t' && !is_digit(c)) break;
    bool any = false;
    for (const Prefix& p : prefixes_) {
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

LogLine LogScreen::line(std::string_view text, uint64_t number) const {
  LogLine line;
  line.text = text;
  line.message = text;
  line.number = number;
  strip(line);
  return line;
}

template <class Holds>
bool LogScreen::first_match(const std::vector<Candidate>& list, const LogLine& line,
                            const Holds& holds, int& hit) const {
  const std::string_view m = line.message;
  const uint64_t head = head_word(m);
  for (const Candidate& c : list) {
    if ((head & c.mask) != c.word) continue;
    const GrammarPattern& p = *c.pattern;
    const std::string& lit = p.literal_prefix;
    if (m.size() < lit.size()) continue;
    if (lit.size() > 8 && std::memcmp(m.data() + 8, lit.data() + 8, lit.size() - 8) != 0) continue;
    if (!c.literals.empty() && std::none_of(c.literals.begin(), c.literals.end(), holds)) continue;
    if (!RE2::PartialMatch(m, *p.re)) continue;
    hit = int(c.trigger);
    return true;
  }
  return false;
}

template <class Holds>
int LogScreen::match(const LogLine& line, const Holds& holds) const {
  if (line.message.empty()) return -1;
  int hit = -1;
  if (!first_match(by_first_[static_cast<unsigned char>(line.message[0])], line, holds, hit))
    first_match(always_, line, holds, hit);
  if (hit < 0 && error_trigger_ >= 0 &&
      (line.severity == 'E' || line.severity == 'W' || line.severity == 'F'))
    hit = error_trigger_;
  return hit;
}

int LogScreen::match(const LogLine& line) const {
  return match(line, [&](uint32_t k) {
    return line.message.find(literals_[k]) != std::string_view::npos;
  });
}

void LogScreen::screen(ScreenedBlock& b, size_t max_line) const {
  const std::string_view bytes = b.bytes;
  b.has_cr = std::memchr(bytes.data(), '\r', bytes.size()) != nullptr;
  b.has_esc = std::memchr(bytes.data(), '\x1b', bytes.size()) != nullptr;
  b.lines = b.recognized = 0;
  b.hits.clear();
  b.truncated.clear();

  std::string scratch;
  BlockLine raw;
  for (size_t pos = 0; block_line(bytes, pos, b.has_cr, max_line, raw); pos = raw.next) {
    const uint32_t index = uint32_t(b.lines++);
    if (raw.truncated) b.truncated.push_back(index);
    LogLine l = line(b.has_esc ? strip_ansi(raw.text, scratch) : raw.text, 0);
    int hit = match(l);
    if (hit >= 0) b.hits.push_back(ScreenedBlock::Hit{uint32_t(pos), index, uint32_t(hit)});
    if (hit >= 0 || l.prefixed) ++b.recognized;
  }
}

}  // namespace trtlens
