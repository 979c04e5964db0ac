// In the module: the table of its functions (see module/onnx.h).
#include "ingest/onnx_model.h"
#include "module/onnx.h"
#include "version.h"

extern "C" [[gnu::visibility("default")]] const trtlens::OnnxModuleFunctions*
trtlens_onnx_module() {
  using namespace trtlens;
  static const std::string build = version_and_revision();
  static const OnnxModuleFunctions functions{build.c_str(), &read_onnx_model, &read_onnx_model_fd,
                                             &infer_onnx_shapes, &engine_onnx};
  return &functions;
}
