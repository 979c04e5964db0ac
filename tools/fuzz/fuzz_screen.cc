// The log screen's two literal searches must agree on any bytes: all literals in one Hyperscan
// scan of a message, and one search per literal. A literal one misses shows up here as a
// different hit or body run.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "ingest/build_log/screen.h"
#include "ingest/build_log/section.h"
#include "ingest/grammar.h"
#include "model/assembler.h"

namespace {

void agree(bool same, const char* what) {
  if (same) return;
  std::fprintf(stderr, "the screen's two literal searches differ: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trtlens;
  static auto grammar = Grammar::load();
  static Capture capture;
  static Assembler out(capture);
  static LogContext ctx{*grammar, out, "fuzz"};
  static auto sections = make_log_sections(ctx);
  static LogScreen scan(*grammar, sections), per_line(*grammar, sections);
  static const bool on = (scan.enable_literal_scan(), scan.literal_scan());
  if (!on) return 0;  // built without Hyperscan: one path only
  ScreenedBlock a, b;
  a.bytes = b.bytes = std::string_view(reinterpret_cast<const char*>(data), size);
  // Body lines matched against the triggers, and read by the shortcut without.
  const bool check = size % 2 == 0;
  scan.check_body_lines(check);
  per_line.check_body_lines(check);
  for (size_t max_line : {size_t(1) << 20, size_t(100)}) {
    scan.screen(a, max_line);
    per_line.screen(b, max_line);
    agree(a.lines == b.lines && a.recognized == b.recognized, "lines or recognized");
    agree(a.has_cr == b.has_cr && a.has_esc == b.has_esc, "CR or ESC");
    agree(a.truncated == b.truncated, "truncated lines");
    agree(a.hits.size() == b.hits.size(), "number of hits");
    for (size_t i = 0; i < a.hits.size(); ++i)
      agree(a.hits[i].offset == b.hits[i].offset && a.hits[i].line == b.hits[i].line &&
                a.hits[i].trigger == b.hits[i].trigger,
            "a hit");
    agree(a.bodies.size() == b.bodies.size(), "number of body runs");
    for (size_t i = 0; i < a.bodies.size(); ++i)
      agree(a.bodies[i].offset == b.bodies[i].offset && a.bodies[i].line == b.bodies[i].line &&
                a.bodies[i].count == b.bodies[i].count &&
                a.bodies[i].value_count == b.bodies[i].value_count &&
                a.bodies[i].next == b.bodies[i].next &&
                a.bodies[i].unprefixed == b.bodies[i].unprefixed,
            "a body run");
    agree(a.values == b.values, "body values");
  }
  return 0;
}
