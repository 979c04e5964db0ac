// --exportLayerInfo JSON straight into its ingester, read twice: whole, and in reads of 1 to 16
// bytes (chosen by the input's first byte), so that a read boundary falls inside every token the
// window delimits by hand. Both readings must agree on the outcome and on every layer.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ingest/layer_json.h"
#include "io/input.h"
#include "model/assembler.h"

namespace {

struct Outcome {
  std::string error;  // "path: reason" of an InputError, or empty
  std::vector<std::string> names;
  size_t diagnostics = 0;
  uint64_t lines = 0;
};

Outcome read(std::string_view text, size_t chunk) {
  Outcome o;
  trtlens::Capture c;
  trtlens::Assembler out(c);
  out.begin_input("fuzz.json", "layer-json", false);
  try {
    o.lines = trtlens::ingest_layer_json(text, out, "fuzz.json", chunk);
  } catch (const trtlens::InputError& e) {
    o.error = e.path() + ": " + e.reason();
  }
  out.end_input(o.lines);
  out.finish();
  for (const auto& b : c.builds)
    for (const auto& l : b.layers) o.names.push_back(l.name);
  o.diagnostics = c.diagnostics.size();
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t chunk = 1 + data[0] % 16;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Outcome whole = read(text, trtlens::JsonStream::kChunk);
  const Outcome pieces = read(text, chunk);
  if (whole.error != pieces.error || whole.names != pieces.names ||
      whole.diagnostics != pieces.diagnostics || whole.lines != pieces.lines) {
    std::fprintf(stderr,
                 "whole: [%s] %zu layers, %zu diagnostics, %llu lines\n"
                 "reads of %zu: [%s] %zu layers, %zu diagnostics, %llu lines\n",
                 whole.error.c_str(), whole.names.size(), whole.diagnostics,
                 (unsigned long long)whole.lines, chunk, pieces.error.c_str(), pieces.names.size(),
                 pieces.diagnostics, (unsigned long long)pieces.lines);
    std::abort();  // the window's reads changed what was read
  }
  return 0;
}
