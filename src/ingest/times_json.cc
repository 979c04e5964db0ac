#include "ingest/times_json.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

namespace trtlens {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Field of TimeRecord for each key of every version (7.0 "In/Out", 8.0+ "H2d/D2h").
double* field(TimeRecord& r, const std::string& key) {
  static const std::map<std::string, double TimeRecord::*> fields = {
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
  auto it = fields.find(key);
  return it == fields.end() ? nullptr : &(r.*(it->second));
}

std::string key_set(bool enq, bool h2d, bool end_to_end) {
  if (h2d) return end_to_end ? "8.0-8.2" : "8.4+";
  return enq ? "7.2" : "7.0";
}

class RecordReader {
 public:
  RecordReader(Assembler& out, const std::string& path) : out_(out), path_(path) {
    trace_.source = path;
  }

  // Feeds one line; records may span lines (a re-indented file).
  void line(std::string_view text, uint64_t number) {
    for (char c : text) {
      if (!open_) {
        if (c == '{') {
          open_ = true;
          start_ = number;
          rec_.clear();
        } else if (c == ']') {
          closed_ = true;
        } else if (c != '[' && c != ',' && c != ' ' && c != '\t' && c != '\r') {
          if (!noted_junk_) out_.unrecognized({path_, number}, "text outside the times records");
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
    if (open_) rec_ += ' ';
  }

  TimingTrace finish(uint64_t last_line) {
    if (open_ || !closed_) {
      trace_.truncated = true;
      out_.diagnostic(
          Severity::Warning, {path_, last_line},
          "times file ends without its closing ']' (truncated?); kept the " +
              std::to_string(trace_.records.size()) + " whole records" +
              (open_ ? ", dropped the partial one from line " + std::to_string(start_) : ""));
    }
    trace_.key_set = key_set(saw_enq_, saw_h2d_, saw_e2e_);
    return std::move(trace_);
  }

 private:
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
      std::string key(s.substr(q1 + 1, q2 - q1 - 1));
      std::string num(s.substr(colon + 1));
      char* stop = nullptr;
      double v = std::strtod(num.c_str(), &stop);
      if (stop == num.c_str()) {
        out_.unrecognized({path_, start_}, "times record key " + key + " has no number");
        return;
      }
      s.remove_prefix(colon + 1 + size_t(stop - num.c_str()));
      if (double* f = field(r, key)) {
        *f = v;
        ++fields;
      } else if (!unknown_noted_) {
        unknown_noted_ = true;
        out_.unrecognized({path_, start_}, "unknown times key " + key);
      }
      if (key == "startEnqMs") saw_enq_ = true;
      if (key == "startH2dMs") saw_h2d_ = true;
      if (key == "endToEndMs") saw_e2e_ = true;
      if (!std::isfinite(v))
        out_.diagnostic(Severity::Warning, {path_, start_},
                        "times record: " + key + " is not finite");
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
  uint64_t start_ = 0;
};

}  // namespace

void ingest_times_json(LineReader& lines, Assembler& out, const std::string& path) {
  RecordReader reader(out, path);
  Line line;
  while (lines.next(line)) reader.line(line.text, line.number);
  TimingTrace trace = reader.finish(lines.lines());
  if (trace.records.empty()) throw InputError(path, "no timing records ({ \"latencyMs\" : ... })");
  out.add_times(std::move(trace));
}

}  // namespace trtlens
