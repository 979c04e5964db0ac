// Printing provenance: per-node and per-layer tables, counts, and the JSON "onnx" section.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "model/capture.h"
#include "render/text_table.h"

namespace re2 {
class RE2;
}

namespace trtlens {

// `filter` (may be null) keeps the nodes whose name it matches, and their layers. `final` and
// `b` are the final build (Capture::final_build()), whose layers the provenance describes.
TextTable provenance_nodes_table(const OnnxModel& m, const Build* final, const re2::RE2* filter);
TextTable provenance_layers_table(const Build& b, const OnnxModel& m, const re2::RE2* filter);
TextTable provenance_fate_table(const Capture& c);
TextTable provenance_op_table(const Capture& c);

// The top-level "onnx" section of `trtlens json`.
nlohmann::ordered_json onnx_json(const OnnxModel& m, const Build* final);

// The whole `trtlens provenance` output in one format (table, csv, md, json).
void write_provenance(const Capture& c, const std::string& format, const re2::RE2* filter,
                      std::ostream& os);

}  // namespace trtlens
