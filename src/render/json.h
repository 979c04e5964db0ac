// The trtlens JSON document (ARCHITECTURE §4, schema "trtlens/1").
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/capture.h"

namespace trtlens {

nlohmann::ordered_json tensor_json(const Tensor& t);
nlohmann::ordered_json layer_json(const Layer& layer);
nlohmann::ordered_json build_json(const Build& build);
nlohmann::ordered_json totals_json(const BuildTotals& totals);
nlohmann::ordered_json latency_json(const Latency& latency);  // null when no source
nlohmann::ordered_json capture_json(const Capture& capture, const std::vector<const Build*>& builds);
// The same document written to `os` build by build (memory: one build's JSON at a time).
void write_capture_json(const Capture& capture, const std::vector<const Build*>& builds,
                        std::ostream& os);

// Serialises with names kept byte for byte where they are UTF-8 (invalid bytes become U+FFFD).
std::string dump_json(const nlohmann::ordered_json& j, int indent = 2);

// A top-level list of a document, made one element at a time (see write_json_lists).
struct JsonList {
  std::string key;
  size_t count = 0;
  std::function<nlohmann::ordered_json(size_t)> element;
};
// The text of dump_json(doc), with `pad` after each line end, where each of `lists` (an empty
// array under its key in `doc`) is filled with its elements dumped one at a time: the JSON nodes
// of a list of thousands of layers or pairs take several times the model's memory.
void write_json_lists(std::ostream& os, const nlohmann::ordered_json& doc,
                      const std::vector<JsonList>& lists, const std::string& pad = "");

}  // namespace trtlens
