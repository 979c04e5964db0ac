// Runs every console example of README.md against the real binary, so none can go stale.
//
// The convention README.md follows (documented there too, under "Examples in this README"):
// - A block fenced as ```console is an example. Each line starting with "$ " is a command; the
//   lines after it, up to the next command or the end of the block, are what it prints
//   (standard output and standard error together, as a terminal shows them).
// - The commands of one block run in order in one `sh`, in a scratch directory that holds the
//   repository's fixtures/, tools/ and grammar/ and build/trtlens (the binary under test);
//   `trtlens` on PATH is the same binary. Only files in the repository can be used.
// - Output is compared line by line, exactly (trailing blanks ignored). A command line ending
//   in "# excerpt" shows only part of the output: its lines must appear in that order, other
//   lines may come between them, and a line "..." marks an elision.
// - A block right after a line <!-- not run: REASON --> is not run (it needs a GPU machine or
//   a file the repository does not carry); the test names them.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "test_support.h"

namespace trtlens::test {
namespace {

struct Command {
  std::string text;
  bool excerpt = false;
  std::vector<std::string> expected;
};

struct Example {
  size_t line = 0;  // of the opening fence in README.md
  std::string skip_reason;
  std::vector<Command> commands;
};

std::string rtrim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

std::vector<Example> parse_readme(const std::string& text) {
  std::vector<Example> out;
  std::istringstream in(text);
  std::string line, previous;
  size_t n = 0;
  Example* cur = nullptr;
  bool in_other_fence = false;
  size_t indent = 0;  // of the open console fence (blocks inside list items are indented)
  while (std::getline(in, line)) {
    ++n;
    line = rtrim(line);
    size_t lead = line.find_first_not_of(' ');
    if (cur) {
      line = line.substr(std::min(indent, lead == std::string::npos ? line.size() : lead));
    } else if (lead != std::string::npos) {
      indent = lead;
      line = line.substr(lead);
    }
    if (cur) {
      if (line == "```") {
        cur = nullptr;
      } else if (line.rfind("$ ", 0) == 0) {
        Command c;
        c.text = line.substr(2);
        const std::string mark = "# excerpt";
        size_t at = c.text.rfind(mark);
        if (at != std::string::npos && rtrim(c.text.substr(at + mark.size())).empty()) {
          c.excerpt = true;
          c.text = rtrim(c.text.substr(0, at));
        }
        cur->commands.push_back(c);
      } else if (!cur->commands.empty()) {
        cur->commands.back().expected.push_back(line);
      }
    } else if (in_other_fence) {
      if (line.rfind("```", 0) == 0) in_other_fence = false;
    } else if (line == "```console") {
      Example e;
      e.line = n;
      const std::string tag = "<!-- not run:";
      if (previous.rfind(tag, 0) == 0) e.skip_reason = previous.substr(tag.size());
      out.push_back(e);
      cur = &out.back();
    } else if (line.rfind("```", 0) == 0) {
      in_other_fence = true;
    }
    previous = line;
  }
  return out;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(rtrim(l));
  while (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

// A scratch directory shaped like the repository root, with build/trtlens the binary under test.
std::string scratch_dir() {
  char tmpl[] = "/tmp/trtlens-readme-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  for (const char* d : {"fixtures", "tools", "grammar"})
    EXPECT_EQ(symlink((source_dir() + "/" + d).c_str(), (dir + "/" + d).c_str()), 0);
  EXPECT_EQ(mkdir((dir + "/build").c_str(), 0755), 0);
  EXPECT_EQ(mkdir((dir + "/bin").c_str(), 0755), 0);
  EXPECT_EQ(symlink(TRTLENS_BINARY, (dir + "/build/trtlens").c_str()), 0);
  EXPECT_EQ(symlink(TRTLENS_BINARY, (dir + "/bin/trtlens").c_str()), 0);
  return dir;
}

const std::string kMarker = "@@trtlens-readme-example@@";

// Output of each command of the block, run in one shell.
std::vector<std::string> run_block(const Example& e, const std::string& dir) {
  std::string script = "exec 2>&1\ncd " + shell_quote(dir) + "\nPATH=" + shell_quote(dir + "/bin") +
                       ":$PATH\nunset COLUMNS NO_COLOR TRTLENS_GRAMMAR_DIR\n";
  // The marker between commands must not hide a command's exit status from the next ("echo $?").
  script += "status=0\n";
  for (const auto& c : e.commands)
    script += "printf '\\n%s\\n' '" + kMarker + "'\n(exit $status); " + c.text + "\nstatus=$?\n";
  std::string path = dir + "/example.sh", out_path = dir + "/example.out";
  std::ofstream(path) << script;
  std::system(("sh " + shell_quote(path) + " >" + shell_quote(out_path) + " </dev/null").c_str());
  std::string all = read_file(out_path);
  std::vector<std::string> outputs;
  size_t pos = all.find(kMarker);
  while (pos != std::string::npos) {
    size_t begin = pos + kMarker.size() + 1;
    size_t next = all.find("\n" + kMarker, begin);
    outputs.push_back(
        all.substr(begin, next == std::string::npos ? std::string::npos : next - begin));
    pos = next == std::string::npos ? next : next + 1;
  }
  return outputs;
}

std::string show(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += "  | " + l + "\n";
  return s;
}

std::vector<Example> readme_examples() {
  return parse_readme(read_file(source_dir() + "/README.md"));
}

TEST(ReadmeExamples, EveryConsoleExampleMatchesTheBinary) {
  auto examples = readme_examples();
  size_t run = 0;
  for (const auto& e : examples) {
    if (!e.skip_reason.empty()) continue;
    SCOPED_TRACE("README.md:" + std::to_string(e.line));
    ASSERT_FALSE(e.commands.empty()) << "a console block without a '$ ' command";
    std::string dir = scratch_dir();
    auto outputs = run_block(e, dir);
    ASSERT_EQ(outputs.size(), e.commands.size());
    for (size_t i = 0; i < e.commands.size(); ++i) {
      const Command& c = e.commands[i];
      auto got = split_lines(outputs[i]);
      auto want = c.expected;
      while (!want.empty() && want.back().empty()) want.pop_back();
      if (!c.excerpt) {
        EXPECT_EQ(got, want) << "$ " << c.text << "\nREADME shows:\n"
                             << show(want) << "the binary prints:\n"
                             << show(got);
        continue;
      }
      size_t at = 0;
      for (const auto& w : want) {
        if (w == "...") continue;
        while (at < got.size() && got[at] != w) ++at;
        EXPECT_LT(at, got.size()) << "$ " << c.text
                                  << " # excerpt\nnot in the output (in order): " << w
                                  << "\nthe binary prints:\n"
                                  << show(got);
        if (at < got.size()) ++at;
      }
    }
    ++run;
    std::system(("rm -rf " + shell_quote(dir)).c_str());
  }
  // The examples that are not run say why; most are run.
  size_t skipped = examples.size() - run;
  EXPECT_GE(run, 10u) << "README has fewer runnable console examples than expected";
  EXPECT_LE(skipped, run) << "more README examples are marked 'not run' than are run";
}

TEST(ReadmeExamples, CiRunsTheReadmesTestCommand) {
  // The two commands at the top of README.md: the demo builds only the trtlens target with the
  // plain set-up; the test command installs the test tools and is what .ci/run runs, verbatim.
  std::istringstream in(read_file(source_dir() + "/README.md"));
  std::vector<std::string> commands;
  std::string line;
  bool in_sh = false;
  while (std::getline(in, line) && commands.size() < 2) {
    if (line == "```sh")
      in_sh = true;
    else if (line.rfind("```", 0) == 0)
      in_sh = false;
    else if (in_sh && line.rfind("tools/setup.sh", 0) == 0)
      commands.push_back(line);
  }
  ASSERT_EQ(commands.size(), 2u);
  EXPECT_EQ(commands[0].rfind("tools/setup.sh && ", 0), 0u) << commands[0];
  EXPECT_NE(commands[0].find("cmake --build build --target trtlens && build/trtlens summary"),
            std::string::npos)
      << commands[0];
  EXPECT_EQ(commands[1].rfind("tools/setup.sh --test && ", 0), 0u) << commands[1];
  // As a line of its own, where CI may add `|| exit 1` (set -e does not stop inside a list).
  std::string ci = read_file(source_dir() + "/.ci/run");
  EXPECT_TRUE(ci.find("\n" + commands[1] + "\n") != std::string::npos ||
              ci.find("\n" + commands[1] + " || exit 1\n") != std::string::npos)
      << ".ci/run does not run: " << commands[1];
}

TEST(ReadmeExamples, ConventionIsUnderstood) {
  // The parser on a small README written here: a run block, an excerpt, a skipped block, and a
  // fence of another language that is ignored.
  auto ex = parse_readme(
      "text\n```console\n$ echo a\na\n$ printf 'x\\ny\\n' # excerpt\ny\n```\n"
      "```sh\n$ not an example\n```\n<!-- not run: needs a GPU -->\n```console\n$ "
      "nvidia-smi\n```\n"
      "  ```console\n  $ false\n  $ echo $?\n  1\n  ```\n");
  ASSERT_EQ(ex.size(), 3u);
  EXPECT_EQ(ex[0].line, 2u);
  ASSERT_EQ(ex[0].commands.size(), 2u);
  EXPECT_EQ(ex[0].commands[0].expected, std::vector<std::string>{"a"});
  EXPECT_TRUE(ex[0].commands[1].excerpt);
  EXPECT_EQ(ex[0].commands[1].text, "printf 'x\\ny\\n'");
  EXPECT_EQ(ex[1].skip_reason, " needs a GPU -->");
  std::string dir = scratch_dir();
  auto out = run_block(ex[0], dir);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(split_lines(out[0]), std::vector<std::string>{"a"});
  EXPECT_EQ(split_lines(out[1]), (std::vector<std::string>{"x", "y"}));
  // An indented block (inside a list item); the exit status reaches the next command.
  ASSERT_EQ(ex[2].commands.size(), 2u);
  EXPECT_EQ(ex[2].commands[1].expected, std::vector<std::string>{"1"});
  auto status = run_block(ex[2], dir);
  ASSERT_EQ(status.size(), 2u);
  EXPECT_EQ(split_lines(status[1]), std::vector<std::string>{"1"});
  std::system(("rm -rf " + shell_quote(dir)).c_str());
}

}  // namespace
}  // namespace trtlens::test
