// Dynamic shapes through the ONNX model: the ONNX library's shape inference, run over the
// model with the graph inputs fixed to the shapes the user (or the log's profile) gave, names
// the concrete dims of every tensor it can follow. Engine tensors of the same name whose dims
// TensorRT printed as symbols take them from there.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace trtlens {

struct InferredShapes {
  std::map<std::string, std::vector<int64_t>> dims;  // tensor -> concrete dims
  std::string error;                                 // why inference gave nothing, or ""
};

// `shape_model` is OnnxModel::shape_model (a serialized ModelProto); `inputs` fixes graph
// inputs by name (a rank that differs from the model's is ignored). Only tensors whose every
// dim inference made concrete are returned.
InferredShapes infer_onnx_shapes(const std::string& shape_model,
                                 const std::map<std::string, std::vector<int64_t>>& inputs);

}  // namespace trtlens
