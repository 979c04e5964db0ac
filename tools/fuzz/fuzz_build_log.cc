// Log sections (build and runtime): the bytes become a log whose every line gets one of the
// prefixes TensorRT writes, so the fuzzer reaches the section parsers past the prefix strip
// and the detector. The first byte picks the prefix. The log is read twice, line by line and
// in screened blocks (with the literal scan and the tactic-line shortcut), and both must give
// the same capture: the screen skips work only where the driver makes up for it.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_support.h"
#include "ingest/build_log.h"
#include "ingest/grammar.h"
#include "io/input.h"
#include "model/assembler.h"
#include "render/json.h"

namespace {

std::string read_with(const trtlens::Grammar& grammar, const std::string& path,
                      const trtlens::ReadLimits& limits) {
  trtlens::Capture c;
  trtlens::Assembler out(c);
  try {
    auto in = trtlens::InputStream::open(path);
    out.begin_input("fuzz.log", "build-log", false);
    auto stats = trtlens::ingest_build_log(*in, grammar, out, "fuzz.log", limits);
    out.end_input(stats.lines);
  } catch (const trtlens::InputError&) {
  }
  out.finish();
  std::vector<const trtlens::Build*> builds;
  for (const auto& b : c.builds) builds.push_back(&b);
  std::string text = trtlens::dump_json(trtlens::capture_json(c, builds));
  for (const auto& d : c.diagnostics)
    text += "\n" + std::to_string(d.where.line) + ": " + d.message;
  return text;
}

}  // namespace

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
  trtlens::ReadLimits lines;
  lines.log_block_bytes = 0;
  lines.max_line_bytes = 4096;
  lines.threads = 1;
  lines.literal_scan_min_bytes = 0;
  const std::string expected = read_with(*grammar, f.path(), lines);
  // 64-byte blocks: block cuts, the line limit and the line-by-line fallback all happen inside
  // one input. 4 KiB blocks: runs of whole tactic lines, which the screen reads in its run loop
  // once the first block has shown that the driver takes them whole.
  for (size_t block : {size_t(64), size_t(4096)}) {
    trtlens::ReadLimits blocks = lines;
    blocks.log_block_bytes = block;
    if (read_with(*grammar, f.path(), blocks) != expected) {
      std::fprintf(stderr, "blocks of %zu bytes and line-by-line reading differ\n", block);
      std::abort();
    }
  }
  return 0;
}
