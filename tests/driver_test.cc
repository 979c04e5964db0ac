// The log driver's fast paths (position-checked trtexec prefix, first-byte and literal
// prefilters) must give exactly what running every grammar pattern gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "analysis/analyze.h"
#include "ingest/build_log/screen.h"
#include "ingest/build_log/section.h"
#include "ingest/build_log/tactic_line.h"
#include "ingest/grammar.h"
#include "ingest/layer_text.h"
#include "ingest/load.h"
#include "model/assembler.h"
#include "render/json.h"
#include "test_support.h"

namespace trtlens {
namespace {

using test::fixture;
using test::run_trtlens;
using test::shell_quote;
namespace fs = std::filesystem;

// A --grammar-dir whose prefix.re2 differs from the built-in one only by a comment: the
// driver then cannot use its hand-written prefix path and runs the RE2 patterns instead.
std::string slow_grammar_dir() {
  static std::string dir = [] {
    fs::path d = fs::temp_directory_path() / "trtlens-driver-test-grammar";
    fs::create_directories(d);
    std::string text = test::read_file(test::source_dir() + "/grammar/prefix.re2");
    std::ofstream(d / "prefix.re2") << "# changed by a test: forces the pattern path\n" << text;
    return d.string();
  }();
  return dir;
}

void expect_same_json(const std::string& input) {
  SCOPED_TRACE(input);
  auto fast = run_trtlens("json " + shell_quote(input));
  auto slow = run_trtlens("json --grammar-dir " + shell_quote(slow_grammar_dir()) + " " +
                          shell_quote(input));
  ASSERT_EQ(fast.exit_code, 0) << fast.err;
  ASSERT_EQ(slow.exit_code, 0) << slow.err;
  EXPECT_EQ(fast.out, slow.out);
  EXPECT_GT(fast.out.size(), 200u);
}

TEST(LogDriver, FastPrefixPathAgreesWithThePrefixPatterns) {
  expect_same_json(fixture("core/prefixes.log"));
  expect_same_json(fixture("seed000_int8.log"));
  expect_same_json(fixture("memory/several_builds.log"));
  expect_same_json(fixture("capture/runtime.log"));
  expect_same_json(fixture("provenance/small_build.log"));
}

constexpr const char* kSeeds[] = {"000_9fb31eec5d86dcda.txt", "001_73038f12cc2a768c.txt",
                                  "002_4e1b64db6c7b7a92.txt"};

TEST(LogDriver, FastPrefixPathAgreesOnTheSeeds) {
  TRTLENS_REQUIRE_SHARED();
  for (const char* seed : kSeeds) expect_same_json(test::shared_dir() + "/seeds/" + seed);
}

// Odd time stamps must take the pattern path and still be stripped: one-digit month, a lost
// "[", no space before the severity.
TEST(LogDriver, UnusualTimeStampsStillStrip) {
  fs::path p = fs::temp_directory_path() / "trtlens-driver-odd-stamps.log";
  std::ofstream(p) << "[1/8/2023-15:25:37] [V] [TRT] Engine Layer Information:\n"
                      "Layer(Reformat): r, Tactic: 0x0000000000000000, x[Float(1,3)] -> y[Half(1,3)]\n"
                      "02/08/2023-15:25:37] [I] TensorRT version: 8.6.1\n"
                      "[02/08/2023-15:25:37][W] [TRT] Engine Layer Information:\n"
                      "Layer(Reformat): s, Tactic: 0x0000000000000000, y[Half(1,3)] -> z[Float(1,3)]\n";
  auto r = run_trtlens("json " + shell_quote(p.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"name\": \"r\""), std::string::npos);
  EXPECT_NE(r.out.find("\"name\": \"s\""), std::string::npos);
  EXPECT_NE(r.out.find("\"trt_version\": \"8.6.1\""), std::string::npos);
  expect_same_json(p.string());
  fs::remove(p);
}

// Reading in blocks on worker threads must give exactly what reading line by line gives: same
// layers, diagnostics and line numbers, whatever the block size, thread count and source
// (a file read in blocks or a stream).
std::string json_with(const std::string& path, const ReadLimits& limits,
                      const std::string& grammar_dir = "") {
  auto grammar = Grammar::load(grammar_dir);
  Capture c = load_capture({path}, *grammar, limits);
  analyze(c, AnalysisOptions{});
  std::string out = test::whole_json(c);
  for (const auto& d : c.diagnostics)
    out += "\n" + d.where.path + ":" + std::to_string(d.where.line) + ": " + d.message;
  return out;
}

// Reads `path` line by line with `base` limits, then in every block size of `blocks` with 1-3
// threads, a file read in blocks and a stream; all must agree. Returns the line-by-line result.
std::string expect_block_modes_agree(const std::string& path, ReadLimits base = {},
                                     std::vector<size_t> blocks = {1, 7, 64, 4096, 1 << 20},
                                     const std::string& grammar_dir = "") {
  SCOPED_TRACE(path);
  ReadLimits line_by_line = base;
  line_by_line.log_block_bytes = 0;
  const std::string want = json_with(path, line_by_line, grammar_dir);
  EXPECT_GT(want.size(), 200u);
  for (size_t block : blocks) {
    for (unsigned threads : {1u, 2u, 3u}) {
      for (size_t blocks_min : {size_t(1), size_t(1) << 40}) {
        for (size_t scan_min : {size_t(0), size_t(1) << 40}) {
          ReadLimits l = base;
          l.log_block_bytes = block;
          l.threads = threads;
          l.file_blocks_min_bytes = blocks_min;
          l.literal_scan_min_bytes = scan_min;
          SCOPED_TRACE("block " + std::to_string(block) + ", threads " + std::to_string(threads) +
                       (blocks_min == 1 ? ", file blocks" : ", stream") +
                       (scan_min == 0 ? ", one literal scan" : ", one search per literal"));
          EXPECT_EQ(json_with(path, l, grammar_dir), want);
        }
      }
    }
  }
  return want;
}

TEST(LogDriver, BlocksAndThreadsAgreeWithLineByLine) {
  for (const char* f :
       {"seed000_int8.log", "core/prefixes.log", "core/crlf.log", "core/cr.log",
        "core/ansi_utf8.log", "core/hazards_8x.log", "core/two_builds.log", "core/bad_line.log",
        "memory/several_builds.log", "capture/runtime.log", "provenance/small_build.log",
        "core/tactics.log", "core/tactic_shortcut.log", "core/timing_block_ends.log"})
    expect_block_modes_agree(fixture(f));
}

// The program's hook for a large model runs once for each build log read in file blocks, and
// never for one read as a stream (below the blocks' size, or line by line), nor for a JSON input.
int g_large_logs = 0;
TEST(LogDriver, TheLargeLogHookRunsOncePerLargeLog) {
  auto grammar = Grammar::load();
  auto count = [&](const std::vector<std::string>& files, size_t blocks_min, size_t block) {
    ReadLimits l;
    l.file_blocks_min_bytes = blocks_min;
    l.log_block_bytes = block;
    l.on_large_log = [] { ++g_large_logs; };
    g_large_logs = 0;
    load_capture(files, *grammar, l);
    return g_large_logs;
  };
  const std::string log = fixture("core/two_builds.log");
  EXPECT_EQ(count({log}, 1, size_t(1) << 20), 1);
  EXPECT_EQ(
      count({fixture("capture/build.log"), fixture("capture/runtime.log")}, 1, size_t(1) << 20), 2);
  EXPECT_EQ(count({log}, size_t(1) << 40, size_t(1) << 20), 0);
  EXPECT_EQ(count({log}, 1, 0), 0);  // line by line
  EXPECT_EQ(count({fixture("capture/layers.json")}, 1, size_t(1) << 20), 0);
}

// Reads `path` line by line and in 64-byte and 1 MiB blocks, with one, two and three threads, and
// hands each reading's capture to `check`; for_each_block_mode() reads a fixture by its name.
void for_each_block_mode_at(const std::string& path,
                            const std::function<void(const Capture&)>& check) {
  ReadLimits limits;
  for (size_t block : {size_t(0), size_t(64), size_t(1) << 20}) {
    for (unsigned threads : {1u, 2u, 3u}) {
      SCOPED_TRACE("block " + std::to_string(block) + ", threads " + std::to_string(threads));
      limits.log_block_bytes = block;
      limits.threads = threads;
      auto grammar = Grammar::load();
      check(load_capture({path}, *grammar, limits));
    }
  }
}
void for_each_block_mode(const std::string& name,
                         const std::function<void(const Capture&)>& check) {
  for_each_block_mode_at(fixture(name), check);
}

// The last tactic attempt of the capture's one run, or null (a failure then).
const TacticAttempt* last_attempt(const Capture& c) {
  if (c.runs.size() != 1 || !c.runs[0].tactic) {
    ADD_FAILURE() << c.runs.size() << " runs; one with a tactic attempt expected";
    return nullptr;
  }
  return &*c.runs[0].tactic;
}

// The tactics of the last Timing Runner, counted by hand from the fixture: lines 13-19 after the
// runner on line 12; line 15 is a tactic skipped for memory (not timed), line 17's id has 17
// hex digits (kept as written), line 18 is coloured, line 19 has no log prefix; line 20 is no
// tactic line (its name holds a space) and ends the block.
TEST(LogDriver, TacticLinesAreReadInEveryBlockMode) {
  for_each_block_mode("core/tactics.log", [](const Capture& c) {
    const TacticAttempt* t = last_attempt(c);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->node, "Conv_2");
    EXPECT_EQ(t->runner, "CudnnConvolution");  // "(CudnnConvolution[0x80000000])"
    EXPECT_EQ(t->line, 12u);
    EXPECT_EQ(t->tactics, (std::vector<std::string>{"0x0000000000000000", "0xfffffffffffffffd",
                                                    "0x0000000000000004", "0x1ffffffffffffffff",
                                                    "0x0000000000000006", "0x0000000000000007"}));
    EXPECT_EQ(c.inputs.at(0).unrecognized, 0u);
  });
}

// A run of usual tactic lines broken every way the screen's run loop stops at, by hand from the
// fixture: the runner on line 4 times lines 5-18. Line 8's time stamp differs from the line
// before, line 10 is a warning, line 12 a skipped tactic (not timed), line 15's id has 17 hex
// digits, line 17 has colour in its time; line 19's name holds a space and ends the block, so
// line 20's tactic is not the runner's.
TEST(LogDriver, TacticRunsBrokenAnywhereReadAsLineByLine) {
  for_each_block_mode("core/tactic_runs.log", [](const Capture& c) {
    const TacticAttempt* t = last_attempt(c);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->node, "Conv_0");
    EXPECT_EQ(t->line, 4u);
    EXPECT_EQ(t->tried, 13u);
    EXPECT_EQ(t->tactics, (std::vector<std::string>{
                              "0x0000000000000001", "0x0000000000000002", "0x0000000000000003",
                              "0x0000000000000004", "0x0000000000000005", "0x0000000000000006",
                              "0x0000000000000007", "0x0000000000000009", "0x000000000000000a",
                              "0x1000000000000000b", "0x000000000000000c", "0x000000000000000d",
                              "0x000000000000000e"}));
    EXPECT_EQ(c.inputs.at(0).unrecognized, 0u);
  });
}

// Where timing blocks end, by hand from the fixture: the first block takes lines 6-10 (a tactic
// line at warning level, a memory warning, a skipped tactic) and ends at its "profiling
// completed" line; the second ends at the information line 15; the last runner (line 17) times
// 0x8 and 0x9, and the tactic line after its "profiling completed" line is no longer its own.
TEST(LogDriver, TimingBlocksEndAtTheLinesTheyRefuse) {
  for_each_block_mode("core/timing_block_ends.log", [](const Capture& c) {
    const TacticAttempt* t = last_attempt(c);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->node, "Conv_0");
    EXPECT_EQ(t->runner, "CaskGemmConvolution");
    EXPECT_EQ(t->line, 17u);
    EXPECT_EQ(t->tried, 2u);
    EXPECT_EQ(t->tactics, (std::vector<std::string>{"0x0000000000000008", "0x0000000000000009"}));
  });
}

// The lines that close a runner's timing ("profiling completed") and a format combination's
// ("Chose Runner Type") are the last of their block, by hand from the fixture: line 8 closes the
// first runner's block, so line 9's tactic is not its own; line 12 closes the second, so line 13
// is not its own either. Inside its block a closing line is the block's, as its tactic lines
// are, even with trigger text in its name (line 8: no error record); outside one it is matched
// like any line (line 14: the record of Error Code 7).
TEST(LogDriver, ClosingLinesEndTheirTimingBlock) {
  const std::string want = expect_block_modes_agree(fixture("core/timing_closing_lines.log"), {},
                                                    {1, 64, 4096, 1 << 20});
  // With run.re2 given again (a comment apart), the closing lines are read by their patterns.
  const fs::path dir = fs::temp_directory_path() / "trtlens-closing-lines-grammar";
  fs::create_directories(dir);
  std::ofstream(dir / "run.re2") << "# changed by a test: forces the pattern path\n"
                                 << test::read_file(test::source_dir() + "/grammar/run.re2");
  EXPECT_EQ(expect_block_modes_agree(fixture("core/timing_closing_lines.log"), {},
                                     {1, 64, 4096, 1 << 20}, dir.string()),
            want);
  for_each_block_mode("core/timing_closing_lines.log", [](const Capture& c) {
    const TacticAttempt* t = last_attempt(c);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->runner, "CudnnConvolution");
    EXPECT_EQ(t->line, 10u);
    EXPECT_EQ(t->tried, 1u);
    EXPECT_EQ(t->tactics, (std::vector<std::string>{"0x0000000000000004"}));
    ASSERT_EQ(c.runs.at(0).records.size(), 1u);
    EXPECT_EQ(c.runs[0].records[0].line, 14u);
    EXPECT_EQ(c.runs[0].records[0].code, 7);
  });
  // Cut after line 9, the first runner's block is the last: line 8 ends it although a trigger
  // matched it (its Error Code text), and the tactic line after it, which the screen reads
  // ahead as a body line, is not the block's.
  const std::string text = test::read_file(fixture("core/timing_closing_lines.log"));
  size_t cut = 0;
  for (int line = 0; line < 9; ++line) cut = text.find('\n', cut) + 1;
  const fs::path head = fs::temp_directory_path() / "trtlens-closing-lines-head.log";
  std::ofstream(head, std::ios::binary) << text.substr(0, cut);
  for_each_block_mode_at(head.string(), [](const Capture& c) {
    const TacticAttempt* t = last_attempt(c);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->runner, "CaskConvolution");
    EXPECT_EQ(t->line, 5u);
    EXPECT_EQ(t->tried, 2u);
    EXPECT_EQ(t->tactics, (std::vector<std::string>{"0x0000000000000001", "0x0000000000000002"}));
    EXPECT_TRUE(c.runs.at(0).records.empty());
  });
  fs::remove(head);
}

// The log sections and their screen over the built-in grammar, as a reader builds them.
struct Screen {
  explicit Screen(const std::string& path = "x") : ctx{*grammar, out, path} {}
  std::shared_ptr<const Grammar> grammar = Grammar::load();
  Capture capture;
  Assembler out{capture};
  LogContext ctx;
  std::vector<std::unique_ptr<LogSection>> sections = make_log_sections(ctx);
  LogScreen screen{*grammar, sections};
};

// 20,000 lines of one of `heads` and up to `max_tail - 1` bytes of `alphabet`, from a fixed seed.
void add_random_lines(std::vector<std::string>& lines, uint64_t seed,
                      const std::vector<std::string>& heads, const std::string& alphabet,
                      size_t max_tail) {
  auto next = [&] { return seed = seed * 6364136223846793005ULL + 1442695040888963407ULL; };
  for (int i = 0; i < 20000; ++i) {
    next();
    std::string l = heads[(seed >> 33) % heads.size()];
    const size_t n = (seed >> 40) % max_tail;
    for (size_t k = 0; k < n; ++k) l += alphabet[(next() >> 35) % alphabet.size()];
    lines.push_back(l);
  }
}

// refuses() is a promise the driver acts on without reading the line again: every line the
// body section refuses on a worker thread, the open section's next() refuses and
// may_resume_after() does not hold. Lines of every kind a timing block meets, at random.
TEST(LogDriver, LinesTheBodySectionRefusesEndItsBlock) {
  Screen s;
  LogSection* body = s.screen.body_section();
  ASSERT_NE(body, nullptr);
  const std::vector<std::string> names = body->triggers();
  const size_t runner =
      size_t(std::find(names.begin(), names.end(), "tactic_timing_runner") - names.begin());
  ASSERT_LT(runner, names.size());
  const std::string banner =
      "[03/11/2024-10:00:02] [V] [TRT] --------------- Timing Runner: Conv_0 "
      "(CaskConvolution[0x80000009])";
  std::vector<std::string> lines;
  add_random_lines(lines, 11,
                   {"[03/11/2024-10:00:02] [V] [TRT] ", "[03/11/2024-10:00:02] [W] [TRT] ",
                    "[03/11/2024-10:00:02] [E] [TRT] ", "[03/11/2024-10:00:02] [I] ",
                    "[03/11/2024-10:00:02] [V] [TRT] Tactic", "Tactic: 0x", "Skipping tactic ",
                    "[03/11/2024-10:00:02] [V] [TRT] Skipping tactic ", "[F] ", "  ", ""},
                   "Tactic: 0x0123456789abcdefName []WEVIF\x1b", 48);
  size_t refused = 0, taken = 0;
  for (const std::string& text : lines) {
    ASSERT_TRUE(body->start(runner, s.screen.line(banner, 1)));
    const LogLine l = s.screen.line(text, 2);
    if (!body->refuses(l)) {
      taken += body->next(l);
      continue;
    }
    ++refused;
    EXPECT_FALSE(body->next(l)) << text;
    EXPECT_FALSE(body->may_resume_after(l)) << text;
  }
  EXPECT_GT(refused, 1000u);
  EXPECT_GT(taken, 1000u);
}

// The screen reads the usual tactic line without looking for triggers, but only where no
// trigger can match it. The fixture's tactics, by hand: line 7's name holds literals other
// patterns look for, line 8 ends at the id, line 9 is at info level, line 10's id has 17 digits
// (kept as written), line 11's has 15, line 12 starts with a blank, line 13 holds "Error Code "
// (a trigger line then, which the open block takes as a tactic), line 14 follows.
TEST(LogDriver, TacticShortcutReadsWhatThePatternsRead) {
  EXPECT_TRUE(Screen().screen.body_shortcut());
  auto grammar = Grammar::load();
  ReadLimits limits;
  limits.literal_scan_min_bytes = 0;
  Capture c = load_capture({fixture("core/tactic_shortcut.log")}, *grammar, limits);
  ASSERT_EQ(c.runs.size(), 1u);
  ASSERT_TRUE(c.runs[0].tactic);
  EXPECT_EQ(c.runs[0].tactic->tactics,
            (std::vector<std::string>{"0x000000000000000a", "0x000000000000000b",
                                      "0x000000000000000c", "0x000000000000000d1",
                                      "0x000000000000000e", "0x0000000000000010",
                                      "0x0000000000000011", "0x0000000000000012"}));
  EXPECT_EQ(c.inputs.at(0).unrecognized, 0u);
}

// The engine-layer readers must answer as their patterns do, and a whole layer line must read
// the same by position as by the patterns: the fixtures' layer lines, then 20,000 random lines
// over the bytes that matter to the patterns.
TEST(LogDriver, EngineLayerLinesReadByPositionAgreeWithThePatterns) {
  auto grammar = Grammar::load();
  const EngineLayerGrammar by_position(*grammar);
  ASSERT_TRUE(by_position.builtin);
  EngineLayerGrammar by_pattern = by_position;
  by_pattern.builtin = false;
  std::vector<std::string> lines;
  for (const char* f : {"seed000_int8.log", "core/hazards_8x.log", "core/two_builds.log",
                        "memory/several_builds.log", "provenance/small_build.log"}) {
    std::istringstream in(test::read_file(fixture(f)));
    for (std::string l; std::getline(in, l);)
      if (l.rfind("Layer(", 0) == 0) lines.push_back(l);
  }
  ASSERT_GT(lines.size(), 50u);
  add_random_lines(lines, 7,
                   {"Layer(", "Layer(CaskConvolution): a, Tactic: ", ", Tactic: ", "[", " (",
                    "Layer(Reformat): x, Tactic: 0x0, a"},
                   "()[]:, -0x19aFZ_>\n", 16);
  auto view = [](const re2::StringPiece& p) { return std::string_view(p.data(), p.size()); };
  size_t layers = 0;
  for (const std::string& l : lines) {
    SCOPED_TRACE(l);
    re2::StringPiece a, b;
    std::string_view x, y;
    size_t taken = 0;
    bool want = RE2::FullMatch(l, by_position.line, &a, &b);
    ASSERT_EQ(read_engine_layer_line(l, x, y), want);
    if (want) EXPECT_TRUE(x == view(a) && y == view(b));
    re2::StringPiece rest(l);
    want = RE2::Consume(&rest, by_position.tactic, &a);
    ASSERT_EQ(read_engine_layer_tactic(l, x, taken), want);
    if (want) EXPECT_TRUE(x == view(a) && taken == l.size() - rest.size());
    rest = l;
    want = RE2::Consume(&rest, by_position.t8, &a, &b);
    ASSERT_EQ(read_tensor_suffix_8x(l, x, y, taken), want);
    if (want) EXPECT_TRUE(x == view(a) && y == view(b) && taken == l.size() - rest.size());
    rest = l;
    want = RE2::Consume(&rest, by_position.t10, &a, &b);
    ASSERT_EQ(read_tensor_suffix_10x(l, x, y, taken), want);
    if (want) EXPECT_TRUE(x == view(a) && y == view(b) && taken == l.size() - rest.size());
    std::string e1, e2;
    auto p1 = parse_engine_layer_line(l, by_position, &e1);
    auto p2 = parse_engine_layer_line(l, by_pattern, &e2);
    ASSERT_EQ(p1.has_value(), p2.has_value());
    EXPECT_EQ(e1, e2);
    if (!p1) continue;
    ++layers;
    EXPECT_EQ(p1->name, p2->name);
    EXPECT_EQ(p1->type, p2->type);
    EXPECT_EQ(p1->tactic, p2->tactic);
    ASSERT_EQ(p1->inputs.size(), p2->inputs.size());
    ASSERT_EQ(p1->outputs.size(), p2->outputs.size());
    for (size_t k = 0; k < p1->inputs.size(); ++k) {
      EXPECT_EQ(p1->inputs[k].name, p2->inputs[k].name);
      EXPECT_EQ(p1->inputs[k].dims, p2->inputs[k].dims);
    }
    for (size_t k = 0; k < p1->outputs.size(); ++k) {
      EXPECT_EQ(p1->outputs[k].name, p2->outputs[k].name);
      EXPECT_EQ(p1->outputs[k].dims, p2->outputs[k].dims);
    }
  }
  EXPECT_GT(layers, 50u);
}

// The tactic-block banners read by position must answer as their patterns do: real lines, then
// 20,000 random tails over the bytes that matter to the patterns.
TEST(LogDriver, TacticBannersReadByPositionAgreeWithThePatterns) {
  auto grammar = Grammar::load();
  const RE2& costs = grammar->re("tactic_computing_costs");
  const RE2& formats = grammar->re("tactic_format_combination");
  const RE2& runner = grammar->re("tactic_timing_runner");
  std::vector<std::string> lines = {
      "=============== Computing costs for Conv_0 + Relu_1",
      "=============== Computing costs for ", "=============== Computing costs for  \t",
      "= Computing costs for a b  ", "=== Computing costs for", "Computing costs for x",
      "*************** Autotuning format combination: Float(150528,50176,224,1) -> "
      "Half(802816,12544,112,1) ***************",
      "* Autotuning format combination: ", "** Autotuning format combination: a * * ",
      "*** Autotuning format combination: x**\t", "*Autotuning format combination: x",
      "--------------- Timing Runner: Conv_0 + Relu_1 (CaskConvolution[0x80000009])",
      "--------------- Timing Runner: Conv_0 + Relu_1 (CaskConvolution)",
      "- Timing Runner: a (b) (c[-12]) ", "- Timing Runner:  (x)", "- Timing Runner: a (b[0x])",
      "- Timing Runner: a (b[])", "- Timing Runner: a (b[0xg])", "- Timing Runner: a (b[--1])",
      "- Timing Runner: a(b)", "- Timing Runner: a ([1])", "- Timing Runner: a (b c)",
      "- Timing Runner: a (b[1][2])", "- Timing Runner: (b)"};
  add_random_lines(lines, 42,
                   {"=== Computing costs for ", "** Autotuning format combination: ",
                    "--- Timing Runner: "},
                   " *()[]0x1aF-_\t\r=", 12);
  auto view = [](const re2::StringPiece& p) { return std::string_view(p.data(), p.size()); };
  for (const std::string& l : lines) {
    SCOPED_TRACE(l);
    re2::StringPiece a, b;
    std::string_view x, y;
    bool want = RE2::PartialMatch(l, costs, &a);
    ASSERT_EQ(parse_computing_costs(l, x), want);
    if (want) ASSERT_EQ(x, view(a));
    want = RE2::PartialMatch(l, formats, &a);
    ASSERT_EQ(parse_format_combination(l, x), want);
    if (want) ASSERT_EQ(x, view(a));
    want = RE2::PartialMatch(l, runner, &a, &b);
    ASSERT_EQ(parse_timing_runner(l, x, y), want);
    if (want) {
      ASSERT_EQ(x, view(a));
      ASSERT_EQ(y, view(b));
    }
  }
}

// The lines that end a timing block, read by position, must answer as their patterns do: real
// lines, edge cases, then 20,000 random tails over the bytes that matter to the patterns.
TEST(LogDriver, ClosingLinesReadByPositionAgreeWithThePatterns) {
  auto grammar = Grammar::load();
  const RE2& chose = grammar->re("tactic_chose_runner");
  const RE2& profiled = grammar->re("tactic_profiling_completed");
  std::vector<std::string> lines = {
      ">>>>>>>>>>>>>>> Chose Runner Type: CaskConvolution Tactic: 0x9cb304e2edbc1221",
      "> Chose Runner Type: ",
      ">Chose Runner Type: x",
      ">> Chose Runner Type:",
      "Chose Runner Type: x",
      "Conv_0 (CaskConvolution[0x80000009]) profiling completed in 0.0647644 seconds. Fastest "
      "Tactic: 0x9cb304e2edbc1221 Time: 0.0402286",
      "a) profiling completed in 1 seconds. Fastest Tactic: 2 Time: 3",
      ") profiling completed in 1 seconds. Fastest Tactic: 2 Time: 3",
      "a) profiling completed in 1 seconds. Fastest Tactic: 2 Time: 3 \t",
      "a) profiling completed in 1 seconds. Fastest Tactic: 2 Time: 3x",
      "a) profiling completed in 1 seconds. Fastest Tactic: 2 Time: x\t3",
      "a) profiling completed in 1 seconds. Fastest Tactic: 2 Time: ",
      "a) profiling completed in  seconds. Fastest Tactic: 2 Time: 3",
      "a) profiling completed in 1 seconds. Fastest Tactic: 2 3 Time: 4",
      "a) profiling completed in 1 seconds. Fastest Tactic: 2 Time: 3 Time: 4",
      "a (b) profiling completed in 1 2 seconds. Fastest Tactic: 3 Time: 4"};
  add_random_lines(lines, 7,
                   {">> Chose Runner Type: ", "a) profiling completed in ",
                    "a) profiling completed in 1 seconds. Fastest Tactic: ",
                    "a) profiling completed in 1 seconds. Fastest Tactic: 2 Time: "},
                   " )1x.\t\rTime:", 14);
  size_t closing = 0;
  for (const std::string& l : lines) {
    SCOPED_TRACE(l);
    const bool a = RE2::PartialMatch(l, chose), b = RE2::PartialMatch(l, profiled);
    ASSERT_EQ(chose_runner(l), a);
    ASSERT_EQ(profiling_completed(l), b);
    closing += a || b;
  }
  // Both answers occur often among the random lines, not only in the hand-written ones.
  EXPECT_GT(closing, 1000u);
  EXPECT_LT(closing, lines.size() - 1000);
}

// The per-layer memory line read by position must answer as mem_layer's FullMatch does.
TEST(LogDriver, MemoryLayerLinesReadByPositionAgreeWithThePattern) {
  auto grammar = Grammar::load();
  const RE2& re = grammar->re("mem_layer");
  std::vector<std::string> lines = {
      "Layer: Conv_116 + Add_117 + Relu_118 Host Persistent: 7200 Device Persistent: 0 Scratch "
      "Memory: 0",
      "Layer: /conv1/Conv + /relu/Relu Host Persistent: 3424 bytes Device Persistent: 0 bytes "
      "Scratch Memory: 0 bytes",
      "Layer: a Host Persistent: 1 Device Persistent: 2 Scratch Memory: 3 bytes \t",
      "Layer:  Host Persistent: 1 Device Persistent: 2 Scratch Memory: 3",
      "Layer: Host Persistent: 1 Device Persistent: 2 Scratch Memory: 3",
      "Layer: x Host Persistent: 1 Device Persistent: 2 Scratch Memory: 3 bytes bytes",
      "Layer: x Host Persistent: 9 Device Persistent: 8 Scratch Memory: 7 Host Persistent: 1 "
      "Device Persistent: 2 Scratch Memory: 3",
      "Layer: x Host Persistent:  1 Device Persistent: 2 Scratch Memory: 3",
      "Layer: x Host Persistent: 1 Device Persistent: 2 Scratch Memory: ",
      "Layer: x Host Persistent: 1bytes Device Persistent: 2 Scratch Memory: 3"};
  const std::string pieces[] = {"Layer: ", " Host Persistent: ", " Device Persistent: ",
                                " Scratch Memory: ", " bytes", "1", "23", " ", "\t", "x", "Layer:"};
  // Lines of the right shape with random names, optional " bytes", blanks, and now and then a
  // piece too many or missing.
  uint64_t seed = 7;
  auto next = [&seed](uint64_t n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (seed >> 33) % n;
  };
  const char* labels[] = {" Host Persistent: ", " Device Persistent: ", " Scratch Memory: "};
  for (int i = 0; i < 20000; ++i) {
    std::string l = "Layer: ";
    for (uint64_t k = next(4); k > 0; --k) l += pieces[next(std::size(pieces))];
    for (const char* label : labels) {
      if (next(20) != 0) l += label;
      if (next(20) != 0) l += std::to_string(next(100000));
      if (next(2) == 0) l += " bytes";
      if (next(10) == 0) l += pieces[next(std::size(pieces))];
    }
    for (uint64_t k = next(3); k > 0; --k) l += next(2) ? " " : "\t";
    lines.push_back(l);
  }
  size_t matched = 0;
  for (const std::string& l : lines) {
    SCOPED_TRACE(l);
    re2::StringPiece want[4];
    const bool ok = RE2::FullMatch(l, re, &want[0], &want[1], &want[2], &want[3]);
    std::string_view got[4];
    ASSERT_EQ(parse_memory_layer(l, got), ok);
    if (!ok) continue;
    ++matched;
    for (int k = 0; k < 4; ++k) ASSERT_EQ(got[k], std::string_view(want[k].data(), want[k].size()));
  }
  EXPECT_GT(matched, 5000u);
}

// The tactic_line pattern read by position must answer as RE2 does, on the shapes TensorRT
// writes and on their near misses.
TEST(LogDriver, TacticLinesReadByPositionAgreeWithThePattern) {
  auto grammar = Grammar::load();
  const RE2& re = grammar->re("tactic_line");
  std::vector<std::string> lines = {
      "Tactic Name: sm80_xmma_gemm Tactic: 0x2a3615ad33d7e2ec Time: 0.0410423",
      "Tactic: 0x0000000000000000 Time: 0.0921", "Tactic: -5 Time: 1", "Tactic: 12", "Tactic: 0x",
      "Tactic: 0xg1", "Tactic: 0X1f Time", "Tactic: -x", "Tactic:  0x1", "Tactic: ", "Tactic",
      "Tactic Name:  Tactic: 0x1", "Tactic Name: a b Tactic: 0x1", "Tactic Name: a\tTactic: 0x1",
      "Tactic Name: a  Tactic: 0x1", "Tactic Name: a Tactic: 0x1\r", "Tactic Name: Tactic: 0x1",
      "Tactic Name: a Tactic:0x1", "Tactics: 0x1", "Tactic: 0x1ffffffffffffffffff tail",
      "Tactic Name: \xce\xb1 Tactic: 7", "Tactic: --1", "Tactic: 0x1f\x00 x", "xTactic: 0x1"};
  // Every cut of the first lines, too: logs end mid-line.
  for (const std::string& l : std::vector<std::string>(lines.begin(), lines.begin() + 3))
    for (size_t n = 0; n < l.size(); ++n) lines.push_back(l.substr(0, n));
  // Lines with 16-digit ids and tails, for the screen's reader below.
  for (const char* tail : {"", " Time: 0.1", "f", "\tx", "\r", "\x1b[0m"})
    for (const char* head : {"Tactic Name: k Tactic: ", "Tactic: ", "Tactic Name: a\x01b Tactic: "})
      lines.push_back(std::string(head) + "0x00000000deadbeef" + tail);
  size_t read_straight = 0;
  for (const std::string& l : lines) {
    SCOPED_TRACE(l);
    re2::StringPiece want;
    const bool matched = RE2::PartialMatch(l, re, &want);
    std::string_view got;
    EXPECT_EQ(parse_tactic_line(l, got), matched);
    if (matched) EXPECT_EQ(got, std::string_view(want.data(), want.size()));
    // The screen's reader takes only lines whose id is 16 hex digits, and reads that id; the
    // line followed by a line end and more bytes reads the same. Its form without AVX2 (the
    // one above takes AVX2 where the CPU has it) answers the same.
    for (const std::string& bytes : {l, l + "\nTactic: 0x0000000000000001"}) {
      uint64_t value = 0, plain_value = 0;
      const char* end = read_usual_tactic_line(bytes.data(), bytes.data() + bytes.size(), value);
      const char* plain = tactic_line::read(bytes.data(), bytes.data() + bytes.size(), plain_value);
      EXPECT_EQ(plain, end);
      if (!end) continue;
      EXPECT_EQ(plain_value, value);
      ASSERT_TRUE(matched);
      const std::string_view id(want.data(), want.size());
      ASSERT_EQ(id.size(), 18u);
      EXPECT_EQ(value, std::stoull(std::string(id.substr(2)), nullptr, 16));
      EXPECT_EQ(size_t(end - bytes.data()), size_t(id.data() + id.size() - l.data()));
      ++read_straight;
    }
  }
  EXPECT_GE(read_straight, 20u);
}

TEST(LogDriver, BlocksAndThreadsAgreeOnTheSeeds) {
  TRTLENS_REQUIRE_SHARED();
  for (const char* seed : kSeeds) expect_block_modes_agree(test::shared_dir() + "/seeds/" + seed);
}

// Line ends of every kind across block edges, a line longer than the line limit inside a block,
// and a stretch without '\n' longer than the limit (block mode hands over to line by line).
TEST(LogDriver, BlockEdgesLineEndsAndTheFallback) {
  const std::string layer =
      "Layer(Reformat): r%d, Tactic: 0x0000000000000000, x[Float(1,3)] -> y[Half(1,3)]";
  std::string text = "[02/08/2023-15:25:37] [V] [TRT] Engine Layer Information:\r\n";
  char buf[128];
  for (int i = 0; i < 40; ++i) {
    std::snprintf(buf, sizeof buf, layer.c_str(), i);
    static const char* ends[] = {"\n", "\r\n", "\r", "\r\r\n"};
    text += buf;
    text += ends[i % 4];
  }
  text += std::string(300, 'x') + "\n";  // over the 256-byte limit below
  text += "[02/08/2023-15:25:38] [I] TensorRT version: 8.6.1\r";
  text += std::string(5000, 'y') + "\r";  // no '\n' for longer than the limit: fallback
  text += "[02/08/2023-15:25:39] [V] [TRT] Engine Layer Information:\n";
  std::snprintf(buf, sizeof buf, layer.c_str(), 99);
  text += buf;
  fs::path p = fs::temp_directory_path() / "trtlens-driver-edges.log";
  std::ofstream(p, std::ios::binary) << text;

  ReadLimits limits;
  limits.max_line_bytes = 256;
  const std::string want = expect_block_modes_agree(p.string(), limits, {1, 13, 100, 4096});
  EXPECT_NE(want.find("\"r39\""), std::string::npos);
  EXPECT_NE(want.find("\"r99\""), std::string::npos);  // read after the fallback
  EXPECT_NE(want.find("line longer than the line limit"), std::string::npos);
  fs::remove(p);
}

// The optimizer's layer count sizes the first listing, but the line is untrusted: a count no
// machine could hold must neither stop the reading nor change what is read.
TEST(LogDriver, AnAbsurdLayerCountBeforeTheListingIsOnlyAHint) {
  const std::string listing =
      "[02/08/2023-15:25:37] [V] [TRT] Engine Layer Information:\n"
      "Layer(Reformat): r0, Tactic: 0x0000000000000000, x[Float(1,3)] -> y[Half(1,3)]\n"
      "Layer(Reformat): r1, Tactic: 0x0000000000000000, y[Half(1,3)] -> z[Float(1,3)]\n";
  fs::path p = fs::temp_directory_path() / "trtlens-driver-layer-count.log";
  std::ofstream(p, std::ios::binary)
      << "[08/20/2023-12:00:07] [V] [TRT] After reformat layers: 999999999999999 layers\n"
      << listing;
  const std::string json = json_with(p.string(), ReadLimits{});
  EXPECT_NE(json.find("\"r0\""), std::string::npos);
  EXPECT_NE(json.find("\"r1\""), std::string::npos);
  fs::remove(p);
}

// The screen's literal scan (Hyperscan, all literals at once) finds the same trigger lines as
// the search per literal, block by block, on real logs: the seeds' logs and the fixtures with
// CR, CRLF, ANSI escapes and long lines. Each log is screened in 64 KiB blocks of whole lines,
// with the build's database of the literals and with one compiled here.
void expect_literal_scan_agrees(const std::string& path, size_t max_line = 1 << 20) {
  SCOPED_TRACE(path);
  auto grammar = Grammar::load();
  Capture capture;
  Assembler out(capture);
  LogContext ctx{*grammar, out, path};
  auto sections = make_log_sections(ctx);
  LogScreen embedded(*grammar, sections), compiled(*grammar, sections),
      per_line(*grammar, sections);
  embedded.enable_literal_scan();
  compiled.enable_literal_scan(false);
  if (!embedded.literal_scan()) GTEST_SKIP() << "built without Hyperscan: one path only";
  EXPECT_TRUE(embedded.literal_scan_embedded());
  EXPECT_FALSE(compiled.literal_scan_embedded());
  const std::string text = test::read_file(path);
  size_t hits = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = std::min(text.size(), pos + (size_t{1} << 16));
    while (end < text.size() && text[end - 1] != '\n') ++end;
    // With body lines matched against the triggers and without, as the driver may ask.
    for (const bool check : {true, false})
      for (LogScreen* with : {&embedded, &compiled}) {
        LogScreen& scan = *with;
        SCOPED_TRACE(check ? "body lines checked" : "body lines by the shortcut");
        SCOPED_TRACE(with == &embedded ? "the build's literal database" : "a compiled one");
        ScreenedBlock a, b;
        a.bytes = b.bytes = std::string_view(text).substr(pos, end - pos);
        scan.check_body_lines(check);
        per_line.check_body_lines(check);
        scan.screen(a, max_line);
        per_line.screen(b, max_line);
        EXPECT_EQ(a.lines, b.lines);
        EXPECT_EQ(a.recognized, b.recognized);
        EXPECT_EQ(a.has_cr, b.has_cr);
        EXPECT_EQ(a.has_esc, b.has_esc);
        EXPECT_EQ(a.truncated, b.truncated);
        ASSERT_EQ(a.hits.size(), b.hits.size());
        for (size_t i = 0; i < a.hits.size(); ++i) {
          EXPECT_EQ(a.hits[i].offset, b.hits[i].offset);
          EXPECT_EQ(a.hits[i].line, b.hits[i].line);
          EXPECT_EQ(a.hits[i].trigger, b.hits[i].trigger);
          EXPECT_EQ(a.hits[i].captures, b.hits[i].captures);
          for (uint8_t k = 0; k < a.hits[i].captures; ++k) {
            EXPECT_EQ(a.hits[i].captured_at[k], b.hits[i].captured_at[k]);
            EXPECT_EQ(a.hits[i].captured_size[k], b.hits[i].captured_size[k]);
          }
        }
        ASSERT_EQ(a.bodies.size(), b.bodies.size());
        for (size_t i = 0; i < a.bodies.size(); ++i) {
          EXPECT_EQ(a.bodies[i].offset, b.bodies[i].offset);
          EXPECT_EQ(a.bodies[i].count, b.bodies[i].count);
          EXPECT_EQ(a.bodies[i].value_count, b.bodies[i].value_count);
          EXPECT_EQ(a.bodies[i].next, b.bodies[i].next);
          EXPECT_EQ(a.bodies[i].unprefixed, b.bodies[i].unprefixed);
          EXPECT_EQ(a.bodies[i].checked, b.bodies[i].checked);
          EXPECT_EQ(a.bodies[i].closes, b.bodies[i].closes);
        }
        EXPECT_EQ(a.values, b.values);
        if (check) hits += a.hits.size();
      }
    pos = end;
  }
  EXPECT_GT(hits, 0u);
}

// The built-in grammar's literals are found with the database the build serialized; a grammar
// whose triggers need a literal the build did not see gets one compiled, which finds it.
TEST(LogScreen, TheBuildsLiteralDatabaseServesOnlyTheBuiltInLiterals) {
  auto builtin = Grammar::load();
  auto files = embedded_grammar_files();
  for (auto& [name, text] : files)
    if (name == "errors.re2") {
      const std::string was = "# contains: Error Code \n";
      ASSERT_NE(text.find(was), std::string::npos);
      text.replace(text.find(was), was.size(), "# contains: Error Code  || Error code \n");
    }
  auto taught = Grammar::from_files(files);
  for (const auto* g : {builtin.get(), taught.get()}) {
    Capture capture;
    Assembler out(capture);
    LogContext ctx{*g, out, "test.log"};
    auto sections = make_log_sections(ctx);
    LogScreen screen(*g, sections);
    screen.enable_literal_scan();
    if (!screen.literal_scan()) GTEST_SKIP() << "built without Hyperscan";
    EXPECT_EQ(screen.literal_scan_embedded(), g == builtin.get());
  }
}

TEST(LogDriver, LiteralScanAgreesWithTheSearchPerLiteral) {
  for (const char* f :
       {"seed000_int8.log", "core/prefixes.log", "core/crlf.log", "core/cr.log",
        "core/ansi_utf8.log", "core/hazards_8x.log", "core/two_builds.log", "core/bad_line.log",
        "memory/several_builds.log", "capture/runtime.log", "provenance/small_build.log",
        "core/tactics.log", "core/tactic_shortcut.log", "core/timing_closing_lines.log"})
    expect_literal_scan_agrees(fixture(f));
  expect_literal_scan_agrees(fixture("seed000_int8.log"), 72);  // lines cut at the limit
}

// A banner's fields, read by position on the screen's thread, travel with its hit so that the
// dispatching thread need not read the line again; a line with an ANSI escape keeps none (its
// message is cut from a copy). The expected fields are the lines' own text, by hand.
TEST(LogScreen, BannerFieldsTravelWithTheirHit) {
  Screen s;
  const std::string text =
      "[03/11/2024-10:00:01] [V] [TRT] =============== Computing costs for Conv_0 + Relu_1\n"
      "[03/11/2024-10:00:01] [V] [TRT] --------------- Timing Runner: Conv_0 + Relu_1 "
      "(CaskConvolution[0x80000009])\n"
      "[03/11/2024-10:00:01] [V] [TRT] Tactic Name: k1 Tactic: 0x0000000000000001 Time: 0.01\n"
      "[03/11/2024-10:00:01] [V] [TRT] *************** Autotuning format combination: "
      "Float(1,1,1,1) -> Half(1,1,1,1) ***************\n"
      "\x1b[0m[03/11/2024-10:00:02] [V] [TRT] --------------- Timing Runner: Conv_0 "
      "(CudnnConvolution[0x80000000])\n";
  ScreenedBlock b;
  b.bytes = text;
  s.screen.screen(b, 1 << 20);
  ASSERT_EQ(b.hits.size(), 4u);
  auto field = [&](const ScreenedBlock::Hit& h, int k) {
    return text.substr(h.offset + h.message + h.captured_at[k], h.captured_size[k]);
  };
  EXPECT_EQ(b.hits[0].captures, 1);
  EXPECT_EQ(field(b.hits[0], 0), "Conv_0 + Relu_1");
  EXPECT_EQ(b.hits[1].captures, 2);
  EXPECT_EQ(field(b.hits[1], 0), "Conv_0 + Relu_1");
  EXPECT_EQ(field(b.hits[1], 1), "CaskConvolution");
  EXPECT_EQ(b.hits[2].captures, 1);
  EXPECT_EQ(field(b.hits[2], 0), "Float(1,1,1,1) -> Half(1,1,1,1)");
  EXPECT_EQ(b.hits[3].captures, 0);
}

// With body lines left to the driver, a runner's tactic lines and its closing line form one run
// that ends there, unmatched; the format combination's closing line after it, and the tactic
// line after that, find the block ended and are matched on the worker (no trigger: no hit), so
// that the driver need not match them. Runs by hand from the four lines.
TEST(LogScreen, ARunEndsAtItsClosingLine) {
  Screen s;
  const std::string text =
      "[03/11/2024-10:00:01] [V] [TRT] Tactic Name: k1 Tactic: 0x0000000000000001 Time: 0.01\n"
      "[03/11/2024-10:00:01] [V] [TRT] Conv_0 (CaskConvolution[0x80000009]) profiling completed "
      "in 0.05 seconds. Fastest Tactic: 0x0000000000000001 Time: 0.01\n"
      "[03/11/2024-10:00:01] [V] [TRT] >>>>>>>>>>>>>>> Chose Runner Type: CaskConvolution "
      "Tactic: 0x0000000000000001\n"
      "[03/11/2024-10:00:01] [V] [TRT] Tactic Name: k2 Tactic: 0x0000000000000002 Time: 0.02\n";
  ScreenedBlock b;
  b.bytes = text;
  s.screen.check_body_lines(false);
  s.screen.screen(b, 1 << 20);
  EXPECT_TRUE(b.hits.empty());
  ASSERT_EQ(b.bodies.size(), 3u);
  EXPECT_EQ(b.bodies[0].count, 2u);
  EXPECT_TRUE(b.bodies[0].closes);
  EXPECT_FALSE(b.bodies[0].checked);
  EXPECT_EQ(b.bodies[1].count, 1u);
  EXPECT_TRUE(b.bodies[1].closes);
  EXPECT_TRUE(b.bodies[1].checked);
  EXPECT_EQ(b.bodies[2].count, 1u);
  EXPECT_FALSE(b.bodies[2].closes);
  EXPECT_TRUE(b.bodies[2].checked);
  EXPECT_EQ(b.values, (std::vector<uint64_t>{1, 2}));
}

// The same fixture on the screen's own, with body lines left to the driver (as in a long log),
// so that runs of usual tactic lines go through its run loop. By hand: lines 5-14 are one run
// of ten body lines with nine values (line 12, a skipped tactic, has none); line 15 (an id too
// long for a number) is no body line; lines 16-18 are the next run, line 17 (colour) matched on
// the way; line 19 is no tactic line, and line 20 starts a run of its own.
TEST(LogScreen, TacticRunsStopWhereTheirLinesDiffer) {
  Screen s;
  const std::string text = test::read_file(fixture("core/tactic_runs.log"));
  ScreenedBlock b;
  b.bytes = text;
  s.screen.check_body_lines(false);
  s.screen.screen(b, 1 << 20);
  EXPECT_EQ(b.lines, 20u);
  EXPECT_EQ(b.recognized, 20u);  // line 1 a run banner, the others with a log prefix
  ASSERT_EQ(b.bodies.size(), 3u);
  const uint32_t runs[3][3] = {{4, 10, 9}, {15, 3, 3}, {19, 1, 1}};  // line index, lines, values
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(b.bodies[i].line, runs[i][0]) << i;
    EXPECT_EQ(b.bodies[i].count, runs[i][1]) << i;
    EXPECT_EQ(b.bodies[i].value_count, runs[i][2]) << i;
    EXPECT_FALSE(b.bodies[i].closes) << i;
  }
  EXPECT_EQ(b.bodies[2].next, text.size());
  EXPECT_EQ(b.values, (std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 7, 9, 0xa, 0xc, 0xd, 0xe, 0x10}));
}

// Tactic lines of the shape the screen's shortcut reads without the trigger search, with trigger
// literals inside the kernel name, as the whole name, across the name's ends, right after the id
// and in the rest of the line, and a skipped tactic's line (also read without the search) with
// an error code. Inside their timing block they are its tactics: the fixture's 14 (lines 6-19)
// and nothing else. Without the block's three opening lines nothing takes them, and the driver
// must match them itself: the "Error Code" lines are error records (codes 2, 3, 4 and 5 at lines
// 8, 10, 15 and 17 then) and "DUE TO TIME LIMIT" stops the run (line 9); with errors.re2
// changed so that a literal inside a name matches too (stop_signal: Killed or "x16 Tactic"
// anywhere), the first such line stops it (line 4). The same 15 lines again after their block
// has ended (60 plain tactic lines in it first, so that blocks of 4 KiB read there leave the
// tactic lines to the shortcut, and the driver matches the later ones itself): lines 6-20 of
// the fixture become lines 82-96, so the records are at 87, 89, 94 and 96, the stop at 88, and
// 60 + 14 tactics were tried in the block. Every way of reading agrees each time.
TEST(LogDriver, TacticLinesHoldingTriggerTextAreReadAsTriggersOutsideTheirBlock) {
  const std::string inside = fixture("core/tactic_literals.log");
  const fs::path outside = fs::temp_directory_path() / "trtlens-tactic-literals-outside.log";
  {
    std::istringstream in(test::read_file(inside));
    std::ofstream out(outside, std::ios::binary);
    size_t n = 0;
    for (std::string l; std::getline(in, l);)
      if (++n < 3 || n > 5) out << l << "\n";
  }
  const fs::path after = fs::temp_directory_path() / "trtlens-tactic-literals-after.log";
  {
    std::vector<std::string> lines;
    std::istringstream in(test::read_file(inside));
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    ASSERT_EQ(lines.size(), 21u);
    std::ofstream out(after, std::ios::binary);
    for (size_t i = 0; i < 5; ++i) out << lines[i] << "\n";
    for (int i = 0; i < 60; ++i)
      out << "[03/11/2024-10:00:01] [V] [TRT] Tactic Name: plain Tactic: 0x00000000000001"
          << "0123456789abcdef"[i / 16] << "0123456789abcdef"[i % 16] << " Time: 0.1\n";
    for (size_t i = 5; i < 20; ++i) out << lines[i] << "\n";
    out << "[03/11/2024-10:00:02] [I] [TRT] The block is over.\n";
    for (size_t i = 5; i < 20; ++i) out << lines[i] << "\n";
    out << lines[20] << "\n";
  }
  auto read = [](const std::string& path, const std::string& grammar_dir) {
    expect_block_modes_agree(path, {}, {1, 64, 4096, 1 << 20}, grammar_dir);
    auto grammar = Grammar::load(grammar_dir);
    Capture c = load_capture({path}, *grammar, ReadLimits{});
    return nlohmann::json(capture_json(c, {})["runs"][0]);
  };
  const nlohmann::json in_block = read(inside, "");
  EXPECT_EQ(in_block["tactic_selection"]["tactics"].size(), 14u);
  EXPECT_TRUE(in_block["records"].empty());
  EXPECT_TRUE(in_block["stop"].is_null());

  const nlohmann::json alone = read(outside.string(), "");
  EXPECT_TRUE(alone["tactic_selection"].is_null());
  std::vector<std::pair<int, int>> records;
  for (const auto& r : alone["records"]) records.emplace_back(r["line"], r["code"]);
  EXPECT_EQ(records, (std::vector<std::pair<int, int>>{{8, 2}, {10, 3}, {15, 4}, {17, 5}}));
  EXPECT_EQ(alone["stop"]["kind"], "timeout");
  EXPECT_EQ(alone["stop"]["line"], 9);

  const nlohmann::json later = read(after.string(), "");
  EXPECT_EQ(later["tactic_selection"]["tactics_tried"], 74);
  records.clear();
  for (const auto& r : later["records"]) records.emplace_back(r["line"], r["code"]);
  EXPECT_EQ(records, (std::vector<std::pair<int, int>>{{87, 2}, {89, 3}, {94, 4}, {96, 5}}));
  EXPECT_EQ(later["stop"]["kind"], "timeout");
  EXPECT_EQ(later["stop"]["line"], 88);

  const fs::path dir = fs::temp_directory_path() / "trtlens-literal-places-grammar";
  fs::create_directories(dir);
  for (const auto& f : fs::directory_iterator(test::source_dir() + "/grammar"))
    fs::copy_file(f.path(), dir / f.path().filename(), fs::copy_options::overwrite_existing);
  std::string errors = test::read_file(test::source_dir() + "/grammar/errors.re2");
  auto replace_line = [&](const std::string& start, const std::string& with) {
    const size_t at = errors.find("\n" + start);
    ASSERT_NE(at, std::string::npos) << start;
    const size_t end = errors.find('\n', at + 1);
    errors.replace(at + 1, end - at - 1, with);
  };
  replace_line("# contains: Aborted ||", "# contains: Killed || x16 Tactic");
  replace_line("stop_signal =", "stop_signal = ^.*?(Killed|x16 Tactic).*$");
  std::ofstream(dir / "errors.re2") << errors;
  const nlohmann::json changed = read(outside.string(), dir.string());
  EXPECT_EQ(changed["stop"]["kind"], "killed");
  EXPECT_EQ(changed["stop"]["line"], 4);
  EXPECT_EQ(read(after.string(), dir.string())["stop"]["line"], 83);
  EXPECT_EQ(read(inside, dir.string())["tactic_selection"]["tactics"].size(), 14u);
  fs::remove_all(dir);
  fs::remove(outside);
  fs::remove(after);
}

// A "# starts:" list files a trigger under those starts only, so a line the pattern matches but
// that starts otherwise would be lost. Every line of the fixtures and seeds a pattern with such a
// list matches (anywhere a screen could see it: after the prefixes) starts with one of them.
TEST(LogDriver, StartsListsCoverEveryLineTheirPatternsMatch) {
  const Screen setup;
  const Grammar* grammar = setup.grammar.get();
  const LogScreen& screen = setup.screen;
  std::vector<std::string> files;
  for (const char* f : {"seed000_int8.log", "core/prefixes.log", "core/two_builds.log",
                        "capture/runtime.log", "core/tactics.log", "failures/oom_tactics.log",
                        "failures/cut_mid_build.log", "memory/several_builds.log"})
    files.push_back(fixture(f));
  if (fs::exists(test::shared_dir() + "/seeds"))
    for (const char* seed : kSeeds) files.push_back(test::shared_dir() + "/seeds/" + seed);
  size_t checked = 0;
  std::set<std::string> seen;
  for (const auto& p : grammar->patterns()) {
    if (p->starts.empty()) continue;
    for (const std::string& f : files) {
      std::istringstream in(test::read_file(f));
      std::string raw;
      while (std::getline(in, raw)) {
        const LogLine l = screen.line(raw, 0);
        if (!RE2::PartialMatch(l.message, p->re())) continue;
        ++checked;
        seen.insert(p->name);
        bool starts = false;
        for (const auto& lit : p->starts) starts = starts || l.message.rfind(lit, 0) == 0;
        EXPECT_TRUE(starts) << p->name << ": " << raw;
      }
    }
  }
  EXPECT_GT(checked, 10u);
  EXPECT_GE(seen.size(), 5u);  // of the 9 patterns with a list
}

TEST(LogDriver, LiteralScanAgreesOnTheSeeds) {
  TRTLENS_REQUIRE_SHARED();
  for (const char* seed : kSeeds) expect_literal_scan_agrees(test::shared_dir() + "/seeds/" + seed);
}

}  // namespace
}  // namespace trtlens
