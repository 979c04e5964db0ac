// The log driver's fast paths (position-checked trtexec prefix, first-byte and literal
// prefilters) must give exactly what running every grammar pattern gives.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

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

TEST(LogDriver, FastPrefixPathAgreesOnTheSeeds) {
  TRTLENS_REQUIRE_SHARED();
  for (const char* seed : {"000_9fb31eec5d86dcda.txt", "001_73038f12cc2a768c.txt",
                           "002_4e1b64db6c7b7a92.txt"})
    expect_same_json(test::shared_dir() + "/seeds/" + seed);
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

}  // namespace
}  // namespace trtlens
