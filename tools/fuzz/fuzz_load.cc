// Whole-pipeline target: any bytes through detection, every ingester and every analysis.
// Input errors are expected outcomes; crashes, hangs and sanitizer reports are not.
#include <cstdint>

#include "analysis/analyze.h"
#include "fuzz_support.h"
#include "ingest/grammar.h"
#include "ingest/load.h"
#include "render/json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static auto grammar = trtlens::Grammar::load();
  trtlens::fuzz::MemFile f(data, size);
  trtlens::ReadLimits limits;
  limits.max_input_bytes = 64 << 20;
  try {
    trtlens::Capture c = trtlens::load_capture({f.path()}, *grammar, limits);
    trtlens::analyze(c, {});
    std::vector<const trtlens::Build*> all;
    for (const auto& b : c.builds) all.push_back(&b);
    (void)trtlens::dump_json(trtlens::capture_json(c, all));
  } catch (const trtlens::InputError&) {
  }
  return 0;
}
