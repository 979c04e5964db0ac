// Capture bundles: the bytes are a manifest.json inside a bundle directory (first byte even)
// or an archive (first byte odd: tar, zip, or compressed by gzip, zstd, xz or bzip2) that the
// bundle reader reads with libarchive into memory, then sniffs and reads member by member.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "ingest/bundle.h"
#include "io/input.h"
#include "model/assembler.h"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // One scratch directory per process, removed when libFuzzer exits.
  struct Scratch {
    fs::path dir;
    Scratch() {
      char tmpl[] = "/tmp/trtlens-fuzz-bundle-XXXXXX";
      dir = mkdtemp(tmpl);
    }
    ~Scratch() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  };
  static const Scratch scratch;
  const fs::path& root = scratch.dir;
  if (size == 0) return 0;
  std::error_code ec;
  fs::remove_all(root / "b", ec);
  fs::create_directories(root / "b");
  const bool tar = data[0] & 1;
  const fs::path target = tar ? root / "b.tar" : root / "b" / "manifest.json";
  {
    std::ofstream f(target, std::ios::binary);
    f.write(reinterpret_cast<const char*>(data + 1), std::streamsize(size - 1));
  }
  if (!tar) {
    // Members the manifest may name.
    std::ofstream(root / "b" / "build.log") << "[I] [TRT] Loaded engine size: 1 MiB\n";
    std::ofstream(root / "b" / "layers.json") << "{\"Layers\": []}\n";
  }
  trtlens::Capture c;
  trtlens::Assembler out(c);
  trtlens::ReadLimits limits;
  limits.max_input_bytes = 8 << 20;
  try {
    auto b = trtlens::Bundle::open((tar ? target : root / "b").string(), limits, out);
    if (b)
      for (const auto& m : b->files()) {
        auto in = trtlens::open_member(m, limits);
        (void)in->peek(4096);
      }
  } catch (const trtlens::InputError&) {
  }
  return 0;
}
