// --exportProfile JSON straight into its reader (JSON first, the tolerant scanner as fallback).
#include <cstdint>

#include "fuzz_support.h"
#include "ingest/profile_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return trtlens::fuzz::ingest_text(data, size, "profile-json", trtlens::ingest_profile_json);
}
