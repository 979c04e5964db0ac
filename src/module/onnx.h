// The ONNX functions (reading .onnx models, shape inference for --shape, the Netron export)
// live in a module of their own, trtlens-onnx.so, which the binary opens when one is first
// called: libonnx and libprotobuf, linked into the binary, took 1.7 ms of every run's start-up
// (C++ libraries that Debian builds to bind every symbol at load). The module calls the model's
// functions in the binary, which exports them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/shapes.h"
#include "model/onnx.h"
#include "render/onnx_export.h"

namespace trtlens {

struct OnnxModuleFunctions {
  // The build the module comes from (version and revision): it calls into the binary, so one
  // from another build is refused.
  const char* build;
  OnnxModel (*read_model)(const std::string& path);
  OnnxModel (*read_model_fd)(const std::string& path, int fd);
  InferredShapes (*infer_shapes)(const std::string& shape_model,
                                 const std::map<std::string, std::vector<int64_t>>& inputs);
  OnnxExport (*engine_onnx)(const Build& build, const std::string& producer_version);
};

inline constexpr const char* kOnnxModuleFile = "trtlens-onnx.so";
inline constexpr const char* kOnnxModuleEntry = "trtlens_onnx_module";

}  // namespace trtlens

// The module's one exported symbol.
extern "C" const trtlens::OnnxModuleFunctions* trtlens_onnx_module();
