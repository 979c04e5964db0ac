// DLA placement and fallback lines (grammar/dla.re2): which device each layer runs on, and
// every layer TensorRT moved back to the GPU with the reason it printed; also the precision
// fallbacks TensorRT announces with a reason (grammar/precision.re2).
#include "ingest/build_log/section.h"
#include "model/values.h"

namespace trtlens {
namespace {

// "(Unnamed Layer* 275) [Gather]" -> "Gather".
std::string bracket_kind(const std::string& name) {
  if (name.empty() || name.back() != ']') return "";
  size_t open = name.rfind(" [");
  return open == std::string::npos ? "" : name.substr(open + 2, name.size() - open - 3);
}

class DlaSection : public LogSection {
 public:
  using LogSection::LogSection;

  std::vector<std::string> triggers() const override {
    return {"dla_placement_header",     "dla_placement",          "dla_fallback_default",
            "dla_fallback_unsupported", "dla_fallback_precision", "dla_fallback_dynamic",
            "dla_fallback_subgraph",    "precision_missing_scale"};
  }

  bool start(size_t which, const LogLine& line) override {
    const Grammar& g = ctx_.grammar;
    DlaFallback f;
    f.source = ctx_.at(line);
    awaiting_reason_ = false;
    switch (which) {
      case 0:
        return false;
      case 1: {
        std::string device, rest;
        RE2::PartialMatch(line.message, g.re("dla_placement"), &device, &rest);
        DevicePlacement p;
        p.device = device == "Gpu" ? "GPU" : "DLA";
        p.source = f.source;
        // "CONVOLUTION: name" (a kind in capitals first) or a bare name.
        size_t colon = rest.find(": ");
        bool kind = colon != std::string::npos && colon > 0;
        for (size_t i = 0; kind && i < colon; ++i)
          kind = (rest[i] >= 'A' && rest[i] <= 'Z') || (rest[i] >= '0' && rest[i] <= '9') ||
                 rest[i] == '_';
        if (kind) {
          p.kind = rest.substr(0, colon);
          p.layer = rest.substr(colon + 2);
        } else {
          p.layer = rest;
        }
        ctx_.out.device_placement(std::move(p));
        return false;
      }
      case 2:
        RE2::PartialMatch(line.message, g.re("dla_fallback_default"), &f.layer);
        f.syntax = "8.x";
        break;
      case 3:
        RE2::PartialMatch(line.message, g.re("dla_fallback_unsupported"), &f.layer, &f.kind);
        f.syntax = "10.x";
        awaiting_reason_ = true;
        break;
      case 4:
        RE2::PartialMatch(line.message, g.re("dla_fallback_precision"), &f.reason, &f.layer);
        f.kind = bracket_kind(f.layer);
        f.syntax = "precision";
        break;
      case 5:
        RE2::PartialMatch(line.message, g.re("dla_fallback_dynamic"), &f.layer, &f.reason);
        f.syntax = "dynamic-shape";
        break;
      case 7: {
        PrecisionFallback p;
        std::string rest;
        RE2::PartialMatch(line.message, g.re("precision_missing_scale"), &p.tensor, &rest);
        p.reason = "Missing scale and zero-point for tensor " + p.tensor + ", " + rest;
        p.source = f.source;
        ctx_.out.precision_fallback(std::move(p));
        return false;
      }
      case 6:
        RE2::PartialMatch(line.message, g.re("dla_fallback_subgraph"), &f.layer);
        f.reason = "the DLA compiler rejected the subgraph";
        f.syntax = "subgraph";
        break;
    }
    ctx_.out.dla_fallback(std::move(f));
    return awaiting_reason_;
  }

  // 10.x: "<layer>: <reason>" right after the warning.
  bool next(const LogLine& line) override {
    if (!awaiting_reason_) return false;
    awaiting_reason_ = false;
    DlaFallback* f = ctx_.out.last_dla_fallback();
    if (!f) return false;
    const std::string prefix = f->layer + ": ";
    std::string_view m = line.message;
    if (m.substr(0, prefix.size()) != prefix) return false;
    f->reason = std::string(trim(m.substr(prefix.size())));
    if (!f->reason.empty() && f->reason.back() == '.') f->reason.pop_back();
    f->reason_source = ctx_.at(line);
    return true;
  }

  void end() override { awaiting_reason_ = false; }

 private:
  bool awaiting_reason_ = false;
};

}  // namespace

std::unique_ptr<LogSection> make_dla_section(LogContext& ctx) {
  return std::make_unique<DlaSection>(ctx);
}

}  // namespace trtlens
