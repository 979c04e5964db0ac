// Per-layer profiles inside a log: --dumpProfile tables (<= 8.2 name first; 8.4-8.5 with a
// median; 8.6+ name last) and --exportProfile arrays pasted into a log or a page.
#include <cmath>
#include <cstdlib>

#include "ingest/build_log/section.h"
#include "model/values.h"
#include "ingest/profile_json.h"

namespace trtlens {
namespace {

bool to_number(std::string_view tok, double& v) {
  std::string t(tok);
  if (t.empty()) return false;
  char* stop = nullptr;
  v = std::strtod(t.c_str(), &stop);
  return stop == t.c_str() + t.size();
}

std::optional<double> finite(double v) {
  if (std::isfinite(v)) return v;
  return std::nullopt;
}

enum class Mode { None, Table, Array };

class ProfileSection : public LogSection {
 public:
  using LogSection::LogSection;

  std::vector<std::string> triggers() const override {
    return {"profile_table_title",      "profile_table_columns_82", "profile_table_columns_84",
            "profile_table_columns_86", "profile_aux_streams",      "profile_array_count",
            "profile_array_record"};
  }

  bool start(size_t which, const LogLine& line) override {
    const Grammar& g = ctx_.grammar;
    switch (which) {
      case 0: {
        begin(Mode::Table, line);
        long long n = 0;
        if (RE2::PartialMatch(line.message, g.re("profile_table_title"), &n)) profile_.count = n;
        return true;
      }
      case 1:
      case 2:
      case 3:
        begin(Mode::Table, line);
        layout_ = int(which);
        profile_.format = kLayouts[which];
        return true;
      case 4:
        pending_warnings_.push_back(std::string(trim(line.message)));
        return false;
      case 5:
        begin(Mode::Array, line);
        profile_.count = parse_profile_count(line.message);
        return true;
      case 6:
        begin(Mode::Array, line);
        return next(line);
    }
    return false;
  }

  bool next(const LogLine& line) override {
    if (done_) return false;
    // Tables copied from a web page carry no-break spaces (U+00A0) for the alignment.
    std::string spaced;
    std::string_view msg = line.message;
    if (msg.find("\xC2\xA0") != std::string_view::npos) {
      for (size_t i = 0; i < msg.size(); ++i) {
        if (msg[i] == '\xC2' && i + 1 < msg.size() && msg[i + 1] == '\xA0') {
          spaced += ' ';
          ++i;
        } else {
          spaced += msg[i];
        }
      }
      msg = spaced;
    }
    msg = trim(msg);
    if (msg.empty()) return !line.prefixed;  // blank lines of a page; a log's blank line ends it
    return mode_ == Mode::Table ? table_line(line, msg) : array_line(line, msg);
  }

  void end() override {
    if (mode_ == Mode::None) return;
    if (profile_.rows.empty()) {
      ctx_.out.diagnostic(Severity::Warning, {ctx_.path, profile_.line}, "profile without rows");
    } else {
      if (mode_ == Mode::Table && !profile_.total)
        ctx_.out.diagnostic(Severity::Warning, {ctx_.path, last_line_},
                            "profile table ends without its Total row (cut short?)");
      if (mode_ == Mode::Array) {
        if (!done_)
          ctx_.out.diagnostic(Severity::Warning, {ctx_.path, last_line_},
                              "exported profile array ends without ']' (cut short?)");
        if (!looks_like_log_)
          ctx_.out.diagnostic(Severity::Info, {ctx_.path, profile_.line},
                              "an --exportProfile array inside a text file; read as a profile");
      }
      for (auto& w : pending_warnings_) profile_.warnings.push_back(w);
      pending_warnings_.clear();
      ctx_.out.add_profile(std::move(profile_));
    }
    mode_ = Mode::None;
  }

 private:
  static constexpr const char* kLayouts[] = {"", "table-8.2", "table-8.4", "table-8.6"};

  void begin(Mode mode, const LogLine& line) {
    if (mode_ != Mode::None) end();
    mode_ = mode;
    done_ = false;
    layout_ = 0;
    profile_ = BuildProfile{};
    profile_.source = ctx_.path;
    profile_.line = line.number;
    profile_.format = mode == Mode::Array ? "export-json" : "";
    looks_like_log_ = line.prefixed;
    last_line_ = line.number;
  }

  bool table_line(const LogLine& line, std::string_view msg) {
    const Grammar& g = ctx_.grammar;
    if (layout_ == 0) {
      for (int k = 1; k <= 3; ++k) {
        if (RE2::PartialMatch(msg,
                              g.re(std::string("profile_table_columns_") + (k == 1   ? "82"
                                                                            : k == 2 ? "84"
                                                                                     : "86")))) {
          layout_ = k;
          profile_.format = kLayouts[k];
          return true;
        }
      }
      return false;
    }
    ProfileRow row;
    if (!parse_row(msg, row)) return false;
    row.line = line.number;
    last_line_ = line.number;
    if (row.name == "Total") {
      profile_.total = row;
      done_ = true;
    } else {
      profile_.rows.push_back(std::move(row));
    }
    return true;
  }

  // Splits a row into its numbers and the name, from the side the layout puts the numbers.
  bool parse_row(std::string_view msg, ProfileRow& row) {
    const int n = layout_ == 1 ? 3 : 4;
    double v[4] = {0, 0, 0, 0};
    if (layout_ == 3) {
      std::string_view s = msg;
      for (int i = 0; i < n; ++i) {
        s = trim(s);
        size_t sp = s.find(' ');
        if (sp == std::string_view::npos || !to_number(s.substr(0, sp), v[i])) return false;
        s.remove_prefix(sp);
      }
      row.name = std::string(trim(s));
    } else {
      std::string_view s = msg;
      for (int i = n - 1; i >= 0; --i) {
        s = trim(s);
        size_t sp = s.rfind(' ');
        if (sp == std::string_view::npos || !to_number(s.substr(sp + 1), v[i])) return false;
        s = s.substr(0, sp);
      }
      row.name = std::string(trim(s));
    }
    if (row.name.empty()) return false;
    row.total_ms = finite(v[0]);
    row.average_ms = finite(v[1]);
    if (n == 4) row.median_ms = finite(v[2]);
    row.percentage = finite(v[n - 1]);
    return true;
  }

  bool array_line(const LogLine& line, std::string_view msg) {
    last_line_ = line.number;
    if (msg == "]") {
      done_ = true;
      return true;
    }
    if (msg == "[") return true;
    if (auto c = parse_profile_count(msg)) {
      profile_.count = *c;
      return true;
    }
    std::vector<std::string> problems;
    auto row = parse_profile_record(msg, problems);
    if (!row) return false;
    row->line = line.number;
    for (auto& m : problems) {
      ctx_.out.diagnostic(Severity::Warning, ctx_.at(line), "profile row " + m);
      profile_.warnings.push_back(m);
    }
    profile_.rows.push_back(std::move(*row));
    return true;
  }

  Mode mode_ = Mode::None;
  bool done_ = false;
  bool looks_like_log_ = false;
  int layout_ = 0;
  uint64_t last_line_ = 0;
  BuildProfile profile_;
  std::vector<std::string> pending_warnings_;
};

}  // namespace

std::unique_ptr<LogSection> make_profile_section(LogContext& ctx) {
  return std::make_unique<ProfileSection>(ctx);
}

}  // namespace trtlens
