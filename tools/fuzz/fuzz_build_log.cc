// Log sections (build and runtime): the bytes become a log whose every line gets one of the
// prefixes TensorRT writes, so the fuzzer reaches the section parsers past the prefix strip
// and the detector. The first byte picks the prefix.
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "ingest/build_log.h"
#include "ingest/grammar.h"
#include "io/input.h"
#include "model/assembler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static auto grammar = trtlens::Grammar::load();
  static const char* kPrefixes[] = {"[V] [TRT] ", "[11/21/2026-12:00:00] [V] [TRT] ",
                                    "[I] [TRT] ", "[W] [TRT] ", "[E] [TRT] ", "", "[I] "};
  if (size == 0) return 0;
  const std::string prefix = kPrefixes[data[0] % (sizeof(kPrefixes) / sizeof(*kPrefixes))];
  std::string text = prefix;
  for (size_t i = 1; i < size; ++i) {
    text += char(data[i]);
    if (data[i] == '\n') text += prefix;
  }
  trtlens::fuzz::MemFile f(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  trtlens::Capture c;
  trtlens::Assembler out(c);
  try {
    auto in = trtlens::InputStream::open(f.path());
    // Small blocks and lines: block cuts, the line limit and the line-by-line fallback all
    // happen inside one input.
    trtlens::ReadLimits limits;
    limits.log_block_bytes = 64;
    limits.max_line_bytes = 4096;
    limits.threads = 1;
    out.begin_input("fuzz.log", "build-log", false);
    auto stats = trtlens::ingest_build_log(*in, *grammar, out, "fuzz.log", limits);
    out.end_input(stats.lines);
  } catch (const trtlens::InputError&) {
  }
  out.finish();
  return 0;
}
