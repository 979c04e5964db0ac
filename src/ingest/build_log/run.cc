// Run banners ("&&&& RUNNING TensorRT.trtexec [TensorRT v8601] # ..."), shell command lines,
// version lines, and the lines that show which stage of the build a run reached: the last one
// is what it was doing when a log stops. Tactic selection keeps the node being timed, its
// formats and the tactics tried, block by block.
#include "ingest/build_log/section.h"
#include "model/values.h"

namespace trtlens {
namespace {

enum Trigger {
  kBanner,
  kVersionLine,
  kVersionLibrary,
  kPolygraphyVersion,
  kCommand,
  kParsing,
  kOptimization,
  kTactics,
  kComputingCosts,
  kFormatCombination,
  kTimingRunner,
  kAutotuningOp,
  kEngineGeneration,
  kSerialization,
  kInference,
};

class RunSection : public LogSection {
 public:
  using LogSection::LogSection;

  std::vector<std::string> triggers() const override {
    return {"run_banner",
            "trt_version_line",
            "trt_version_library",
            "polygraphy_version",
            "run_command",
            "phase_parsing",
            "phase_optimization",
            "phase_tactics",
            "tactic_computing_costs",
            "tactic_format_combination",
            "tactic_timing_runner",
            "tactic_autotuning_op",
            "phase_engine_generation",
            "phase_serialization",
            "phase_inference"};
  }

  bool start(size_t which, const LogLine& line) override {
    const Grammar& g = ctx_.grammar;
    const SourceLoc at = ctx_.at(line);
    std::string a, b;
    switch (which) {
      case kBanner: {
        std::string state, name, version, command;
        RE2::PartialMatch(line.message, g.re("run_banner"), &state, &name, &version, &command);
        if (state == "RUNNING") {
          ctx_.out.new_run();
          attempt_ = {};
        }
        if (!version.empty()) ctx_.out.trt_version(trt_version_from_number(version), "banner");
        ctx_.out.run_banner(state, version.empty() ? "" : trt_version_from_number(version), command,
                            at);
        return false;
      }
      case kVersionLine:
        RE2::PartialMatch(line.message, g.re("trt_version_line"), &a);
        ctx_.out.trt_version(a, "TensorRT version line");
        return false;
      case kVersionLibrary:
        RE2::PartialMatch(line.message, g.re("trt_version_library"), &a);
        ctx_.out.trt_version(a, "library name");
        return false;
      case kPolygraphyVersion:
        RE2::PartialMatch(line.message, g.re("polygraphy_version"), &a);
        ctx_.out.trt_version(a, "Polygraphy module line");
        return false;
      case kCommand:
        RE2::PartialMatch(line.message, g.re("run_command"), &a, &b);
        ctx_.out.run_command(a + " " + b, at);
        attempt_ = {};
        return false;
      case kParsing:
        phase(RunPhase::Parsing, line);
        return false;
      case kOptimization:
        phase(RunPhase::Optimization, line);
        return false;
      case kTactics:
        phase(RunPhase::TacticSelection, line);
        return false;
      case kComputingCosts:
        RE2::PartialMatch(line.message, g.re("tactic_computing_costs"), &a);
        attempt_ = {};
        attempt_.node = a;
        attempt_.line = line.number;
        timing(line);
        return false;
      case kFormatCombination:
        RE2::PartialMatch(line.message, g.re("tactic_format_combination"), &a);
        attempt_.formats = a;
        attempt_.tactics.clear();
        timing(line);
        return false;
      case kTimingRunner:
        RE2::PartialMatch(line.message, g.re("tactic_timing_runner"), &a, &b);
        if (a != attempt_.node) attempt_.formats.clear();
        attempt_.node = a;
        attempt_.runner = b;
        attempt_.line = line.number;
        attempt_.tactics.clear();
        timing(line);
        return true;  // the tactic lines follow
      case kAutotuningOp:
        RE2::PartialMatch(line.message, g.re("tactic_autotuning_op"), &a);
        attempt_ = {};
        attempt_.node = a;
        attempt_.line = line.number;
        timing(line);
        return true;
      case kEngineGeneration:
        phase(RunPhase::EngineGeneration, line);
        return false;
      case kSerialization:
        phase(RunPhase::Serialization, line);
        return false;
      case kInference:
        phase(RunPhase::Inference, line);
        return false;
    }
    return false;
  }

  // After a Timing Runner: its tactic lines. Warnings among them (skipped tactics, memory) are
  // read as records without closing the block.
  bool next(const LogLine& line) override {
    std::string id, rest;
    // Tactic lines are most of a verbose log: a literal test before the pattern.
    if (line.message.rfind("Tactic", 0) == 0 &&
        RE2::PartialMatch(line.message, ctx_.grammar.re("tactic_line"), &id, &rest)) {
      attempt_.tactics.push_back(tactic_id(id));
      return true;
    }
    if (line.severity == 'W' || line.severity == 'E' || line.severity == 'F')
      return read_error_line(ctx_, line);
    return false;
  }

  // The tactics tried go to the run once the block ends (also at the end of a cut log).
  void end() override { ctx_.out.run_tactic(attempt_); }

 private:
  // Decimal tactics of TRT <= 8.2 become the canonical 0x form; unreadable ones stay as given.
  static std::string tactic_id(const std::string& id) {
    if (auto t = canonical_tactic(id)) return *t;
    return id;
  }

  void phase(RunPhase p, const LogLine& line) {
    ctx_.out.run_phase(p, ctx_.at(line), std::string(trim(line.message)));
  }

  void timing(const LogLine& line) {
    phase(RunPhase::TacticSelection, line);
    ctx_.out.run_tactic(attempt_);
  }

  TacticAttempt attempt_;
};

}  // namespace

std::unique_ptr<LogSection> make_run_section(LogContext& ctx) {
  return std::make_unique<RunSection>(ctx);
}

}  // namespace trtlens
