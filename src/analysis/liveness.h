// Activation memory estimate from tensor lifetimes over engine order: a tensor is live from the
// layer that produces it to its last consumer; graph inputs and outputs are live throughout.
#pragma once

#include <functional>
#include <optional>

#include "model/capture.h"

namespace trtlens {

using TensorSize = std::function<std::optional<uint64_t>(const Tensor&)>;

// Fills BuildMemory::peak_live_bytes, peak_layer, peak_tensors, liveness_unknown_tensors.
void estimate_liveness(Build& build, const TensorSize& size_of);

}  // namespace trtlens
