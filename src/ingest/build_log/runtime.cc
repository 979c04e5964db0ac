// Runtime sections of a trtexec log: option blocks and device information as key/value maps,
// the performance summary of TRT 7 (blocks), 8.0-8.4 and 8.5+ (labelled figures), trace
// averages and performance warnings. Everything goes to the run the lines belong to.
#include <cstdlib>

#include "ingest/build_log/section.h"
#include "model/values.h"

namespace trtlens {
namespace {

// "1.88583 ms" -> (1.88583, "ms"). False when it does not start with a number.
bool value_unit(std::string_view s, double& v, std::string& unit) {
  std::string t(trim(s));
  char* stop = nullptr;
  v = std::strtod(t.c_str(), &stop);
  if (stop == t.c_str()) return false;
  unit = std::string(trim(std::string_view(stop)));
  return true;
}

enum class Mode { None, Options, Device, Summary, Trt7 };

class RuntimeSection : public LogSection {
 public:
  using LogSection::LogSection;

  std::vector<std::string> triggers() const override {
    return {"options_header",  "device_header", "perf_summary_header",
            "perf_block_trt7", "trace_average", "perf_warning"};
  }

  bool start(size_t which, const LogLine& line) override {
    const Grammar& g = ctx_.grammar;
    std::string kind;
    if (which == 0) {
      RE2::PartialMatch(line.message, g.re("options_header"), &kind);
      // A run's options come first: after a finished run they start another (pasted logs
      // without banners), so the figures of two runs never mix.
      const RunInfo& before = ctx_.out.run_info(ctx_.at(line));
      if (kind == "Model" &&
          (!before.perf.empty() || before.banner == "PASSED" || before.banner == "FAILED"))
        ctx_.out.new_run();
    }
    RunInfo& run = ctx_.out.run_info(ctx_.at(line));
    mode_ = Mode::None;
    switch (which) {
      case 0: {
        field_ = kind == "Model"       ? &RunInfo::model_options
                 : kind == "Build"     ? &RunInfo::build_options
                 : kind == "System"    ? &RunInfo::system_options
                 : kind == "Inference" ? &RunInfo::inference_options
                                       : &RunInfo::reporting_options;
        mode_ = Mode::Options;
        return true;
      }
      case 1:
        field_ = &RunInfo::device;
        mode_ = Mode::Device;
        return true;
      case 2:
        ctx_.out.run_phase(RunPhase::Inference, ctx_.at(line), std::string(trim(line.message)));
        mode_ = Mode::Summary;
        return true;
      case 3:
        mode_ = Mode::Trt7;
        block_ = "Host Latency";
        return true;
      case 4: {
        TraceAverage a;
        a.line = line.number;
        std::string gpu, host, extra;
        RE2::PartialMatch(line.message, g.re("trace_average"), &a.runs, &gpu, &host, &extra);
        double v = 0;
        std::string unit;
        if (value_unit(gpu, v, unit)) a.gpu_ms = v;
        if (value_unit(host, v, unit)) a.host_ms = v;
        // "(end to end 1.35 ms, enqueue 0.4 ms)" or "(enqueue 0.4633 ms)"
        for (std::string_view part : split(extra)) {
          part = trim(part);
          if (part.rfind("enqueue ", 0) == 0 && value_unit(part.substr(8), v, unit))
            a.enqueue_ms = v;
          else if (part.rfind("end to end ", 0) == 0 && value_unit(part.substr(11), v, unit))
            a.end_to_end_ms = v;
        }
        run.trace_averages.push_back(a);
        return false;
      }
      case 5: {
        std::string text;
        RE2::PartialMatch(line.message, g.re("perf_warning"), &text);
        run.warnings.push_back(text);
        return false;
      }
    }
    return false;
  }

  bool next(const LogLine& line) override {
    std::string_view msg = trim(line.message);
    if (msg.empty()) return !line.prefixed;  // a page's blank line; a log's blank line ends it
    if (msg.rfind("===", 0) == 0) return false;
    RunInfo& run = ctx_.out.run_info(ctx_.at(line));
    switch (mode_) {
      case Mode::Options:
      case Mode::Device:
        return key_value(run.*field_, line, msg);
      case Mode::Summary:
        return summary_line(run, line, msg);
      case Mode::Trt7:
        return trt7_line(run, line, msg);
      case Mode::None:
        break;
    }
    return false;
  }

  void end() override { mode_ = Mode::None; }

 private:
  static std::vector<std::string_view> split(std::string_view s) {
    std::vector<std::string_view> out;
    size_t at = 0;
    while (at <= s.size()) {
      size_t comma = s.find(", ", at);
      if (comma == std::string_view::npos) comma = s.size();
      if (comma > at) out.push_back(s.substr(at, comma - at));
      at = comma + 2;
    }
    return out;
  }

  bool key_value(KeyValues& target, const LogLine& line, std::string_view msg) {
    // Warnings and verbose lines are not part of the block (TREx reads [I] lines only too).
    if (line.severity && line.severity != 'I') return false;
    size_t colon = msg.find(':');
    if (colon == std::string_view::npos || colon == 0) return false;
    // Lines of another family that follow a block without a blank line (TRT 7).
    if (RE2::PartialMatch(msg, ctx_.grammar.re("trace_average"))) return false;
    target.emplace_back(std::string(trim(msg.substr(0, colon))),
                        std::string(trim(msg.substr(colon + 1))));
    return true;
  }

  // "Latency: min = 1.88 ms, max = 2.96 ms, ..." or "Throughput: 502.107 qps".
  bool summary_line(RunInfo& run, const LogLine& line, std::string_view msg) {
    if (line.severity && line.severity != 'I') return false;
    size_t colon = msg.find(": ");
    if (colon == std::string_view::npos) {
      return false;
    }
    std::string metric(msg.substr(0, colon));
    std::string_view rest = msg.substr(colon + 2);
    std::vector<PerfFigure> figures;
    double v = 0;
    std::string unit;
    if (rest.find(" = ") == std::string_view::npos) {
      if (!value_unit(rest, v, unit)) return false;
      figures.push_back(PerfFigure{metric, "", v, unit});
    } else {
      for (std::string_view part : split(rest)) {
        size_t eq = part.find(" = ");
        if (eq == std::string_view::npos || !value_unit(part.substr(eq + 3), v, unit)) {
          ctx_.out.unrecognized(ctx_.at(line), "performance figure not read: " + std::string(part));
          continue;
        }
        figures.push_back(PerfFigure{metric, std::string(trim(part.substr(0, eq))), v, unit});
      }
    }
    for (auto& f : figures) run.perf.push_back(std::move(f));
    return true;
  }

  // TRT 7: "Host Latency" / "Enqueue Time" / "GPU Compute" blocks of "min: 1.2 ms (end to end
  // 1.3 ms)", "percentile: 2.2 ms at 99% (...)", "throughput: 0 qps", "walltime: 3.0 s",
  // "total compute time: 2.9 s".
  bool trt7_line(RunInfo& run, const LogLine& line, std::string_view msg) {
    if (line.severity && line.severity != 'I') return false;
    if (msg == "Enqueue Time" || msg == "GPU Compute" || msg == "Host Latency") {
      block_ = std::string(msg);
      return true;
    }
    size_t colon = msg.find(": ");
    if (colon == std::string_view::npos) return false;
    std::string label(msg.substr(0, colon));
    std::string_view rest = msg.substr(colon + 2);
    std::string_view e2e;
    if (size_t p = rest.find(" (end to end "); p != std::string_view::npos) {
      e2e = rest.substr(p + 13);
      if (!e2e.empty() && e2e.back() == ')') e2e.remove_suffix(1);
      rest = rest.substr(0, p);
    }
    auto stat_of = [&](std::string_view value, std::string& stat) {
      stat = label;
      if (size_t at = value.find(" at "); at != std::string_view::npos) {
        stat = "percentile(" + std::string(trim(value.substr(at + 4))) + ")";
        return value.substr(0, at);
      }
      return value;
    };
    double v = 0;
    std::string unit, stat;
    std::string_view value = stat_of(rest, stat);
    if (!value_unit(value, v, unit)) return false;
    if (label == "throughput")
      run.perf.push_back(PerfFigure{"Throughput", "", v, unit});
    else if (label == "walltime")
      run.perf.push_back(PerfFigure{"Total Host Walltime", "", v, unit});
    else if (label == "total compute time")
      run.perf.push_back(PerfFigure{"Total GPU Compute Time", "", v, unit});
    else
      run.perf.push_back(
          PerfFigure{block_ == "GPU Compute" ? "GPU Compute Time" : block_, stat, v, unit});
    if (!e2e.empty()) {
      value = stat_of(e2e, stat);
      if (value_unit(value, v, unit))
        run.perf.push_back(PerfFigure{"End-to-End Host Latency", stat, v, unit});
    }
    return true;
  }

  Mode mode_ = Mode::None;
  KeyValues RunInfo::*field_ = &RunInfo::device;
  std::string block_;
};

}  // namespace

std::unique_ptr<LogSection> make_runtime_section(LogContext& ctx) {
  return std::make_unique<RuntimeSection>(ctx);
}

}  // namespace trtlens
