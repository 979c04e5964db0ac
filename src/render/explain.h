// `explain`: remarks (passed / missed / analysis with reasons and evidence), the DLA placement
// table and the build tuner's routes, as terminal table, CSV, Markdown, JSON or HTML.
#pragma once

#include <re2/re2.h>

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "model/capture.h"
#include "render/text_table.h"

namespace trtlens {

struct ExplainFilter {
  const re2::RE2* node = nullptr;  // remarks whose ONNX node or layer matches
  std::string kind;                // "" = every kind
};

TextTable remarks_table(const Capture& c, const ExplainFilter& f);
TextTable dla_table(const Capture& c);
TextTable tuner_table(const Capture& c);
nlohmann::ordered_json remarks_json(const Capture& c, const ExplainFilter& f);

// `what` is "remarks", "dla" or "tuner"; format "table", "csv", "md", "json" or "html".
void write_explain(const Capture& c, const std::string& what, const std::string& format,
                   const ExplainFilter& f, std::ostream& os);

// The report's "missed" section: missed remarks only, one entry per ONNX scope with its distinct
// reasons (repeats counted) and their evidence, TensorRT's reported fallbacks first; as Markdown
// or an HTML section. Writes nothing when nothing was missed.
// `build` keeps its remarks and those of no build (all when null).
void write_missed_section(const Capture& c, const std::string& format, std::ostream& os,
                          const Build* build = nullptr, size_t limit = 50);

}  // namespace trtlens
