// Engine layer names built from ONNX node names: "Conv_0 + PWN(Clip_3)", "A || B",
// "PWN(PWN(Mul_5, Add_6), Relu_7)", "Conv_3 [profile 1]". Shared by the memory and provenance work.
#pragma once

#include <string>
#include <vector>

namespace trtlens {

// The ONNX node names a layer name is made of, in order: split on " + " and " || " at bracket
// depth 0, PWN(...) unwrapped (its arguments split on ", "), and the suffixes
// "_quantize_scale_node", "_dequantize_scale_node" and " [profile N]" removed.
std::vector<std::string> fused_node_names(const std::string& layer_name);

}  // namespace trtlens
