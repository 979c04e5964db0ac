// Run banners ("&&&& RUNNING TensorRT.trtexec [TensorRT v8601] # ...") and version lines.
#include "ingest/build_log/section.h"
#include "model/values.h"

namespace trtlens {
namespace {

class RunSection : public LogSection {
 public:
  using LogSection::LogSection;

  std::vector<std::string> triggers() const override {
    return {"run_banner", "trt_version_line"};
  }

  bool start(size_t which, const LogLine& line) override {
    const Grammar& g = ctx_.grammar;
    if (which == 0) {
      std::string state, name, version, command;
      RE2::PartialMatch(line.message, g.re("run_banner"), &state, &name, &version, &command);
      if (state == "RUNNING") ctx_.out.new_run();
      if (!version.empty()) ctx_.out.trt_version(trt_version_from_number(version));
      // time (issue 4): the run's status and exact command line.
      ctx_.out.run_banner(state, version.empty() ? "" : trt_version_from_number(version), command,
                          ctx_.at(line));
    } else {
      std::string version;
      RE2::PartialMatch(line.message, g.re("trt_version_line"), &version);
      ctx_.out.trt_version(version);
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<LogSection> make_run_section(LogContext& ctx) {
  return std::make_unique<RunSection>(ctx);
}

}  // namespace trtlens
