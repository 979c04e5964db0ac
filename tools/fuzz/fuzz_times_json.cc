// --exportTimes JSON straight into its streaming record reader (bytes read as a stream).
#include <cstdint>

#include "fuzz_support.h"
#include "ingest/times_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return trtlens::fuzz::ingest_stream(data, size, "times-json", trtlens::ingest_times_json);
}
