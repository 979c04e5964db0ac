// The layer-line scanners alone: Layer(T) lines (8.x and 10.x tensor syntaxes) and the
// inspector's one-line format.
#include <cstdint>
#include <string>

#include "ingest/grammar.h"
#include "ingest/layer_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static auto grammar = trtlens::Grammar::load();
  std::string s(reinterpret_cast<const char*>(data), size);
  std::string error;
  (void)trtlens::parse_engine_layer_line(s, *grammar, &error);
  (void)trtlens::parse_oneline_layer(s, &error);
  (void)trtlens::oneline_value(s);
  return 0;
}
