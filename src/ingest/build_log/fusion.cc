// Graph-optimisation lines (grammar/fusion.re2): fusion decisions, eliminations and the
// "After ...: N layers" counters. Each is a one-line record; provenance reads them later.
#include "ingest/build_log/section.h"

namespace trtlens {
namespace {

class FusionSection : public LogSection {
 public:
  using LogSection::LogSection;

  std::vector<std::string> triggers() const override {
    return {"fusion_running", "fusion_eliminate_concat", "fusion_removing", "fusion_layer_count",
            "fusion_fusing"};
  }

  bool start(size_t which, const LogLine& line) override {
    const Grammar& g = ctx_.grammar;
    FusionEvent e;
    e.source = ctx_.at(line);
    switch (which) {
      case 0:
        RE2::PartialMatch(line.message, g.re("fusion_running"), &e.pass, &e.subject);
        e.kind = e.pass.find("Fold") != std::string::npos ? "fold" : "run";
        break;
      case 1:
        RE2::PartialMatch(line.message, g.re("fusion_eliminate_concat"), &e.subject);
        e.kind = "eliminate-concat";
        break;
      case 2:
        RE2::PartialMatch(line.message, g.re("fusion_removing"), &e.subject);
        e.kind = "remove";
        break;
      case 3: {
        LayerCount c;
        std::string n;
        RE2::PartialMatch(line.message, g.re("fusion_layer_count"), &c.stage, &n);
        try {
          c.layers = std::stoll(n);
        } catch (const std::exception&) {
          ctx_.out.unrecognized(e.source, "layer counter out of range: " + n);
          return false;
        }
        c.source = e.source;
        ctx_.out.onnx_layer_count(std::move(c));
        return false;
      }
      case 4: {
        std::string how;
        RE2::PartialMatch(line.message, g.re("fusion_fusing"), &e.pass, &e.subject, &how, &e.other);
        e.kind = "fuse";
        break;
      }
    }
    ctx_.out.onnx_event(std::move(e));
    return false;
  }
};

}  // namespace

std::unique_ptr<LogSection> make_fusion_section(LogContext& ctx) {
  return std::make_unique<FusionSection>(ctx);
}

}  // namespace trtlens
