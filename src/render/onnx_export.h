// The engine graph as an ONNX model, for Netron: one node per engine layer (op_type = layer type,
// in the "trtlens.engine" domain), tensors as value_info with dtype and shape, graph inputs and
// outputs as in the engine.
#pragma once

#include <string>
#include <vector>

#include "model/capture.h"

namespace trtlens {

struct OnnxExport {
  std::string bytes;               // serialized onnx.ModelProto
  std::vector<std::string> notes;  // what had to be adjusted to make a valid ONNX graph
};

OnnxExport engine_onnx(const Build& build, const std::string& producer_version);

}  // namespace trtlens
