// --exportLayerInfo JSON straight into its ingester.
#include <cstdint>
#include <string>

#include "ingest/layer_json.h"
#include "io/input.h"
#include "model/assembler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  trtlens::Capture c;
  trtlens::Assembler out(c);
  out.begin_input("fuzz.json", "layer-json", false);
  try {
    trtlens::ingest_layer_json(text, out, "fuzz.json");
  } catch (const trtlens::InputError&) {
  }
  out.end_input(0);
  out.finish();
  return 0;
}
