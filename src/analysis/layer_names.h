// Reading ONNX node names out of TensorRT layer names and Metadata. TensorRT names a fused
// layer after its parts ("Conv_0 + Relu_1", "A || B", "PWN(PWN(a, b), c)"), decorates parts
// ("QuantizeLinear_7_quantize_scale_node", "reshape_before_X", " [profile 1]") and adds layers
// of its own (reformats, copies, "(Unnamed Layer* 13) [Shuffle]", "{ForeignNode[A...B]}").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trtlens {

enum class LayerNameKind {
  Fused,     // ONNX names joined by " + ", " || ", PWN(...) (one name is a fusion of one)
  Reformat,  // "Reformatting CopyNode for Input|Output Tensor i to X"
  Copy,      // "639 copy"
  Internal,  // "(Unnamed Layer* 13) [Shuffle]"
  Foreign,   // "{ForeignNode[A...B]}" (Myelin or DLA)
  Myelin,    // Myelin sub-layers of detailed listings ("__myl_...", "__mye...")
};
const char* to_string(LayerNameKind k);

struct ParsedLayerName {
  LayerNameKind kind = LayerNameKind::Fused;
  std::vector<std::string> parts;       // Fused: pieces in name order, verbatim (not stripped)
  std::string attached_to;              // Reformat: the layer served; Copy: the tensor copied
  std::string range_first, range_last;  // Foreign
  bool range_ambiguous = false;         // more than one "..." in the range
  int profile = -1;                     // " [profile N]" suffix, removed before parsing
};

ParsedLayerName parse_layer_name(std::string_view name);

// The pieces of a fused layer name with TensorRT's decorations removed: the ONNX node (or
// initializer) names it was built from, in name order. TensorRT-internal pieces are dropped;
// reformat/copy/ForeignNode names give an empty list.
std::vector<std::string> fused_node_names(const std::string& layer_name);
// The same from a name already parsed.
std::vector<std::string> fused_node_names(const ParsedLayerName& parsed);
// The names as views of `layer_name`, into `out` (cleared first): for callers that only look the
// names up, several times a layer in an analysis.
void fused_node_views(std::string_view layer_name, std::vector<std::string_view>& out);

// "QuantizeLinear_7_quantize_scale_node" -> "QuantizeLinear_7", "reshape_before_X" -> "X";
// the piece itself when TensorRT added nothing.
std::string strip_trt_additions(std::string_view piece);

// "(Unnamed Layer* 13) [Shuffle]" and its output tensors.
bool is_internal_name(std::string_view piece);

// Node names in TRT 8.6+/10 Metadata: "[ONNX Layer: /conv1/Conv]" entries, separated by the
// control characters \x1E / \x1F (or directly adjacent). Empty when it holds none.
std::vector<std::string> metadata_node_names(std::string_view metadata);

// Op type guessed from a node name: "Conv_17" -> "Conv", "/model/conv1/Conv" -> "Conv",
// "" when the name does not say.
std::string op_from_node_name(std::string_view name);

// The one name of `sorted` (sorted, unique) that `cut` is a proper prefix of: a name the log
// cut short ("/m/_input_quantizer/QuantizeLin" for ".../QuantizeLinear"). nullopt when none or
// several names continue it, when `cut` is under 4 characters, and when the cut falls inside a
// number ("Conv_1" may be all of "Conv_1" in another model, never proof of "Conv_12").
std::optional<std::string> unique_prefix_match(const std::vector<std::string>& sorted,
                                               const std::string& cut);

// A parameter name as exporters write them ("conv1.weight", "fc.bias", "onnx::Conv_497"): used
// only when no ONNX model says which names are initializers.
bool looks_like_initializer(std::string_view name);

}  // namespace trtlens
