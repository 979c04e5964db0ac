// --exportProfile JSON straight into its tolerant record scanner (bytes read as lines).
#include <cstdint>

#include "fuzz_support.h"
#include "ingest/profile_json.h"
#include "io/input.h"
#include "model/assembler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  trtlens::fuzz::MemFile f(data, size);
  trtlens::Capture c;
  trtlens::Assembler out(c);
  try {
    auto in = trtlens::InputStream::open(f.path());
    trtlens::LineReader lines(*in, size_t{1} << 20);
    out.begin_input("fuzz.json", "profile-json", false);
    trtlens::ingest_profile_json(lines, out, "fuzz.json");
    out.end_input(lines.lines());
  } catch (const trtlens::InputError&) {
  }
  out.finish();
  return 0;
}
