#include "ingest/times_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>

namespace trtlens {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr size_t kBlock = size_t{1} << 20;

// Field of TimeRecord for each key of every version (7.0 "In/Out", 8.0+ "H2d/D2h"). A short
// list compared in place: no key string is built per field of 10M records.
double* field(TimeRecord& r, std::string_view key) {
  static constexpr std::pair<std::string_view, double TimeRecord::*> fields[] = {
      {"startEnqMs", &TimeRecord::start_enq},
      {"endEnqMs", &TimeRecord::end_enq},
      {"startInMs", &TimeRecord::start_in},
      {"endInMs", &TimeRecord::end_in},
      {"startH2dMs", &TimeRecord::start_in},
      {"endH2dMs", &TimeRecord::end_in},
      {"startComputeMs", &TimeRecord::start_compute},
      {"endComputeMs", &TimeRecord::end_compute},
      {"startOutMs", &TimeRecord::start_out},
      {"endOutMs", &TimeRecord::end_out},
      {"startD2hMs", &TimeRecord::start_out},
      {"endD2hMs", &TimeRecord::end_out},
      {"inMs", &TimeRecord::in_ms},
      {"h2dMs", &TimeRecord::in_ms},
      {"computeMs", &TimeRecord::compute_ms},
      {"outMs", &TimeRecord::out_ms},
      {"d2hMs", &TimeRecord::out_ms},
      {"latencyMs", &TimeRecord::latency_ms},
      {"endToEndMs", &TimeRecord::end_to_end_ms},
  };
  for (const auto& [name, member] : fields)
    if (name == key) return &(r.*member);
  return nullptr;
}

std::string key_set(bool enq, bool h2d, bool end_to_end) {
  if (h2d) return end_to_end ? "8.0-8.2" : "8.4+";
  return enq ? "7.2" : "7.0";
}

// Reads the bytes as they come, in any layout (one record per line as trtexec writes them,
// re-indented, or the whole array on one line), with LF, CRLF or CR line ends. Memory: the
// records only (see TimingTrace::records), plus one record's text (at most 4 KiB).
class RecordReader {
 public:
  RecordReader(Assembler& out, const std::string& path) : out_(out), path_(path) {
    trace_.source = path;
  }

  void feed(const char* p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      if (open_) {
        // Inside a record: its bytes up to '}' or a line end are taken in one piece.
        size_t j = i;
        while (j < n && p[j] != '}' && p[j] != '\n' && p[j] != '\r') ++j;
        if (j > i) {
          prev_cr_ = false;
          if (rec_.size() < 4096) rec_.append(p + i, std::min(j - i, 4096 - rec_.size()));
          i = j;
          if (i == n) break;
        }
      }
      const char c = p[i];
      if (c == '\n' || c == '\r') {
        if (!(c == '\n' && prev_cr_)) ++ends_;
        prev_cr_ = c == '\r';
        if (open_) rec_ += ' ';
        continue;
      }
      prev_cr_ = false;
      if (!open_) {
        if (c == '{') {
          open_ = true;
          start_ = ends_ + 1;
          rec_.clear();
        } else if (c == ']') {
          closed_ = true;
        } else if (c != '[' && c != ',' && c != ' ' && c != '\t') {
          if (!noted_junk_) out_.unrecognized({path_, ends_ + 1}, "text outside the times records");
          noted_junk_ = true;
        }
        continue;
      }
      if (c == '}') {
        open_ = false;
        record();
      } else if (rec_.size() < 4096) {
        rec_ += c;
      }
    }
    last_ = n ? p[n - 1] : last_;
  }

  // Lines read: line ends, plus a last line without one.
  uint64_t lines() const { return ends_ + (last_ != '\n' && last_ != '\r' && last_ != 0); }

  TimingTrace finish() {
    if (open_ || !closed_) {
      trace_.truncated = true;
      out_.diagnostic(
          Severity::Warning, {path_, lines()},
          "times file ends without its closing ']' (truncated?); kept the " +
              std::to_string(trace_.records.size()) + " whole records" +
              (open_ ? ", dropped the partial one from line " + std::to_string(start_) : ""));
    }
    trace_.key_set = key_set(saw_enq_, saw_h2d_, saw_e2e_);
    return std::move(trace_);
  }

 private:
  static std::string_view skip_blanks(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    return s;
  }

  void record() {
    TimeRecord r;
    for (double* f : {&r.start_enq, &r.end_enq, &r.start_in, &r.end_in, &r.start_compute,
                      &r.end_compute, &r.start_out, &r.end_out, &r.in_ms, &r.compute_ms, &r.out_ms,
                      &r.latency_ms, &r.end_to_end_ms})
      *f = kNaN;
    std::string_view s = rec_;
    int fields = 0;
    while (true) {
      size_t q1 = s.find('"');
      if (q1 == std::string_view::npos) break;
      size_t q2 = s.find('"', q1 + 1);
      size_t colon = q2 == std::string_view::npos ? q2 : s.find(':', q2);
      if (colon == std::string_view::npos) break;
      const std::string_view key = s.substr(q1 + 1, q2 - q1 - 1);
      std::string_view num = skip_blanks(s.substr(colon + 1));
      double v = 0;
      auto [stop, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
      if (ec == std::errc::result_out_of_range) {
        // from_chars leaves v alone on overflow; the value is beyond a double (1e999).
        v = num.front() == '-' ? -HUGE_VAL : HUGE_VAL;
      } else if (ec != std::errc()) {
        out_.unrecognized({path_, start_},
                          "times record key " + std::string(key) + " has no number");
        return;
      }
      s = std::string_view(stop, size_t(num.data() + num.size() - stop));
      if (double* f = field(r, key)) {
        *f = v;
        ++fields;
      } else if (!unknown_noted_) {
        unknown_noted_ = true;
        out_.unrecognized({path_, start_}, "unknown times key " + std::string(key));
      }
      if (key == "startEnqMs") saw_enq_ = true;
      if (key == "startH2dMs") saw_h2d_ = true;
      if (key == "endToEndMs") saw_e2e_ = true;
      if (!std::isfinite(v))
        out_.diagnostic(Severity::Warning, {path_, start_},
                        "times record: " + std::string(key) + " is not finite");
    }
    if (fields == 0) {
      out_.unrecognized({path_, start_}, "times record without known keys");
      return;
    }
    trace_.records.push_back(r);
  }

  Assembler& out_;
  std::string path_;
  TimingTrace trace_;
  std::string rec_;
  bool open_ = false, closed_ = false, noted_junk_ = false, unknown_noted_ = false;
  bool saw_enq_ = false, saw_h2d_ = false, saw_e2e_ = false;
  bool prev_cr_ = false;
  char last_ = 0;
  uint64_t ends_ = 0;   // line ends seen
  uint64_t start_ = 0;  // line the open record started on
};

}  // namespace

uint64_t ingest_times_json(InputStream& in, Assembler& out, const std::string& path) {
  RecordReader reader(out, path);
  std::unique_ptr<char[]> buf(new char[kBlock]);
  while (size_t n = in.read(buf.get(), kBlock)) reader.feed(buf.get(), n);
  TimingTrace trace = reader.finish();
  if (trace.records.empty()) throw InputError(path, "no timing records ({ \"latencyMs\" : ... })");
  out.add_times(std::move(trace));
  return reader.lines();
}

}  // namespace trtlens
