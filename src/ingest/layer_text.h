// Scanners for the textual layer listings. Regular expressions recognise the lines; these
// split them, anchored on the fixed separators, because names contain ", ", "[", "]", "(",
// ")", "+", "||", "->" and spaces.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "ingest/grammar.h"
#include "model/capture.h"

namespace trtlens {

// The engine-layer patterns of a grammar, looked up once. With the built-in ones the lines are
// read by position (the readers below, held to the patterns by tests): a large engine's
// listing is read on the dispatching thread, where RE2's capturing matches cost most.
struct EngineLayerGrammar {
  explicit EngineLayerGrammar(const Grammar& grammar);
  const RE2& line;    // engine_layer_line
  const RE2& tactic;  // engine_layer_tactic
  const RE2& t8;      // tensor_suffix_8x
  const RE2& t10;     // tensor_suffix_10x
  bool builtin;
};

// "Layer(T): NAME, Tactic: X, INPUTS -> OUTPUTS" in the 8.x ("name[Float(1,3)]") and the
// 9.2+/10.x ("name (Float[1,3])") tensor syntaxes. On failure returns nullopt and says why.
std::optional<Layer> parse_engine_layer_line(std::string_view message, const Grammar& grammar,
                                             std::string* error);
std::optional<Layer> parse_engine_layer_line(std::string_view message,
                                             const EngineLayerGrammar& grammar, std::string* error);

// The built-in patterns' captures by position. engine_layer_line (a FullMatch): type, rest.
bool read_engine_layer_line(std::string_view s, std::string_view& type, std::string_view& rest);
// engine_layer_tactic, tensor_suffix_8x, tensor_suffix_10x (each a Consume): the captures and
// how many bytes the match takes.
bool read_engine_layer_tactic(std::string_view s, std::string_view& id, size_t& taken);
bool read_tensor_suffix_8x(std::string_view s, std::string_view& dtype, std::string_view& dims,
                           size_t& taken);
bool read_tensor_suffix_10x(std::string_view s, std::string_view& dtype, std::string_view& dims,
                            size_t& taken);

// "Name: X, LayerType: Y, Inputs: [ { Name: a, ... } ], Outputs: [...], Key: value, ...,
// Metadata: ..." — the engine inspector's one-line format.
std::optional<Layer> parse_oneline_layer(std::string_view message, std::string* error);

// Values of the one-line format as JSON, typed the way the JSON export types them:
// integers and integer lists as numbers, "{K: V, ...}" as objects, anything else as text.
nlohmann::ordered_json oneline_value(std::string_view text);

// Fills dtype/format/vector from a "Format/Datatype" string.
void apply_format(Tensor& tensor, std::string_view format);

}  // namespace trtlens
