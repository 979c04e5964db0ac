// The ONNX side: nodes and initializers of the source model, and each node's fate.
#pragma once

#include <string>
#include <vector>

namespace trtlens {

struct OnnxModel {};

}  // namespace trtlens
