// Remarks (LLVM-remark style): what TensorRT did ("passed"), did not do ("missed", with the
// reason it printed or the evidence), and facts worth knowing ("analysis"), each with the engine
// layer, the ONNX nodes and the file:line they rest on. Reads the model only.
#pragma once

#include "model/capture.h"

namespace trtlens {

// Fills capture.remarks (failures first; a remark repeating an earlier one of the same ONNX
// scope, kind and reason is folded into it: that one's `repeats` counts both, the folded one
// gets repeats == 0) and Layer::device / fallback_reason of layers DLA fallbacks name.
void compute_remarks(Capture& capture);

// "/model.22/Slice_1" -> "/model.22"; "conv1" -> "conv1".
std::string onnx_scope(const std::string& node);

}  // namespace trtlens
