// TensorRT 11.1 build tuner lines (grammar/tuner.re2): the routes tried, each iteration's
// banners, accuracy and time, and the best route. The builds between an iteration's banners are
// that iteration's; the assembler makes the best one final.
#include <cstdlib>
#include <limits>

#include "ingest/build_log/section.h"

namespace trtlens {
namespace {

std::optional<double> number(const std::string& s) {
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str()) return std::nullopt;
  return v;
}

class TunerSection : public LogSection {
 public:
  using LogSection::LogSection;

  std::vector<std::string> triggers() const override {
    return {"tuner_expanded", "tuner_phase",   "tuner_iteration", "tuner_task",
            "tuner_best",     "tuner_summary", "tuner_accuracy",  "tuner_timeout"};
  }

  bool start(size_t which, const LogLine& line) override {
    const Grammar& g = ctx_.grammar;
    const SourceLoc at = ctx_.at(line);
    TuningRun& run = ctx_.out.tuning_run(at, "log");
    const std::string_view m = line.message;
    switch (which) {
      case 0: {
        int n = 0;
        RE2::PartialMatch(m, g.re("tuner_expanded"), &n);
        run.expanded = n;
        break;
      }
      case 1: {
        std::string phase;
        int n = 0;
        RE2::PartialMatch(m, g.re("tuner_phase"), &phase, &n);
        run.phases.emplace_back(phase, n);
        break;
      }
      case 2: {
        int i = 0;
        std::string route;
        RE2::PartialMatch(m, g.re("tuner_iteration"), &i, &route);
        TunerIteration& it = iteration(run, i, at);
        if (it.route.empty()) it.route = route;
        break;
      }
      case 3: {
        std::string what, route;
        int i = 0;
        RE2::PartialMatch(m, g.re("tuner_task"), &what, &i, &route);
        TunerIteration& it = iteration(run, i, at);
        if (it.route.empty()) it.route = route;
        if (what == "TASK_BEGIN") {
          it.begun = true;
          it.source = at;
          current_ = i;
        } else {
          (what == "TASK_END" ? it.ended : it.aborted) = true;
          it.end_line = line.number;
          current_ = -1;
        }
        break;
      }
      case 4: {
        std::string route, t;
        RE2::PartialMatch(m, g.re("tuner_best"), &route, &t);
        run.best_route = route;
        run.best_gpu_ms = number(t);
        run.best_source = at;
        for (auto& it : run.iterations)
          if (it.route == route) {
            run.best_iter = it.iter;
            if (!it.gpu_time_ms) it.gpu_time_ms = run.best_gpu_ms;
          }
        break;
      }
      case 5: {
        int ok = 0, total = 0;
        RE2::PartialMatch(m, g.re("tuner_summary"), &ok, &total);
        run.summary_ok = ok;
        run.summary_total = total;
        break;
      }
      case 6: {
        std::string tensor, algo, value, fail, threshold;
        RE2::PartialMatch(m, g.re("tuner_accuracy"), &tensor, &algo, &value, &fail, &threshold);
        // Lines outside a tuning task belong to the last iteration that began.
        int i =
            current_ >= 0 ? current_ : (run.iterations.empty() ? -1 : run.iterations.back().iter);
        TunerIteration& it = iteration(run, i, at);
        auto v = number(value);
        it.accuracy_loss.emplace_back(tensor, v ? *v : std::numeric_limits<double>::quiet_NaN());
        it.accuracy_algorithm = algo;
        if (!fail.empty()) it.accuracy_failed = true;
        break;
      }
      case 7: {
        std::string rest;
        RE2::PartialMatch(m, g.re("tuner_timeout"), &rest);
        ctx_.out.diagnostic(Severity::Info, at, "build tuner timed out" + rest);
        break;
      }
    }
    return false;
  }

 private:
  static TunerIteration& iteration(TuningRun& run, int i, const SourceLoc& at) {
    for (auto& it : run.iterations)
      if (it.iter == i) return it;
    TunerIteration it;
    it.iter = i;
    it.source = at;
    run.iterations.push_back(std::move(it));
    return run.iterations.back();
  }

  int current_ = -1;
};

}  // namespace

std::unique_ptr<LogSection> make_tuner_section(LogContext& ctx) {
  return std::make_unique<TunerSection>(ctx);
}

}  // namespace trtlens
