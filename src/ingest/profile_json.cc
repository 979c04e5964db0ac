#include "ingest/profile_json.h"

#include <cmath>
#include <cstdlib>

#include "model/values.h"

namespace trtlens {
namespace {

std::string_view skip_ws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

// Drops a leading "[", "," and blanks: the writer puts the separator before each record.
std::string_view record_body(std::string_view s) {
  s = skip_ws(s);
  if (!s.empty() && (s.front() == '[' || s.front() == ',')) s = skip_ws(s.substr(1));
  return s;
}

bool consume(std::string_view& s, std::string_view lit) {
  if (s.substr(0, lit.size()) != lit) return false;
  s.remove_prefix(lit.size());
  return true;
}

// A number as ostream prints it (incl. nan, inf, -nan, 1e-05). Advances `s`.
std::optional<double> take_number(std::string_view& s, bool& ok) {
  size_t end = 0;
  while (end < s.size() && s[end] != ',' && s[end] != ' ' && s[end] != '}') ++end;
  std::string tok(s.substr(0, end));
  ok = false;
  if (tok.empty()) return std::nullopt;
  char* stop = nullptr;
  double v = std::strtod(tok.c_str(), &stop);
  if (stop != tok.c_str() + tok.size()) return std::nullopt;
  ok = true;
  s.remove_prefix(end);
  return v;
}

// `"timeMs" : x, "averageMs" : x, ... }` after the name. False when the shape is wrong.
bool parse_fields(std::string_view s, ProfileRow& row, std::vector<std::string>& problems) {
  bool first = true;
  for (;;) {
    s = skip_ws(s);
    if (s == "}") return !first;
    if (!first && !consume(s, ",")) return false;
    s = skip_ws(s);
    if (!consume(s, "\"")) return false;
    size_t q = s.find('"');
    if (q == std::string_view::npos) return false;
    std::string key(s.substr(0, q));
    s.remove_prefix(q + 1);
    s = skip_ws(s);
    if (!consume(s, ":")) return false;
    s = skip_ws(s);
    bool ok = false;
    std::optional<double> v = take_number(s, ok);
    if (!ok) return false;
    if (!std::isfinite(*v)) {
      problems.push_back("'" + row.name + "': " + key + " is " + (std::isnan(*v) ? "nan" : "inf"));
      v.reset();
    }
    if (key == "timeMs")
      row.total_ms = v;
    else if (key == "averageMs")
      row.average_ms = v;
    else if (key == "medianMs")
      row.median_ms = v;
    else if (key == "percentage")
      row.percentage = v;
    else
      problems.push_back("'" + row.name + "': unknown key " + key);
    first = false;
  }
}

}  // namespace

std::optional<ProfileRow> parse_profile_record(std::string_view line,
                                               std::vector<std::string>& problems) {
  std::string_view s = trim(record_body(line));
  if (!consume(s, "{")) return std::nullopt;
  s = skip_ws(s);
  if (!consume(s, "\"name\"")) return std::nullopt;
  s = skip_ws(s);
  if (!consume(s, ":")) return std::nullopt;
  s = skip_ws(s);
  if (!consume(s, "\"")) return std::nullopt;
  // The name is raw: it ends at the separator, not at the first quote.
  static constexpr std::string_view kSep = "\", \"timeMs\" : ";
  for (size_t at = s.find(kSep); at != std::string_view::npos; at = s.find(kSep, at + 1)) {
    ProfileRow row;
    row.name = std::string(s.substr(0, at));
    std::vector<std::string> local;
    if (parse_fields(s.substr(at + 3), row, local)) {
      problems.insert(problems.end(), local.begin(), local.end());
      return row;
    }
  }
  return std::nullopt;
}

std::optional<int64_t> parse_profile_count(std::string_view line) {
  std::string_view s = trim(record_body(line));
  if (!consume(s, "{")) return std::nullopt;
  s = skip_ws(s);
  if (!consume(s, "\"count\"")) return std::nullopt;
  s = skip_ws(s);
  if (!consume(s, ":")) return std::nullopt;
  s = skip_ws(s);
  char* stop = nullptr;
  std::string rest(s);
  long long n = std::strtoll(rest.c_str(), &stop, 10);
  if (stop == rest.c_str()) return std::nullopt;
  std::string_view tail = skip_ws(std::string_view(stop));
  if (tail != "}") return std::nullopt;
  return n;
}

void ingest_profile_json(LineReader& lines, Assembler& out, const std::string& path) {
  BuildProfile p;
  p.source = path;
  p.format = "export-json";
  p.line = 1;
  bool closed = false;
  Line line;
  while (lines.next(line)) {
    std::string_view t = trim(line.text);
    if (t.empty() || t == "[") continue;
    if (t == "]") {
      closed = true;
      continue;
    }
    SourceLoc at{path, line.number};
    if (closed) {
      out.unrecognized(at, "text after the end of the profile array");
      continue;
    }
    if (auto n = parse_profile_count(t)) {
      p.count = *n;
      continue;
    }
    std::vector<std::string> problems;
    if (auto row = parse_profile_record(t, problems)) {
      row->line = line.number;
      for (auto& m : problems) {
        out.diagnostic(Severity::Warning, at, "profile row " + m);
        p.warnings.push_back(m);
      }
      p.rows.push_back(std::move(*row));
      continue;
    }
    out.unrecognized(at, "not a profile record");
  }
  if (p.rows.empty())
    throw InputError(path, "no profile records ({ \"name\" : ..., \"timeMs\" : ... })");
  if (!closed)
    out.diagnostic(Severity::Warning, {path, lines.lines()},
                   "profile array has no closing ']' (truncated file?); kept the " +
                       std::to_string(p.rows.size()) + " whole records");
  out.add_profile(std::move(p));
}

}  // namespace trtlens
