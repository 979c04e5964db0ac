#include "ingest/profile_json.h"

#include <cmath>
#include <cstdlib>

#include "ingest/json_text.h"
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
    std::optional<double> number = take_number(s, ok);
    if (!ok || !number) return false;
    Maybe<double> v = *number;
    if (!std::isfinite(*number)) {
      problems.push_back("'" + row.name + "': " + key + " is " +
                         (std::isnan(*number) ? "nan" : "inf"));
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

namespace {

namespace od = simdjson::ondemand;

struct Problem {
  uint64_t line;
  std::string message;
};

std::optional<double> json_number(od::value v, const std::string& row, std::string_view key,
                                  uint64_t line, std::vector<Problem>& problems) {
  if (v.type() != od::json_type::number) {
    problems.push_back({line, "'" + row + "': " + std::string(key) + " is " +
                                  json_type_name(v.type()) + ", not a number"});
    return std::nullopt;
  }
  return double(v.get_double());
}

// The file as JSON: `[ {"count": N}, {"name": ..., "timeMs": ..., ...}, ... ]` in any layout,
// names with their escapes decoded. False (and nothing kept) when it is not valid JSON of that
// shape: trtexec writes names unescaped and nan as a bare word, which the scanner then reads.
bool read_as_json(std::string& text, BuildProfile& p, std::vector<Problem>& problems,
                  std::vector<Problem>& stray) {
  uint64_t records = 0;
  if (json_needs_sanitizing(text, &records)) return false;
  const size_t size = text.size();
  text.append(simdjson::SIMDJSON_PADDING, ' ');
  text.resize(size);
  simdjson::padded_string_view json(text.data(), size, text.capacity());
  std::vector<ProfileRow> rows;
  // Sized once: doubling would hold up to three times the rows at the moment of a copy.
  rows.reserve(size_t(records));
  std::optional<int64_t> count;
  LineCounter lines(text);
  try {
    od::parser parser;
    if (parser.allocate(json.length(), kJsonDepthLimit) != simdjson::SUCCESS)
      throw std::bad_alloc();
    od::document doc = parser.iterate(json);
    for (auto item : doc.get_array()) {
      od::value v = item.value();
      const uint64_t line = lines.line_at(v.raw_json_token().data());
      if (v.type() != od::json_type::object) {
        stray.push_back(
            {line, "profile entry is " + std::string(json_type_name(v.type())) + ", not a record"});
        continue;
      }
      ProfileRow row;
      row.line = line;
      bool named = false, counted = false;
      const size_t first_problem = problems.size();
      for (auto field : v.get_object()) {
        std::string_view key = field.unescaped_key();
        od::value value = field.value();
        if (key == "name" && value.type() == od::json_type::string) {
          row.name = std::string(std::string_view(value.get_string()));
          named = true;
        } else if (key == "count" && value.type() == od::json_type::number) {
          int64_t n = 0;
          if (value.get_int64().get(n) == simdjson::SUCCESS)
            count = n;
          else
            problems.push_back({line, "'?': count " + std::string(trim(value.raw_json_token())) +
                                          " is not an integer"});
          counted = true;
        } else if (key == "timeMs" || key == "averageMs" || key == "medianMs" ||
                   key == "percentage") {
          std::optional<double> x = json_number(value, "?", key, line, problems);
          if (key == "timeMs")
            row.total_ms = x;
          else if (key == "averageMs")
            row.average_ms = x;
          else if (key == "medianMs")
            row.median_ms = x;
          else
            row.percentage = x;
        } else {
          problems.push_back({line, "'?': unknown key " + std::string(key)});
        }
      }
      if (counted && !named) continue;
      if (!named) {
        stray.push_back({line, "profile record without a \"name\""});
        continue;
      }
      // Problems were noted before the name was known (keys come in any order).
      for (size_t k = first_problem; k < problems.size(); ++k)
        problems[k].message = "'" + row.name + "'" + problems[k].message.substr(3);
      rows.push_back(std::move(row));
    }
    if (json_has_more(doc)) return false;
  } catch (const simdjson::simdjson_error&) {
    return false;
  }
  if (rows.empty()) return false;
  p.rows = std::move(rows);
  p.count = count;
  return true;
}

// Splits `text` at LF, CRLF or CR; calls f(line, number).
template <class F>
uint64_t for_each_line(std::string_view text, F f) {
  uint64_t number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find_first_of("\r\n", pos);
    if (end == std::string_view::npos) end = text.size();
    f(text.substr(pos, end - pos), ++number);
    pos = end + 1;
    if (end < text.size() && text[end] == '\r' && pos < text.size() && text[pos] == '\n') ++pos;
  }
  return number;
}

}  // namespace

void ingest_profile_json(std::string& text, Assembler& out, const std::string& path) {
  BuildProfile p;
  p.source = path;
  p.format = "export-json";
  p.line = 1;
  std::vector<Problem> problems, stray;
  if (read_as_json(text, p, problems, stray)) {
    for (auto& pr : problems) {
      out.diagnostic(Severity::Warning, {path, pr.line}, "profile row " + pr.message);
      p.warnings.push_back(pr.message);
    }
    for (auto& pr : stray) out.unrecognized({path, pr.line}, pr.message);
    out.add_profile(std::move(p));
    return;
  }

  // trtexec's own output: one record per line, read by the tolerant scanner.
  const SharedText where(path);  // interned once: every row's location names it
  p.rows.reserve(size_t(count_newlines(text.data(), text.size())) + 1);
  bool closed = false;
  const uint64_t last = for_each_line(text, [&](std::string_view raw, uint64_t number) {
    std::string_view t = trim(raw);
    if (t.empty() || t == "[") return;
    if (t == "]") {
      closed = true;
      return;
    }
    SourceLoc at{where, number};
    if (closed) {
      out.unrecognized(at, "text after the end of the profile array");
      return;
    }
    if (auto n = parse_profile_count(t)) {
      p.count = *n;
      return;
    }
    std::vector<std::string> row_problems;
    if (auto row = parse_profile_record(t, row_problems)) {
      row->line = number;
      for (auto& m : row_problems) {
        out.diagnostic(Severity::Warning, at, "profile row " + m);
        p.warnings.push_back(m);
      }
      p.rows.push_back(std::move(*row));
      return;
    }
    out.unrecognized(at, "not a profile record");
  });
  if (p.rows.empty())
    throw InputError(path, "no profile records ({ \"name\" : ..., \"timeMs\" : ... })");
  if (!closed)
    out.diagnostic(Severity::Warning, {path, last},
                   "profile array has no closing ']' (truncated file?); kept the " +
                       std::to_string(p.rows.size()) + " whole records");
  out.add_profile(std::move(p));
}

}  // namespace trtlens
