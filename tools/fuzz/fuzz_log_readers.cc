// The position readers of hot log lines against the grammar patterns they stand in for: any
// input on which a reader and RE2 disagree (match or captures) aborts.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ingest/build_log/section.h"
#include "ingest/grammar.h"
#include "ingest/layer_text.h"

namespace {

std::string_view view(const re2::StringPiece& p) { return {p.data(), p.size()}; }

void agree(bool same) {
  if (!same) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static auto grammar = trtlens::Grammar::load();
  const std::string s(reinterpret_cast<const char*>(data), size);
  if (s.find('\n') != std::string::npos) return 0;  // the readers see one line at a time
  re2::StringPiece a, b, c, d;
  std::string_view x, y, f[4];

  bool want = RE2::PartialMatch(s, grammar->re("tactic_line"), &a);
  agree(trtlens::parse_tactic_line(s, x) == want && (!want || x == view(a)));
  uint64_t value = 0;
  if (const char* end = trtlens::read_usual_tactic_line(s.data(), s.data() + s.size(), value))
    agree(want && a.size() == 18 && end == a.data() + a.size() &&
          value == std::strtoull(std::string(a.data() + 2, 16).c_str(), nullptr, 16));
  want = RE2::PartialMatch(s, grammar->re("tactic_computing_costs"), &a);
  agree(trtlens::parse_computing_costs(s, x) == want && (!want || x == view(a)));
  want = RE2::PartialMatch(s, grammar->re("tactic_format_combination"), &a);
  agree(trtlens::parse_format_combination(s, x) == want && (!want || x == view(a)));
  want = RE2::PartialMatch(s, grammar->re("tactic_timing_runner"), &a, &b);
  agree(trtlens::parse_timing_runner(s, x, y) == want &&
        (!want || (x == view(a) && y == view(b))));
  want = RE2::FullMatch(s, grammar->re("mem_layer"), &a, &b, &c, &d);
  agree(trtlens::parse_memory_layer(s, f) == want &&
        (!want || (f[0] == view(a) && f[1] == view(b) && f[2] == view(c) && f[3] == view(d))));
  want = RE2::FullMatch(s, grammar->re("engine_layer_line"), &a, &b);
  agree(trtlens::read_engine_layer_line(s, x, y) == want &&
        (!want || (x == view(a) && y == view(b))));
  size_t taken = 0;
  re2::StringPiece rest(s);
  want = RE2::Consume(&rest, grammar->re("engine_layer_tactic"), &a);
  agree(trtlens::read_engine_layer_tactic(s, x, taken) == want &&
        (!want || (x == view(a) && taken == s.size() - rest.size())));
  rest = s;
  want = RE2::Consume(&rest, grammar->re("tensor_suffix_8x"), &a, &b);
  agree(trtlens::read_tensor_suffix_8x(s, x, y, taken) == want &&
        (!want || (x == view(a) && y == view(b) && taken == s.size() - rest.size())));
  rest = s;
  want = RE2::Consume(&rest, grammar->re("tensor_suffix_10x"), &a, &b);
  agree(trtlens::read_tensor_suffix_10x(s, x, y, taken) == want &&
        (!want || (x == view(a) && y == view(b) && taken == s.size() - rest.size())));
  return 0;
}
