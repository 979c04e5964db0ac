// Helpers shared by the tests: where the fixtures and ../shared are, running the binary.
#pragma once

#include <string>
#include <vector>

#include "model/capture.h"

namespace trtlens::test {

std::string source_dir();
std::string fixture(const std::string& name);  // fixtures/<name>
// ../shared relative to the project root; "" when absent (tests then skip).
std::string shared_dir();
std::string read_file(const std::string& path);
// `text` as one gzip member (what `gzip` writes).
std::string gzip_bytes(const std::string& text);

// A tensor with known dims, for captures built by hand.
Tensor tensor(const std::string& name, const std::string& dtype, std::vector<int64_t> dims);

// How many times `needle` occurs in `hay` (overlapping occurrences counted).
size_t count(const std::string& hay, const std::string& needle);

// The JSON document of every build of `c` (what `trtlens json` writes).
std::string whole_json(const Capture& c);

// Loads inputs with the embedded grammar.
Capture load(const std::vector<std::string>& paths);

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
// Runs the trtlens binary with `args` (already shell-quoted where needed).
RunResult run_trtlens(const std::string& args, const std::string& stdin_path = "");
std::string shell_quote(const std::string& s);

}  // namespace trtlens::test

// Skips the test with a clear message when ../shared is not beside the project.
#define TRTLENS_REQUIRE_SHARED()                                                  \
  do {                                                                            \
    if (::trtlens::test::shared_dir().empty())                                    \
      GTEST_SKIP() << "../shared (seeds and corpus) is absent; skipping this test"; \
  } while (0)
