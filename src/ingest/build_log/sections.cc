// The sections of the text-log ingester, in the order the driver tries them.
#include "ingest/build_log/section.h"

namespace trtlens {

std::vector<std::unique_ptr<LogSection>> make_log_sections(LogContext& ctx) {
  std::vector<std::unique_ptr<LogSection>> s;
  s.push_back(make_layers_section(ctx));
  s.push_back(make_run_section(ctx));
  s.push_back(make_memory_section(ctx));
  s.push_back(make_onnx_parse_section(ctx));

  s.push_back(make_profile_section(ctx));
  s.push_back(make_runtime_section(ctx));

  s.push_back(make_fusion_section(ctx));

  // DLA placement and fallbacks; the build tuner's lines
  s.push_back(make_dla_section(ctx));
  s.push_back(make_tuner_section(ctx));
  s.push_back(make_errors_section(ctx));

  return s;
}

}  // namespace trtlens
