// .onnx models, read with the ONNX protobuf library: nodes in graph order, initializers and
// graph inputs/outputs with dims and dtype. Tensor data is never looked at (external-data
// models work: their dims live in the model file).
#pragma once

#include <string>

#include "model/onnx.h"

namespace trtlens {

// Throws InputError (naming the file) when the file is not a readable ONNX model or is larger
// than protobuf can parse in one piece (2 GB).
OnnxModel read_onnx_model(const std::string& path);
// The same from an open file (an archive member in memory); takes ownership of `fd`; `path`
// names it in errors.
OnnxModel read_onnx_model_fd(const std::string& path, int fd);

}  // namespace trtlens
