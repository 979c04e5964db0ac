// In the binary: the ONNX functions, forwarded to the module, which is opened on the first call
// (see module/onnx.h). It is looked for beside the binary (the build tree) and in
// ../lib/trtlens (an installation).
#include <unistd.h>

#include <memory>

#include "ingest/onnx_model.h"
#include "io/input.h"
#include "io/library.h"
#include "module/onnx.h"
#include "version.h"

namespace trtlens {
namespace {

struct OnnxModule {
  std::unique_ptr<Library> library;  // never closed (Library does not): called until exit
  const OnnxModuleFunctions* functions = nullptr;
  std::string where;    // the file tried last
  std::string missing;  // why there is none
};

const OnnxModule& onnx_module() {
  static const OnnxModule module = [] {
    OnnxModule m;
    const std::string build = version_and_revision();
    std::string dir = binary_dir();
    if (dir.empty()) dir = ".";
    for (const std::string& file :
         {dir + "/" + kOnnxModuleFile, dir + "/../lib/trtlens/" + kOnnxModuleFile}) {
      if (access(file.c_str(), F_OK) != 0) continue;
      m.where = file;
      m.library = std::make_unique<Library>(file);
      const OnnxModuleFunctions* (*entry)() = nullptr;
      if (!m.library->get(entry, kOnnxModuleEntry)) {
        m.missing = "cannot be loaded: " + m.library->error();
        return m;
      }
      const OnnxModuleFunctions* f = entry();
      if (build != f->build) {
        m.missing = std::string("is from trtlens ") + f->build + ", not " + build;
        return m;
      }
      m.functions = f;
      return m;
    }
    m.where = dir + "/../lib/trtlens/" + kOnnxModuleFile;
    m.missing = "not found (nor beside the binary)";
    return m;
  }();
  return module;
}

// ONNX models cannot be read without it: an input error naming the module.
const OnnxModuleFunctions& required() {
  const OnnxModule& m = onnx_module();
  if (!m.functions)
    throw InputError(m.where, m.missing + ": ONNX models cannot be read or written without it");
  return *m.functions;
}

}  // namespace

OnnxModel read_onnx_model(const std::string& path) { return required().read_model(path); }

OnnxModel read_onnx_model_fd(const std::string& path, int fd) {
  if (!onnx_module().functions) ::close(fd);  // it owns `fd`
  return required().read_model_fd(path, fd);
}

InferredShapes infer_onnx_shapes(const std::string& shape_model,
                                 const std::map<std::string, std::vector<int64_t>>& inputs) {
  const OnnxModule& m = onnx_module();
  if (!m.functions) return InferredShapes{{}, m.where + ": " + m.missing};
  return m.functions->infer_shapes(shape_model, inputs);
}

OnnxExport engine_onnx(const Build& build, const std::string& producer_version) {
  return required().engine_onnx(build, producer_version);
}

}  // namespace trtlens
