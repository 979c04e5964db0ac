// The real binary on the core fixtures: the JSON/text pair, bad input, stdin, the grammar files
// and their --grammar-dir override.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "ingest/grammar.h"
#include "test_support.h"

namespace trtlens::test {
namespace {

std::string core(const std::string& name) { return fixture("core/" + name); }

nlohmann::json json_of(const std::string& args) {
  RunResult r = run_trtlens("json " + args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(CoreCli, DetailedJsonAndDumpLayerInfoTextGiveTheSameLayers) {
  // The same four-layer engine written by hand twice: as --exportLayerInfo JSON and as the
  // --dumpLayerInfo one-line text (Reformat, a convolution with type-specific keys and a
  // \x1E-separated Metadata, a Myelin gemm and kgen without TacticValue).
  auto a = json_of(shell_quote(core("engine_detailed.json")));
  auto b = json_of(shell_quote(core("engine_dump.log")));
  ASSERT_EQ(a["builds"].size(), 1u);
  ASSERT_EQ(b["builds"].size(), 1u);
  const auto& la = a["builds"][0]["layers"];
  const auto& lb = b["builds"][0]["layers"];
  ASSERT_EQ(la.size(), 4u);
  EXPECT_EQ(la, lb);
  EXPECT_EQ(a["builds"][0]["bindings"], b["builds"][0]["bindings"]);
  // And what they agree on is what the files say.
  EXPECT_EQ(la[1]["attributes"]["Weights"], nlohmann::json({{"Type", "Half"}, {"Count", 9408}}));
  EXPECT_EQ(la[2]["tactic"], nullptr);
  EXPECT_EQ(la[3]["stream_id"], 1);
  EXPECT_EQ(a["inputs"][0]["kind"], "layer-json");
  EXPECT_EQ(b["inputs"][0]["kind"], "build-log");
}

TEST(CoreCli, JsonDocumentKeys) {
  auto doc = json_of(shell_quote(core("bad_line.log")));
  EXPECT_EQ(doc["schema"], "trtlens/1");
  const auto& in = doc["inputs"][0];
  EXPECT_EQ(in["path"], core("bad_line.log"));
  EXPECT_EQ(in["kind"], "build-log");
  EXPECT_EQ(in["lines"], 7);  // wc -l
  EXPECT_EQ(in["unrecognized"], 3);
  const auto& b = doc["builds"][0];
  for (const char* k : {"id", "final", "source", "trt_version", "layers"}) EXPECT_TRUE(b.contains(k)) << k;
  EXPECT_EQ(b["source"]["line"], 1);
  const auto& l = b["layers"][0];
  for (const char* k : {"name", "type", "tactic", "tactic_name", "inputs", "outputs"})
    EXPECT_TRUE(l.contains(k)) << k;
  EXPECT_EQ(l["inputs"][0], nlohmann::json({{"name", "input"}, {"dtype", "FP32"}, {"dims", {1, 3, 224, 224}}}));
  ASSERT_EQ(doc["diagnostics"].size(), 3u);
  EXPECT_EQ(doc["diagnostics"][0]["line"], 3);
  EXPECT_EQ(doc["diagnostics"][0]["path"], core("bad_line.log"));
}

TEST(CoreCli, BuildSelection) {
  auto all = json_of(shell_quote(core("prefixes.log")));
  EXPECT_EQ(all["builds"].size(), 7u);
  auto fin = json_of("--build final " + shell_quote(core("prefixes.log")));
  ASSERT_EQ(fin["builds"].size(), 1u);
  EXPECT_EQ(fin["builds"][0]["id"], 6);
  auto two = json_of("--build 2 " + shell_quote(core("prefixes.log")));
  EXPECT_EQ(two["builds"][0]["layers"][0]["name"], "python_old_conv");
  RunResult r = run_trtlens("layers --build 9 " + shell_quote(core("prefixes.log")));
  EXPECT_EQ(r.exit_code, 2);
  // layers/summary default to the final build.
  r = run_trtlens("layers --format csv " + shell_quote(core("prefixes.log")));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("app_logger_softmax"), std::string::npos);
  EXPECT_EQ(r.out.find("trtexec_conv"), std::string::npos);
}

TEST(CoreCli, StdinGzip) {
  RunResult r = run_trtlens("summary -", core("compressed_log"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(gzip)"), std::string::npos);
  // The fixture lists a NoOp, a Reformat and four other layers.
  EXPECT_NE(r.out.find("6 layers: 5 run, 1 elided; 1 reformat"), std::string::npos);
}

void expect_input_error(const std::string& path, const std::string& reason) {
  RunResult r = run_trtlens("summary " + shell_quote(path));
  EXPECT_EQ(r.exit_code, 2) << path;
  EXPECT_EQ(r.err, "trtlens: " + path + ": " + reason + "\n");
  EXPECT_TRUE(r.out.empty());
}

TEST(CoreCli, BadInputsExitTwoWithPathAndReason) {
  expect_input_error(core("empty.log"), "empty file");
  expect_input_error(core("binary.bin"),
                     "binary file (not a TensorRT log, JSON export or ONNX model)");
  expect_input_error(core("not_tensorrt.txt"), "no TensorRT output recognised");
  expect_input_error(core("does-not-exist.log"), "no such file");
  // A directory is read as a capture bundle; one holding no TensorRT output is an input error.
  char dir[] = "/tmp/trtlens-not-a-bundle-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string notes = std::string(dir) + "/notes.txt";
  FILE* f = std::fopen(notes.c_str(), "w");
  std::fputs("holiday photos, no logs here\n", f);
  std::fclose(f);
  expect_input_error(dir, "bundle holds no input trtlens can read");
  std::remove(notes.c_str());
  rmdir(dir);
}

TEST(CoreCli, UnsplittableLineIsADiagnosticNotAFailure) {
  RunResult r = run_trtlens("summary " + shell_quote(core("bad_line.log")));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("3 unrecognized"), std::string::npos);
  EXPECT_NE(r.out.find(core("bad_line.log") + ":4: engine layer line: tensor without"),
            std::string::npos);
}

// Strips log prefixes from an example line the way the driver does (prefix_* patterns,
// repeatedly, at the start).
std::string strip_prefixes(const Grammar& g, std::string line) {
  for (int round = 0; round < 8; ++round) {
    bool any = false;
    for (const auto& p : g.patterns()) {
      if (p->name.rfind("prefix_", 0) != 0) continue;
      re2::StringPiece s(line);
      if (RE2::Consume(&s, p->re()) && s.size() < line.size()) {
        line = std::string(s.data(), s.size());
        any = true;
      }
    }
    if (!any) break;
  }
  return line;
}

TEST(CoreGrammar, EveryPatternHasAnExampleItMatches) {
  auto g = Grammar::load();
  // Tensor suffixes are matched where "[" or " (" starts inside a line: fragment patterns.
  const std::set<std::string> fragments{"tensor_suffix_8x", "tensor_suffix_10x"};
  std::set<std::string> files;
  for (const auto& p : g->patterns()) {
    SCOPED_TRACE(p->file + ": " + p->name);
    files.insert(p->file);
    EXPECT_FALSE(p->example.empty());
    EXPECT_FALSE(p->versions.empty());
    EXPECT_EQ(p->regex.substr(0, 1), "^");  // anchored, so the driver can prefilter
    if (p->name.rfind("prefix_", 0) == 0) {
      re2::StringPiece s(p->example);
      EXPECT_TRUE(RE2::Consume(&s, p->re())) << p->example;
      continue;
    }
    const std::string text = strip_prefixes(*g, p->example);
    bool matched = RE2::PartialMatch(text, p->re());
    if (fragments.count(p->name))
      for (size_t i = 0; i < text.size() && !matched; ++i)
        matched = RE2::PartialMatch(re2::StringPiece(text).substr(i), p->re());
    EXPECT_TRUE(matched) << "example '" << p->example << "' (as '" << text << "')";
    // The "# contains:" prefilter must let the pattern's own example through.
    if (!p->contains.empty()) {
      bool holds = false;
      for (const auto& lit : p->contains) holds = holds || text.find(lit) != std::string::npos;
      EXPECT_TRUE(holds) << "example '" << text << "' holds none of its # contains: literals";
    }
    // And "# starts:" must be where its example starts.
    if (!p->starts.empty()) {
      bool starts = false;
      for (const auto& lit : p->starts) starts = starts || text.rfind(lit, 0) == 0;
      EXPECT_TRUE(starts) << "example '" << text << "' starts with none of its # starts: literals";
    }
  }
  // The core's grammar files are all embedded.
  for (const char* f : {"prefix.re2", "engine_layer.re2", "layer_info.re2", "run.re2"})
    EXPECT_TRUE(files.count(f)) << f;
}

// What the screen files a pattern under, by RE2's own analysis of the compiled pattern: the
// text every match of an anchored pattern starts with, and the range of its first byte.
struct Start {
  std::string prefix;
  unsigned first_min = 0, first_max = 255;
  bool operator==(const Start&) const = default;
};
Start re2_start(const RE2& re) {
  Start s;
  std::string min, max;
  if (re.pattern().rfind('^', 0) != 0 || !re.PossibleMatchRange(&min, &max, 16)) return s;
  while (s.prefix.size() < min.size() && s.prefix.size() < max.size() &&
         min[s.prefix.size()] == max[s.prefix.size()])
    s.prefix += min[s.prefix.size()];
  if (!min.empty() && !max.empty()) {
    s.first_min = static_cast<unsigned char>(min[0]);
    s.first_max = static_cast<unsigned char>(max[0]);
  }
  return s;
}
Start start_of(const GrammarPattern& p) { return {p.literal_prefix, p.first_min, p.first_max}; }

TEST(CoreGrammar, BuiltInStartAnalysisIsRe2sOwn) {
  // The built-in patterns' analysis comes from the build (none compiles at start-up); each must
  // be what RE2 says of the pattern compiled here.
  auto g = Grammar::load();
  size_t prefixed = 0;
  for (const auto& p : g->patterns()) {
    SCOPED_TRACE(p->name);
    EXPECT_TRUE(p->builtin);
    EXPECT_EQ(start_of(*p), re2_start(p->re()));
    prefixed += !p->literal_prefix.empty();
  }
  EXPECT_GT(prefixed, g->patterns().size() / 2);  // the analysis is not all empty
}

TEST(CoreGrammar, OverriddenPatternIsAnalysedAfresh) {
  // run.re2 replaced by a file that gives the timing-runner banner another start: its analysis
  // must be the new pattern's, not the built-in table's entry of the same name.
  auto files = embedded_grammar_files();
  for (auto& [name, text] : files)
    if (name == "run.re2")
      text =
          "# example: XYZ Timing Runner: conv (CaskConvolution)\n"
          "tactic_timing_runner = ^XYZ Timing Runner: (.*) \\((\\w+)\\)\\s*$\n";
  auto g = Grammar::from_files(files);
  const GrammarPattern& p = g->pattern("tactic_timing_runner");
  EXPECT_FALSE(p.builtin);
  EXPECT_EQ(p.literal_prefix.rfind("XYZ Timing Run", 0), 0u) << p.literal_prefix;
  EXPECT_EQ(start_of(p), re2_start(p.re()));
  EXPECT_EQ(p.first_min, 'X');
  EXPECT_EQ(p.first_max, 'X');
  // Another file's pattern keeps the built-in analysis.
  EXPECT_TRUE(g->pattern("engine_layer_line").builtin);
  EXPECT_EQ(start_of(g->pattern("engine_layer_line")),
            re2_start(g->pattern("engine_layer_line").re()));
}

TEST(CoreGrammar, GrammarDirOverridesOneFile) {
  char tmpl[] = "/tmp/trtlens-grammar-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  // A future release that renames the block header: taught through --grammar-dir only.
  std::string text = read_file(source_dir() + "/grammar/engine_layer.re2");
  const std::string from = "engine_layer_block = ^Engine Layer Information:\\s*$";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(),
               "engine_layer_block = ^(?:Engine Layer Information|Engine Layers \\(final\\)):\\s*$");
  std::ofstream(dir + "/engine_layer.re2") << text;
  const std::string log = dir + "/future.log";
  std::ofstream(log) << "[01/02/2031-10:00:00] [V] [TRT] Engine Layers (final):\n"
                        "Layer(CaskConvolution): conv, Tactic: 0x1, a (Half[1,8]) -> b (Half[1,8])\n"
                        "[01/02/2031-10:00:00] [I] [TRT] done\n";

  auto plain = json_of(shell_quote(log));
  EXPECT_EQ(plain["builds"].size(), 0u);
  auto taught = json_of("--grammar-dir " + shell_quote(dir) + " " + shell_quote(log));
  ASSERT_EQ(taught["builds"].size(), 1u);
  EXPECT_EQ(taught["builds"][0]["layers"][0]["name"], "conv");
  EXPECT_EQ(taught["builds"][0]["layers"][0]["tactic"], "0x0000000000000001");

  // A broken override is a usage error naming the file and line.
  std::ofstream(dir + "/engine_layer.re2") << "# example: x\n# versions: 99\nengine_layer_block = ^(\n";
  RunResult r = run_trtlens("summary --grammar-dir " + shell_quote(dir) + " " + shell_quote(log));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("trtlens: grammar: engine_layer.re2:3:"), std::string::npos) << r.err;
  RunResult missing = run_trtlens("summary --grammar-dir /nonexistent-grammar " + shell_quote(log));
  EXPECT_EQ(missing.exit_code, 2);

  std::remove((dir + "/engine_layer.re2").c_str());
  std::remove(log.c_str());
  rmdir(dir.c_str());
}

// The path of a new empty temporary file, or "" when none could be made.
std::string temp_file(const std::string& prefix) {
  std::string path = "/tmp/" + prefix + "-XXXXXX";
  int fd = mkstemp(path.data());
  if (fd < 0) return "";
  ::close(fd);
  return path;
}

// A temporary file written by tools/make_large_log.py with `args`, or "" when it failed.
std::string generated_log(const std::string& args) {
  const std::string log = temp_file("trtlens-biglog");
  if (log.empty()) return "";
  if (std::system(("python3 " + shell_quote(source_dir() + "/tools/make_large_log.py") + " " +
                   args + " -o " + shell_quote(log))
                      .c_str()) != 0) {
    std::remove(log.c_str());
    return "";
  }
  return log;
}

TEST(CoreCli, LargeLogGeneratorMakesReadableLogs) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string log = generated_log("--size-mb 1");
  ASSERT_FALSE(log.empty());
  // Count what the generator wrote by reading the file here.
  std::ifstream f(log);
  std::string line;
  size_t headers = 0, layer_lines = 0, timing = 0, lines = 0;
  while (std::getline(f, line)) {
    ++lines;
    if (line.find("] Engine Layer Information:") != std::string::npos) ++headers;
    if (line.rfind("Layer(", 0) == 0) ++layer_lines;
    if (line.find("] Tactic Name: ") != std::string::npos) ++timing;
  }
  EXPECT_GT(timing * 2, lines);  // tactic timing lines dominate, as in real logs
  auto doc = json_of(shell_quote(log));
  EXPECT_EQ(doc["inputs"][0]["lines"], lines);
  EXPECT_EQ(doc["inputs"][0]["unrecognized"], 0);
  ASSERT_EQ(doc["builds"].size(), headers);
  size_t total = 0;
  for (const auto& b : doc["builds"]) total += b["layers"].size();
  EXPECT_EQ(total, layer_lines);
  std::remove(log.c_str());
}

// `--tactics 1` writes the per-layer lines with one timed tactic a runner (the shape that
// measures what a log costs beside its tactic lines): a skipped tactic never leaves a runner
// without its timing.
TEST(CoreCli, LargeLogGeneratorTimesOneTacticPerRunner) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string log = generated_log("--size-mb 1 --tactics 1");
  ASSERT_FALSE(log.empty());
  std::ifstream f(log);
  std::string line;
  size_t runners = 0, completed = 0, lines = 0;
  size_t in_runner = 0;  // tactic lines since the last Timing Runner
  bool open = false;
  while (std::getline(f, line)) {
    ++lines;
    if (line.find("- Timing Runner: ") != std::string::npos) {
      ++runners;
      open = true;
      in_runner = 0;
    } else if (line.find("] Tactic Name: ") != std::string::npos) {
      ++in_runner;
    } else if (open && line.find(") profiling completed in ") != std::string::npos) {
      ++completed;
      EXPECT_EQ(in_runner, 1u) << "runner " << runners;
      open = false;
    }
  }
  EXPECT_GT(runners, 100u);
  EXPECT_EQ(completed, runners);
  auto doc = json_of(shell_quote(log));
  EXPECT_EQ(doc["inputs"][0]["lines"], lines);
  EXPECT_EQ(doc["inputs"][0]["unrecognized"], 0);
  std::remove(log.c_str());
}

// Minor page faults of a shell command and what it waits for (the children's rusage).
long faults_of(const std::string& cmd) {
  rusage before{}, after{};
  getrusage(RUSAGE_CHILDREN, &before);
  if (std::system(cmd.c_str()) != 0) return -1;
  getrusage(RUSAGE_CHILDREN, &after);
  return after.ru_minflt - before.ru_minflt;
}

// Inputs of 32 KiB and more, directories and piped input get 2 MiB pages, a smaller file 4 KiB
// pages: each set against a run where MIMALLOC_LARGE_OS_PAGES (the user's choice, which trtlens
// keeps) says the opposite.
TEST(CoreCli, LargePagesFollowTheInput) {
#ifndef TRTLENS_BINARY_HAS_MIMALLOC
  GTEST_SKIP() << "trtlens is built without mimalloc (a sanitizer or fuzz build)";
#endif
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string large = generated_log("--size-mb 4 --tactics 1");    // 5.4 MB
  const std::string small = generated_log("--size-mb 0.6 --tactics 1");  // 0.8 MB
  ASSERT_FALSE(large.empty());
  ASSERT_FALSE(small.empty());
  char dir[] = "/tmp/trtlens-pages-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string in_dir = std::string(dir) + "/build.log";
  ASSERT_EQ(std::system(("cp " + shell_quote(small) + " " + shell_quote(in_dir)).c_str()), 0);
  const std::string binary = shell_quote(TRTLENS_BINARY);
  // (command with ENV where the variable goes, whether it should get large pages)
  const std::pair<std::string, bool> cases[] = {
      {"ENV " + binary + " summary " + shell_quote(large), true},
      {"ENV " + binary + " summary " + shell_quote(small), true},
      {"ENV " + binary + " summary " + shell_quote(dir), true},
      {"cat " + shell_quote(small) + " | ENV " + binary + " summary -", true},
      {"ENV " + binary + " summary " + shell_quote(fixture("capture/build.log")), false},  // 2.7 KB
  };
  for (const auto& test_case : cases) {
    // Plain names, not a structured binding: clang 14 cannot capture one in a lambda.
    const std::string& command = test_case.first;
    const bool large_pages = test_case.second;
    auto faults = [&](const std::string& env) {
      std::string cmd = command;
      cmd.replace(cmd.find("ENV"), 3, env);
      return faults_of(cmd + " >/dev/null");
    };
    const long by_default = faults("");
    const long opposite =
        faults(large_pages ? "MIMALLOC_LARGE_OS_PAGES=0" : "MIMALLOC_LARGE_OS_PAGES=1");
    ASSERT_GT(by_default, 0) << command;
    ASSERT_GT(opposite, 0) << command;
    if (large_pages)
      EXPECT_LT(by_default * 3 / 2, opposite) << command;
    else
      EXPECT_GT(by_default, opposite * 3 / 2) << command;
  }
  std::remove(in_dir.c_str());
  rmdir(dir);
  std::remove(large.c_str());
  std::remove(small.c_str());
}

// The libraries trtlens opens when first needed (not linked): the dynamic loader's own list of
// the files it loaded, per command.
std::string loaded_files(const std::string& args) {
  const std::string log = temp_file("trtlens-ld");
  if (log.empty()) return "";
  const std::string cmd = "LD_DEBUG=files " + shell_quote(TRTLENS_BINARY) + " " + args +
                          " >/dev/null 2>" + shell_quote(log);
  std::string out = std::system(cmd.c_str()) == 0 ? read_file(log) : "";
  std::remove(log.c_str());
  return out;
}

TEST(CoreCli, GraphvizAndHyperscanAreOpenedOnlyWhenNeeded) {
  const std::string small = fixture("core/ansi_utf8.log");
  std::string files = loaded_files("summary " + shell_quote(small));
  ASSERT_NE(files.find("file=libstdc++.so"), std::string::npos) << "no loader trace: " << files;
  EXPECT_EQ(files.find("file=libgvc.so"), std::string::npos);
  EXPECT_EQ(files.find("file=libhs.so"), std::string::npos);
  char dir[] = "/tmp/trtlens-svg-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string svg = std::string(dir) + "/g.svg";
  files = loaded_files("dot --format svg -o " + shell_quote(svg) + " " + shell_quote(small));
  EXPECT_NE(files.find("file=libgvc.so"), std::string::npos);
  EXPECT_NE(read_file(svg).find("<svg"), std::string::npos);
  std::remove(svg.c_str());
  ::rmdir(dir);
#ifdef TRTLENS_HAVE_HYPERSCAN
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string large = generated_log("--size-mb 1 --tactics 1");  // over the scan's 1 MiB
  ASSERT_FALSE(large.empty());
  files = loaded_files("summary " + shell_quote(large));
  EXPECT_NE(files.find("file=libhs.so"), std::string::npos);
  EXPECT_EQ(files.find("file=libgvc.so"), std::string::npos);
  std::remove(large.c_str());
#endif
}

// zlib, SQLite, Nettle and utf8proc are opened by the first gzip input, store, digest and
// non-ASCII name; a plain log's summary opens none of them.
TEST(CoreCli, OtherLibrariesAreOpenedOnlyWhenNeeded) {
  const std::vector<std::string> lazy = {"libz.so", "libsqlite3.so", "libnettle.so",
                                         "libutf8proc.so"};
  auto opened = [&](const std::string& files) {
    std::set<std::string> out;
    for (const auto& l : lazy)
      if (files.find("file=" + l) != std::string::npos) out.insert(l);
    return out;
  };
  const std::string small = fixture("core/ansi_utf8.log");
  std::string files = loaded_files("summary " + shell_quote(small));
  ASSERT_NE(files.find("file=libstdc++.so"), std::string::npos) << "no loader trace: " << files;
  EXPECT_EQ(opened(files), std::set<std::string>{});

  // A gzip copy of the log reads as the log does.
  const std::string gz = temp_file("trtlens-gz");
  std::ofstream(gz, std::ios::binary) << gzip_bytes(read_file(small));
  EXPECT_EQ(opened(loaded_files("summary " + shell_quote(gz))), std::set<std::string>{"libz.so"});
  EXPECT_EQ(run_trtlens("layers " + shell_quote(gz)).out,
            run_trtlens("layers " + shell_quote(small)).out);
  std::remove(gz.c_str());

  // A name of CJK characters (two columns each on a terminal) keeps the table's columns in line.
  const std::string cjk = temp_file("trtlens-cjk");
  std::ofstream(cjk)
      << "[06/14/2022-09:41:58] [V] [TRT] Engine Layer Information:\n"
         "Layer(CaskConvolution): \xe5\x8d\xb7\xe7\xa7\xaf_1, Tactic: 0x0000000000000001, "
         "x[Float(1,3,8,8)] -> y[Float(1,4,8,8)]\n";
  EXPECT_EQ(opened(loaded_files("layers " + shell_quote(cjk))),
            std::set<std::string>{"libutf8proc.so"});
  const std::string table = run_trtlens("layers " + shell_quote(cjk)).out;
  // Columns by hand: CJK ideographs (U+4E00-U+9FFF, three UTF-8 bytes) take two, ASCII one.
  auto column_of = [](const std::string& line, const std::string& what) {
    const size_t at = line.find(what);
    if (at == std::string::npos) return size_t(0);
    size_t col = 0;
    for (size_t i = 0; i < at;) {
      const unsigned char c = static_cast<unsigned char>(line[i]);
      if (c >= 0xe4 && c <= 0xe9) {
        col += 2, i += 3;
      } else {
        col += 1, i += 1;
      }
    }
    return col;
  };
  std::istringstream lines(table);
  std::string header, rule, row;
  std::getline(lines, header);
  std::getline(lines, rule);
  std::getline(lines, row);
  ASSERT_NE(row.find("\xe5\x8d\xb7\xe7\xa7\xaf_1"), std::string::npos) << table;
  EXPECT_GT(column_of(header, "type"), 0u) << table;
  EXPECT_EQ(column_of(row, "CaskConvolution"), column_of(header, "type")) << table;
  std::remove(cjk.c_str());

  // The store opens SQLite, and Nettle for the inputs' digest.
  char dir[] = "/tmp/trtlens-db-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string db = std::string(dir) + "/store.db";
  EXPECT_EQ(opened(loaded_files("db add -q " + shell_quote(db) + " " + shell_quote(small))),
            (std::set<std::string>{"libnettle.so", "libsqlite3.so"}));
  EXPECT_EQ(
      run_trtlens("db query " + shell_quote(db) + " 'SELECT count(*) AS n FROM captures'").out,
      "n\n-\n1\n");
  std::remove(db.c_str());
  ::rmdir(dir);
}

}  // namespace
}  // namespace trtlens::test
