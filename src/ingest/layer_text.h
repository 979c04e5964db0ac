// Scanners for the textual layer listings. Regular expressions recognise the lines; these
// split them, anchored on the fixed separators, because names contain ", ", "[", "]", "(",
// ")", "+", "||", "->" and spaces.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ingest/grammar.h"
#include "model/capture.h"

namespace trtlens {

// "Layer(T): NAME, Tactic: X, INPUTS -> OUTPUTS" in the 8.x ("name[Float(1,3)]") and the
// 9.2+/10.x ("name (Float[1,3])") tensor syntaxes. On failure returns nullopt and says why.
std::optional<Layer> parse_engine_layer_line(std::string_view message, const Grammar& grammar,
                                             std::string* error);

// "Name: X, LayerType: Y, Inputs: [ { Name: a, ... } ], Outputs: [...], Key: value, ...,
// Metadata: ..." — the engine inspector's one-line format.
std::optional<Layer> parse_oneline_layer(std::string_view message, std::string* error);

// Values of the one-line format as JSON, typed the way the JSON export types them:
// integers and integer lists as numbers, "{K: V, ...}" as objects, anything else as text.
nlohmann::ordered_json oneline_value(std::string_view text);

// Fills dtype/format/vector from a "Format/Datatype" string.
void apply_format(Tensor& tensor, std::string_view format);

}  // namespace trtlens
