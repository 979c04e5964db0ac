// The command line as a user meets it: mistyped commands, -V, help, missing arguments, --shape
// anywhere, summary formats, tables that fit the terminal, colour, completions, the installed
// grammar directory. Runs the real binary.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "render/escape.h"
#include "render/text_table.h"
#include "test_support.h"

namespace trtlens::test {
namespace {

std::string seed000() { return shell_quote(fixture("seed000_int8.log")); }

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// Runs a shell command line (for environment variables and pipes); its output is redirected,
// so it must be one command (a pipeline's last stage gets the redirection).
RunResult sh(const std::string& cmd) { return run_trtlens("--version >/dev/null; " + cmd); }

std::string bin() { return shell_quote(TRTLENS_BINARY); }

TEST(Cli, MistypedCommandGetsASuggestion) {
  RunResult r = run_trtlens("sumary " + seed000());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(
      r.err,
      "trtlens: 'sumary' is not a command; did you mean 'summary'? (trtlens help lists them)\n");
  r = run_trtlens("provenence x");
  EXPECT_NE(r.err.find("did you mean 'provenance'?"), std::string::npos) << r.err;
  r = run_trtlens("prof x");  // a unique prefix
  EXPECT_NE(r.err.find("did you mean 'profile'?"), std::string::npos) << r.err;
  r = run_trtlens("frobnicate x");  // nothing close: no guess
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << r.err;
}

TEST(Cli, VersionAndHelp) {
  RunResult v = run_trtlens("-V"), version = run_trtlens("--version");
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(v.out, version.out);
  EXPECT_EQ(v.out.rfind("trtlens ", 0), 0u) << v.out;
  RunResult h = run_trtlens("help");
  EXPECT_EQ(h.exit_code, 0);
  for (const char* cmd : {"summary", "layers", "memory", "diff", "findings", "completion"})
    EXPECT_NE(h.out.find(cmd), std::string::npos) << cmd;
  RunResult hs = run_trtlens("help summary");
  EXPECT_EQ(hs.exit_code, 0);
  EXPECT_EQ(hs.out, run_trtlens("summary --help").out);
  EXPECT_NE(hs.out.find("--format"), std::string::npos);
  RunResult bad = run_trtlens("help sumary");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("did you mean 'summary'?"), std::string::npos);
  RunResult none = run_trtlens("");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("summary"), std::string::npos) << "no arguments: the command list";
}

TEST(Cli, MissingInputIsNamedInTheUsersWords) {
  RunResult r = run_trtlens("summary");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.find("inputs is required"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("trtlens summary: no INPUT given"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("trtlens help summary"), std::string::npos) << r.err;
}

TEST(Cli, ShapeTakesOneValueAndMayStandAnywhere) {
  // Before the input (which it used to swallow), after it, and repeated.
  RunResult before = run_trtlens("memory --shape inputs=1x3x512x768 " + seed000());
  EXPECT_EQ(before.exit_code, 0) << before.err;
  RunResult after = run_trtlens("memory " + seed000() + " --shape inputs=1x3x512x768");
  EXPECT_EQ(after.exit_code, 0) << after.err;
  EXPECT_EQ(before.out, after.out);
  RunResult twice =
      run_trtlens("memory --shape inputs=1x3x512x768 --shape inputs=1x3x512x768 " + seed000());
  EXPECT_EQ(twice.exit_code, 0) << twice.err;
  // A name no layer reads is a usage error wherever it stands.
  RunResult unknown = run_trtlens("memory --shape inputs=1x3x512x768 --shape other=1x2 " + seed000());
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  RunResult onnx_first = run_trtlens("summary --onnx /nonexistent.onnx " + seed000());
  EXPECT_EQ(onnx_first.exit_code, 2);
  EXPECT_NE(onnx_first.err.find("/nonexistent.onnx"), std::string::npos) << onnx_first.err;
}

TEST(Cli, SummaryFormats) {
  // The fixture's Engine Layer Information holds 48 "Layer(" lines, one a Reformat (counted by
  // hand with grep, no NoOp among them); its graph input is 'inputs' FP32 1x3x512x768.
  RunResult j = run_trtlens("summary --format json " + seed000());
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["schema"], "trtlens/1");
  ASSERT_EQ(doc["builds"].size(), 1u);
  const auto& b = doc["builds"][0];
  EXPECT_EQ(b["layers"], 48);
  EXPECT_EQ(b["reformats"], 1);
  EXPECT_EQ(b["types"]["Reformat"], 1);
  size_t sum = 0;
  for (const auto& [k, n] : b["types"].items()) sum += n.get<size_t>();
  EXPECT_EQ(sum, 48u);
  EXPECT_EQ(b["inputs"][0]["name"], "inputs");
  EXPECT_EQ(b["inputs"][0]["dtype"], "FP32");
  EXPECT_EQ(b["inputs"][0]["dims"], nlohmann::json({1, 3, 512, 768}));
  EXPECT_TRUE(b.contains("totals"));
  EXPECT_TRUE(b.contains("latency"));
  EXPECT_EQ(doc["inputs"][0]["lines"], 71);  // wc -l
  EXPECT_TRUE(doc["findings"].is_array());

  RunResult md = run_trtlens("summary --format md " + seed000());
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_NE(md.out.find("## Build 0 (final)"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| layers | 48 layers: 48 run, 0 elided; 1 reformat |"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| inputs | inputs \\[FP32 1x3x512x768\\] |"), std::string::npos) << md.out;

  char tmpl[] = "/tmp/trtlens-summary-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  RunResult to_file =
      run_trtlens("summary --format json -o " + shell_quote(dir + "/s.json") + " " + seed000());
  EXPECT_EQ(to_file.exit_code, 0) << to_file.err;
  EXPECT_EQ(to_file.out, "");
  EXPECT_EQ(read_file(dir + "/s.json"), j.out);
  RunResult text = run_trtlens("summary --format text " + seed000());
  EXPECT_EQ(text.out, run_trtlens("summary " + seed000()).out);
  EXPECT_EQ(run_trtlens("summary --format yaml " + seed000()).exit_code, 2);
  std::system(("rm -rf " + shell_quote(dir)).c_str());
}

TEST(Cli, DisplayWidthCountsTerminalColumns) {
  EXPECT_EQ(display_width("Conv_0"), 6u);
  EXPECT_EQ(display_width("\xe5\x8d\xb7\xe7\xa7\xaf"), 4u);  // 卷积: two wide characters
  EXPECT_EQ(display_width("e\xcc\x81"), 1u);                 // e + combining acute
  // ASCII is counted without utf8proc, as it counts it: controls and DEL take no column.
  EXPECT_EQ(display_width(std::string("a\tb\x7f") + "c"), 3u);
  EXPECT_EQ(display_width("Conv_\xe5\x8d\xb7"), 7u);  // ASCII, then a wide character
}

TEST(Cli, CutMiddleKeepsBothEnds) {
  EXPECT_EQ(cut_middle("abcdefghij", 5), "ab\xe2\x80\xa6ij");
  EXPECT_EQ(cut_middle("abcdefghij", 10), "abcdefghij");
  EXPECT_EQ(cut_middle("abcdefghij", 1), "\xe2\x80\xa6");
  // 漢字漢字漢字 is 12 columns; in 7: 漢 (2) + … (1) + 漢字 (4).
  const std::string kanji =
      "\xe6\xbc\xa2\xe5\xad\x97\xe6\xbc\xa2\xe5\xad\x97\xe6\xbc\xa2\xe5\xad\x97";
  std::string cut = cut_middle(kanji, 7);
  EXPECT_EQ(cut, "\xe6\xbc\xa2\xe2\x80\xa6\xe6\xbc\xa2\xe5\xad\x97");
  EXPECT_EQ(display_width(cut), 7u);
}

// Column start (in display columns) of the `col`-th column of a table line, given the header.
size_t display_prefix(const std::string& line, size_t bytes) {
  return display_width(line.substr(0, bytes));
}

TEST(Cli, TablesFitTheTerminalAndCutNamesInTheMiddle) {
  std::string cmd = "layers " + seed000();
  RunResult full = run_trtlens(cmd);
  size_t widest = 0;
  for (const auto& l : lines_of(full.out)) widest = std::max(widest, display_width(l));
  ASSERT_GT(widest, 140u) << "the fixture's table is wider than the terminal width used below";
  RunResult fitted = sh("COLUMNS=140 " + bin() + " " + cmd);
  ASSERT_EQ(fitted.exit_code, 0) << fitted.err;
  bool cut = false;
  for (const auto& l : lines_of(fitted.out)) {
    EXPECT_LE(display_width(l), 140u) << l;
    cut = cut || l.find("\xe2\x80\xa6") != std::string::npos;
  }
  EXPECT_TRUE(cut);
  // The middle goes: a reformat layer's name keeps its start and its end.
  EXPECT_NE(fitted.out.find("Reformatting"), std::string::npos);
  RunResult wide = sh("COLUMNS=140 " + bin() + " " + cmd + " --wide");
  EXPECT_EQ(wide.out, full.out);
  RunResult wide_first = sh("COLUMNS=140 " + bin() + " --wide " + cmd);
  EXPECT_EQ(wide_first.out, full.out);
  // Written to a file, the table is whole.
  char tmpl[] = "/tmp/trtlens-table-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  sh("COLUMNS=140 " + bin() + " " + cmd + " -o " + shell_quote(dir + "/t.txt"));
  EXPECT_EQ(read_file(dir + "/t.txt"), full.out);
  std::system(("rm -rf " + shell_quote(dir)).c_str());
}

TEST(Cli, WideCharactersAlign) {
  // Layer names and tensors in Chinese/Japanese: every row's "type" column starts at the same
  // display column as its header.
  RunResult r = run_trtlens("layers " + shell_quote(fixture("cli/cjk_names.log")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 5u) << r.out;
  size_t col = display_prefix(lines[0], lines[0].find("type"));
  for (size_t i = 2; i < lines.size(); ++i) {
    size_t at = lines[i].find("Cask");
    ASSERT_NE(at, std::string::npos) << lines[i];
    EXPECT_EQ(display_prefix(lines[i], at), col) << lines[i];
  }
}

TEST(Cli, PathologicalNamesAreCapped) {
  // A 1 MB layer name: even with --wide the row stays a few hundred columns.
  char tmpl[] = "/tmp/trtlens-long-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::string name(1 << 20, 'n');
  std::ofstream(dir + "/long.log")
      << "[V] [TRT] Engine Layer Information:\nLayer(CaskConvolution): " << name
      << ", Tactic: 0x0000000000000001, in[Float(1,3,8,8)] -> out[Float(1,8,8,8)]\n";
  RunResult r = run_trtlens("layers --wide " + shell_quote(dir + "/long.log"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& l : lines_of(r.out)) EXPECT_LE(display_width(l), 2 * kMaxCellColumns);
  std::system(("rm -rf " + shell_quote(dir)).c_str());
}

TEST(Cli, ColourOnlyWhenWanted) {
  const std::string esc = "\x1b[";
  std::string cmd = "findings " + seed000();
  RunResult plain = run_trtlens(cmd);  // not a terminal
  EXPECT_EQ(plain.out.find(esc), std::string::npos);
  RunResult always = run_trtlens(cmd + " --color=always");
  EXPECT_NE(always.out.find("\x1b[33mwarning\x1b[0m"), std::string::npos) << always.out;
  // On a terminal (script(1) gives the command one): colour unless NO_COLOR or --color=never.
  auto on_tty = [&](const std::string& env, const std::string& extra) {
    return sh("env " + env + " script -qec " + shell_quote(bin() + " " + cmd + extra) +
              " /dev/null")
        .out;
  };
  EXPECT_NE(on_tty("NO_COLOR= TERM=xterm", "").find(esc), std::string::npos);
  EXPECT_EQ(on_tty("NO_COLOR=1 TERM=xterm", "").find(esc), std::string::npos);
  EXPECT_EQ(on_tty("NO_COLOR= TERM=xterm", " --color=never").find(esc), std::string::npos);
  EXPECT_NE(on_tty("NO_COLOR=1 TERM=xterm", " --color=always").find(esc), std::string::npos);
  // FAIL of a diff gate.
  RunResult gate = run_trtlens("diff " + shell_quote(fixture("diff/trt82_small.log")) + " " +
                               shell_quote(fixture("diff/trt10_small.log")) +
                               " --fail-on reformats:+0 --color=always");
  EXPECT_EQ(gate.exit_code, 1) << gate.err;
  EXPECT_NE(gate.out.find("\x1b[1;31mFAIL\x1b[0m"), std::string::npos) << gate.out;
  EXPECT_EQ(run_trtlens(cmd + " --color=sometimes").exit_code, 2);
}

TEST(Cli, InstalledGrammarDirectoryIsTheDefault) {
  // A prefix shaped like an install: bin/trtlens and share/trtlens/grammar/ with a broken
  // pattern file. The installed files are read by default; --grammar-dir wins over them.
  char tmpl[] = "/tmp/trtlens-prefix-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  ASSERT_EQ(mkdir((dir + "/bin").c_str(), 0755), 0);
  ASSERT_EQ(std::system(("mkdir -p " + shell_quote(dir + "/share/trtlens/grammar") + " " +
                         shell_quote(dir + "/good") + " && cp " + bin() + " " +
                         shell_quote(dir + "/bin/trtlens"))
                            .c_str()),
            0);
  std::ofstream(dir + "/share/trtlens/grammar/zz_broken.re2") << "broken = (unclosed\n";
  std::string installed = shell_quote(dir + "/bin/trtlens");
  RunResult r = sh(installed + " summary " + seed000());
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("trtlens: grammar:"), std::string::npos) << r.err;
  RunResult over =
      sh(installed + " summary --grammar-dir " + shell_quote(dir + "/good") + " " + seed000());
  EXPECT_EQ(over.exit_code, 0) << over.out << over.err;
  // Without the installed directory (a build tree), the embedded grammar alone.
  std::system(("rm -rf " + shell_quote(dir + "/share")).c_str());
  EXPECT_EQ(sh(installed + " summary " + seed000()).exit_code, 0);
  std::system(("rm -rf " + shell_quote(dir)).c_str());
}

// --- shell completions ---

std::vector<std::string> commands_in_help() {
  std::vector<std::string> out;
  bool on = false;
  for (const auto& l : lines_of(run_trtlens("--help").out)) {
    if (l.rfind("Subcommands:", 0) == 0)
      on = true;
    else if (on && l.size() > 2 && l[0] == ' ' && l[2] != ' ')
      out.push_back(l.substr(2, l.find(' ', 2) - 2));
  }
  return out;
}

std::string bash_complete(const std::string& words) {
  std::string script =
      ". <(" + bin() + " completion bash); COMP_WORDS=(" + words +
      "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _trtlens; printf '%s\\n' \"${COMPREPLY[@]}\"";
  return sh("bash -c " + shell_quote(script)).out;
}

TEST(Completion, EveryCommandAndOptionIsInEachScript) {
  auto cmds = commands_in_help();
  ASSERT_GE(cmds.size(), 10u);
  for (const char* shell : {"bash", "zsh", "fish"}) {
    RunResult r = run_trtlens(std::string("completion ") + shell);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const auto& c : cmds) EXPECT_NE(r.out.find(c), std::string::npos) << shell << ": " << c;
    for (const auto& c : cmds) {
      // Every long option of every command's help.
      std::regex opt("--[a-z][a-z-]+");
      std::string help = run_trtlens(c + " --help").out;
      for (std::sregex_iterator it(help.begin(), help.end(), opt), end; it != end; ++it) {
        std::string o = it->str();
        std::string as_written = std::string(shell) == "fish" ? "-l " + o.substr(2) : o;
        EXPECT_NE(r.out.find(as_written), std::string::npos) << shell << ": " << c << " " << o;
      }
    }
  }
  EXPECT_EQ(run_trtlens("completion tcsh").exit_code, 2);
}

TEST(Completion, Bash) {
  EXPECT_EQ(bash_complete("trtlens sum"), "summary\n");
  EXPECT_EQ(bash_complete("trtlens summary --for"), "--format\n");
  EXPECT_EQ(bash_complete("trtlens summary --format ''"), "text\njson\nmd\n");
  EXPECT_EQ(bash_complete("trtlens layers --format c"), "csv\n");
  EXPECT_EQ(bash_complete("trtlens help pro"), "profile\nprovenance\n");
  EXPECT_EQ(bash_complete("trtlens --color never fin"), "findings\n");
  EXPECT_EQ(bash_complete("trtlens findings --fail-on w"), "warning\n");
  // Inputs are files.
  std::string files = bash_complete("trtlens summary " + shell_quote(fixture("seed000_")));
  EXPECT_EQ(files, fixture("seed000_int8.log") + "\n");
}

TEST(Completion, Fish) {
  if (std::system("command -v fish >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "fish is not installed (tools/setup.sh --test installs it)";
  auto complete = [&](const std::string& line) {
    std::string script = bin() + " completion fish | source; complete -C " + shell_quote(line);
    std::string out;
    for (const auto& l : lines_of(sh("fish --no-config -c " + shell_quote(script)).out))
      out += l.substr(0, l.find('\t')) + "\n";
    return out;
  };
  EXPECT_EQ(complete("trtlens sum"), "summary\n");
  EXPECT_EQ(complete("trtlens summary --format "), "json\nmd\ntext\n");
  EXPECT_NE(complete("trtlens memory --s").find("--sort"), std::string::npos);
  EXPECT_NE(complete("trtlens memory --sort ").find("weights"), std::string::npos);
}

TEST(Completion, ZshScriptParses) {
  if (std::system("command -v zsh >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "zsh is not installed (tools/setup.sh --test installs it)";
  char tmpl[] = "/tmp/trtlens-zsh-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::ofstream(dir + "/_trtlens") << run_trtlens("completion zsh").out;
  EXPECT_EQ(sh("zsh -n " + shell_quote(dir + "/_trtlens")).exit_code, 0);
  // Loaded by compinit from fpath, the function is what `trtlens` completes with.
  std::string script = "fpath=(" + dir + " $fpath); autoload -Uz compinit; compinit -u -d " + dir +
                       "/dump; print -r -- $_comps[trtlens]";
  RunResult r = sh("zsh -f -c " + shell_quote(script));
  EXPECT_EQ(r.out, "_trtlens\n") << r.err;
  std::system(("rm -rf " + shell_quote(dir)).c_str());
}

TEST(Cli, NodeThatMatchesNothingIsAUsageError) {
  // seed000's layer names carry Conv_0 ... Conv_136; no node is called "NoSuchNode".
  RunResult none = run_trtlens("provenance " + seed000() + " --node NoSuchNode");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("--node 'NoSuchNode' matches no ONNX node"), std::string::npos)
      << none.err;
  RunResult one = run_trtlens("provenance " + seed000() + " --node '^Conv_8$'");
  EXPECT_EQ(one.exit_code, 0) << one.err;
  EXPECT_NE(one.out.find("Conv_8"), std::string::npos);
}

// The ONNX functions are a module the binary opens for the first ONNX model, and only then:
// linked, the ONNX and protobuf libraries cost every run its start-up time.
TEST(Cli, TheOnnxModuleIsLoadedOnlyForOnnxModels) {
  // How many of the libraries matching `re` the dynamic loader started (LD_DEBUG=files, on
  // stderr); in a subshell, since the input redirection sh() appends would otherwise give grep
  // /dev/null.
  auto loads = [](const std::string& args, const std::string& re) {
    return sh("(LD_DEBUG=files " + bin() + " " + args + " 2>&1 >/dev/null | grep -c " +
              shell_quote("calling init: .*/" + re) + ")")
        .out;
  };
  const std::string log = "summary " + seed000(),
                    model = "provenance " + shell_quote(fixture("provenance/cut_names.onnx"));
  EXPECT_EQ(loads(log, "trtlens-onnx[.]so"), "0\n");
  EXPECT_EQ(loads(log, "lib\\(onnx\\|protobuf\\)"), "0\n");
  EXPECT_EQ(loads(model, "trtlens-onnx[.]so"), "1\n");
  EXPECT_EQ(loads(model, "lib\\(onnx\\|onnx_proto\\|protobuf\\)[.]so"), "3\n");
}

// A binary copied without the module reads logs as before; an ONNX model is then an input
// error that names the file it looked for.
TEST(Cli, WithoutTheOnnxModuleAnOnnxModelIsAnInputError) {
  char tmpl[] = "/tmp/trtlens-alone-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string alone = shell_quote(dir + "/trtlens");
  ASSERT_EQ(std::system(("cp " + bin() + " " + alone).c_str()), 0);
  RunResult log = sh(alone + " summary " + seed000());
  RunResult onnx = sh(alone + " provenance " + shell_quote(fixture("provenance/cut_names.onnx")));
  std::system(("rm -rf " + shell_quote(dir)).c_str());
  EXPECT_EQ(log.exit_code, 0) << log.err;
  EXPECT_NE(log.out.find("48 layers"), std::string::npos) << log.out;
  EXPECT_EQ(onnx.exit_code, 2);
  EXPECT_EQ(onnx.err, "trtlens: " + dir +
                          "/../lib/trtlens/trtlens-onnx.so: not found (nor beside the binary): "
                          "ONNX models cannot be read or written without it\n");
}

}  // namespace
}  // namespace trtlens::test
