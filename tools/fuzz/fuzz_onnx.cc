// .onnx models: any bytes through the protobuf reader and the model extraction.
#include <cstdint>

#include "fuzz_support.h"
#include "ingest/onnx_model.h"
#include "io/input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  trtlens::fuzz::MemFile f(data, size);
  try {
    (void)trtlens::read_onnx_model(f.path());
  } catch (const trtlens::InputError&) {
  }
  return 0;
}
