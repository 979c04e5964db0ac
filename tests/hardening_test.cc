// Hostile and unusual inputs and outputs: interleaved log lines, failed writes, outputs over
// inputs, names that attack the reader, bad option values. Each case runs real code on real
// files; expected values are counted from the inputs by the test itself.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/analyze.h"
#include "ingest/grammar.h"
#include "ingest/load.h"
#include "render/escape.h"
#include "render/json.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace trtlens;
using namespace trtlens::test;

namespace {

class Hardening : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/trtlens-hardening-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    tmp_ = templ;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(tmp_, ec);
  }
  std::string put(const std::string& name, const std::string& bytes) {
    std::string p = (tmp_ / name).string();
    fs::create_directories(fs::path(p).parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  fs::path tmp_;
};

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

// The seed 000 listing with `foreign` inserted after its 7th layer line; also returns how many
// layer lines the listing has (counted here, not by trtlens).
std::string seed000_with(const std::string& foreign, size_t& layer_lines) {
  auto lines = split_lines(read_file(fixture("seed000_int8.log")));
  layer_lines = 0;
  std::vector<std::string> out;
  for (const auto& l : lines) {
    out.push_back(l);
    if (l.rfind("Layer(", 0) == 0 && ++layer_lines == 7) out.push_back(foreign);
  }
  return join_lines(out);
}

bool has_diagnostic(const Capture& c, const std::string& part) {
  for (const auto& d : c.diagnostics)
    if (d.message.find(part) != std::string::npos) return true;
  return false;
}

// --- a foreign line inside a listing ---

TEST_F(Hardening, ForeignLineInsideEngineListingIsSkippedAndCounted) {
  size_t expected = 0;
  const std::string path =
      put("interleaved.log",
          seed000_with("[02/08/2023-15:25:37] [W] [TRT] Some other thread logged this", expected));
  ASSERT_EQ(expected, 48u);  // the seed's own count: 7 before the foreign line, 41 after
  Capture c = load({path});
  ASSERT_EQ(c.builds.size(), 1u);
  EXPECT_EQ(c.builds[0].layers.size(), expected);
  EXPECT_EQ(c.builds[0].layers.back().name, "Conv_136 + Relu_137");
  EXPECT_EQ(c.inputs[0].unrecognized, 1u);
  EXPECT_TRUE(has_diagnostic(c, "1 interleaved line(s) inside the layer listing skipped"));
}

TEST_F(Hardening, ForeignLineSplitByLoneCrInsideListingIsSkipped) {
  size_t expected = 0;
  const std::string path =
      put("interleaved_cr.log",
          seed000_with("[02/08/2023-15:25:37] [W] [TRT] Some other\rthread logged this", expected));
  Capture c = load({path});
  ASSERT_EQ(c.builds.size(), 1u);
  EXPECT_EQ(c.builds[0].layers.size(), expected);
  EXPECT_EQ(c.inputs[0].unrecognized, 2u);  // the prefixed half and its rest
}

TEST_F(Hardening, ListingStillEndsWhereTheSeedEndsIt) {
  // Seed 000 quotes single layer lines in its prose after the listing: they are not the
  // listing's (the prose line between ends it for sure).
  TRTLENS_REQUIRE_SHARED();
  std::string seed;
  for (const auto& e : fs::directory_iterator(shared_dir() + "/seeds"))
    if (e.path().filename().string().rfind("000_", 0) == 0) seed = e.path().string();
  ASSERT_FALSE(seed.empty());
  // The listing: the Layer( lines right after "Engine Layer Information:", counted here.
  auto lines = split_lines(read_file(seed));
  size_t i = 0, listing = 0;
  while (i < lines.size() && lines[i].find("Engine Layer Information:") == std::string::npos) ++i;
  for (++i; i < lines.size() && lines[i].rfind("Layer(", 0) == 0; ++i) ++listing;
  Capture c = load({seed});
  ASSERT_FALSE(c.builds.empty());
  EXPECT_EQ(c.builds[0].layers.size(), listing);
}

TEST_F(Hardening, StrayLineBetweenLayerInformationAndLayersIsNoWarning) {
  auto lines = split_lines(read_file(fixture("core/engine_dump.log")));
  std::vector<std::string> out;
  size_t names = 0;
  for (const auto& l : lines) {
    out.push_back(l);
    if (l.find("] [I] Layer Information:") != std::string::npos)
      out.push_back("[09/12/2024-10:11:12] [I] Some other line");
    if (l.rfind("Name: ", 0) == 0) ++names;
  }
  Capture c = load({put("stray.log", join_lines(out))});
  ASSERT_EQ(c.builds.size(), 1u);
  EXPECT_EQ(c.builds[0].layers.size(), names);
  for (const auto& d : c.diagnostics) EXPECT_NE(d.severity, Severity::Warning) << d.message;
  EXPECT_FALSE(has_diagnostic(c, "without layers"));
}

TEST_F(Hardening, DumpWithoutBindingsIsReportedCutShort) {
  auto lines = split_lines(read_file(fixture("core/engine_dump.log")));
  std::vector<std::string> out;
  size_t names = 0;
  for (const auto& l : lines) {
    if (l.rfind("Bindings:", 0) == 0) break;
    out.push_back(l);
    if (l.rfind("Name: ", 0) == 0) ++names;
  }
  Capture c = load({put("cut.log", join_lines(out))});
  ASSERT_EQ(c.builds.size(), 1u);
  EXPECT_EQ(c.builds[0].layers.size(), names);
  EXPECT_TRUE(has_diagnostic(c, "layer listing cut short"));
}

// --- writes ---

TEST_F(Hardening, WriteToFullDeviceFails) {
  RunResult r = run_trtlens("layers " + shell_quote(fixture("seed000_int8.log")) + " -o /dev/full");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "trtlens: /dev/full: write failed: No space left on device\n");
}

TEST_F(Hardening, StdoutOnFullDeviceFails) {
  const std::string err = (tmp_ / "err").string();
  std::string cmd = shell_quote(TRTLENS_BINARY) + " json " +
                    shell_quote(fixture("seed000_int8.log")) + " >/dev/full 2>" + err;
  int status = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_EQ(read_file(err), "trtlens: <stdout>: write failed: No space left on device\n");
}

TEST_F(Hardening, WriteToProcFileFails) {
  RunResult r =
      run_trtlens("layers " + shell_quote(fixture("seed000_int8.log")) + " -o /proc/version");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("trtlens: /proc/version: write failed: ", 0), 0u) << r.err;
}

TEST_F(Hardening, OutputThatIsAnInputIsRefused) {
  const std::string original = read_file(fixture("seed000_int8.log"));
  const std::string log = put("s.log", original);
  RunResult r = run_trtlens("layers " + shell_quote(log) + " -o " + shell_quote(log));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is also an input"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(log), original);
  // The same file under another name (a hard link) is the same input.
  const std::string link = (tmp_ / "other-name.log").string();
  ASSERT_EQ(::link(log.c_str(), link.c_str()), 0);
  r = run_trtlens("json " + shell_quote(log) + " -o " + shell_quote(link));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(read_file(log), original);
}

TEST_F(Hardening, OutputOverABundleMemberIsRefused) {
  const std::string original = read_file(fixture("seed000_int8.log"));
  put("bundle/build.log", original);
  const std::string bundle = (tmp_ / "bundle").string();
  RunResult r =
      run_trtlens("report " + shell_quote(bundle) + " -o " + shell_quote(bundle + "/build.log"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("is also an input"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(bundle + "/build.log"), original);
}

TEST_F(Hardening, OutputIsWrittenWholeThroughATemporaryFile) {
  const std::string out = (tmp_ / "out" / "layers.csv").string();
  fs::create_directories(tmp_ / "out");
  put("out/layers.csv", "old contents\n");
  ::chmod(out.c_str(), 0640);
  RunResult r = run_trtlens("layers " + shell_quote(fixture("seed000_int8.log")) +
                            " --format csv -o " + shell_quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  RunResult direct =
      run_trtlens("layers " + shell_quote(fixture("seed000_int8.log")) + " --format csv");
  EXPECT_EQ(read_file(out), direct.out);
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(tmp_ / "out")) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 1u);  // no temporary file left beside it
  struct stat st {};
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);  // a replaced file keeps its permissions
}

TEST_F(Hardening, FailedRunLeavesTheOldOutput) {
  put("out.json", "old\n");
  RunResult r = run_trtlens("json " + shell_quote(put("empty.log", "")) + " -o " +
                            shell_quote((tmp_ / "out.json").string()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(read_file((tmp_ / "out.json").string()), "old\n");
}

// A signal while the output is written: the process dies of it, the temporary file is gone and
// the old output is untouched. The process is stopped (SIGSTOP) as soon as its temporary file
// appears, so the signal always arrives mid-write, whatever the machine's load.
void signal_during_write(const fs::path& dir, int sig) {
  // One-line layers in a chain: enough for a JSON output that takes a while to write.
  const std::string log = (dir / "chain.log").string();
  {
    std::ofstream f(log);
    f << "[09/12/2024-10:11:12] [I] Layer Information:\nLayers:\n";
    for (int i = 0; i < 30000; ++i)
      f << "Name: layer_" << i << ", LayerType: CaskConvolution, Inputs: [ { Name: t" << i
        << ", Location: Device, Dimensions: [1,64,56,56], Format/Datatype: Row major linear FP16 "
           "}], Outputs: [ { Name: t"
        << i + 1
        << ", Location: Device, Dimensions: [1,64,56,56], Format/Datatype: Row major linear FP16 "
           "}], ParameterType: Convolution, TacticValue: 0x0000000000000001, StreamId: 0, "
           "Metadata: \n";
    f << "\nBindings:\nt0\nt30000\n";
  }
  const fs::path outdir = dir / "out";
  fs::create_directories(outdir);
  const std::string out = (outdir / "big.json").string();
  std::ofstream(out) << "old\n";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // As a foreground process gets it: a runner started in the background of a script has
    // SIGINT ignored, and trtlens keeps an ignored signal ignored.
    ::signal(sig, SIG_DFL);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDERR_FILENO);
    ::execl(TRTLENS_BINARY, "trtlens", "json", log.c_str(), "-o", out.c_str(), (char*)nullptr);
    ::_exit(127);
  }
  auto temporaries = [&] {
    std::vector<std::string> found;
    for (const auto& e : fs::directory_iterator(outdir))
      if (e.path().filename().string().rfind(".big.json.trtlens-", 0) == 0)
        found.push_back(e.path().string());
    return found;
  };
  bool caught = false;
  int status = 0;
  for (;;) {
    if (!temporaries().empty()) {
      ::kill(pid, SIGSTOP);
      caught = true;
      break;
    }
    if (::waitpid(pid, &status, WNOHANG) == pid) break;  // finished before it was caught
    ::usleep(200);
  }
  ASSERT_TRUE(caught) << "the run finished before its temporary file was seen";
  ASSERT_FALSE(temporaries().empty());  // still there while the process is stopped
  ::kill(pid, sig);
  ::kill(pid, SIGCONT);
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << status;
  EXPECT_EQ(WTERMSIG(status), sig);
  EXPECT_TRUE(temporaries().empty());
  EXPECT_EQ(read_file(out), "old\n");
}

TEST_F(Hardening, SigintDuringWriteRemovesTheTemporaryFile) { signal_during_write(tmp_, SIGINT); }

TEST_F(Hardening, SigtermDuringWriteRemovesTheTemporaryFile) { signal_during_write(tmp_, SIGTERM); }

// --- names that attack the reader ---

TEST(HardeningEscape, CsvGuardsCellsSpreadsheetsRunAsFormulas) {
  // The guard quote, and the cell quoted as a whole (RFC 4180).
  EXPECT_EQ(escape_csv("-2+3+cmd|' /C calc'!A0"), "\"'-2+3+cmd|' /C calc'!A0\"");
  EXPECT_EQ(escape_csv("=1+2"), "\"'=1+2\"");
  EXPECT_EQ(escape_csv("@SUM(A1)"), "\"'@SUM(A1)\"");
  EXPECT_EQ(escape_csv("-1"), "-1");  // a negative number is data
  EXPECT_EQ(escape_csv("-0.5"), "-0.5");
  EXPECT_EQ(escape_csv("Conv_0"), "Conv_0");
}

TEST(HardeningEscape, BidiControlsAndLineSeparatorsAreEscapedOnTerminals) {
  // U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LEFT-TO-RIGHT ISOLATE, U+2028 LINE SEPARATOR,
  // U+2029 PARAGRAPH SEPARATOR, written as UTF-8 bytes.
  EXPECT_EQ(escape_terminal("a\xE2\x80\xAE"
                            "b"),
            "a\\u202Eb");
  EXPECT_EQ(escape_terminal("a\xE2\x81\xA6"
                            "b"),
            "a\\u2066b");
  EXPECT_EQ(escape_terminal("a\xE2\x80\xA8"
                            "b\xE2\x80\xA9"),
            "a\\u2028b\\u2029");
  EXPECT_EQ(escape_terminal("\xE2\x80\xA2 bullet"), "\xE2\x80\xA2 bullet");  // U+2022 stays
  EXPECT_EQ(escape_terminal("caf\xC3\xA9"), "caf\xC3\xA9");
}

TEST_F(Hardening, LayerTableEscapesBidiInNames) {
  std::string log =
      "[I] [TRT] Engine Layer Information:\n"
      "Layer(CaskConvolution): evil\xE2\x80\xAE"
      "gnp.exe, Tactic: 0x0000000000000001, "
      "in[Float(1,3)] -> out[Float(1,3)]\n";
  RunResult r = run_trtlens("layers " + shell_quote(put("bidi.log", log)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("\xE2\x80\xAE"), std::string::npos);
  EXPECT_NE(r.out.find("evil\\u202Egnp.exe"), std::string::npos) << r.out;
}

// --- option values ---

TEST_F(Hardening, BadOptionValuesAreUsageErrors) {
  const std::string log = shell_quote(fixture("seed000_int8.log"));
  for (const std::string args :
       {"profile " + log + " --top -1", "memory " + log + " --top -1",
        "dot " + log + " --focus Conv --radius -5", "summary " + log + " --max-input-size -1",
        "summary " + log + " --max-input-size ' 5'",
        "summary " + log + " --max-input-size 99999999999T", "memory " + log + " --shape x",
        "memory " + log + " --shape nosuchinput=1x3x512x768",
        "memory " + log + " --shape inputs=1x3x512"}) {
    RunResult r = run_trtlens(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out;
    EXPECT_EQ(r.err.rfind("trtlens: ", 0), 0u) << args << "\n" << r.err;
  }
  // The right rank for the graph input of the seed (Float(1,3,512,768)) is accepted.
  EXPECT_EQ(run_trtlens("memory " + log + " --shape inputs=1x3x512x768").exit_code, 0);
}

TEST_F(Hardening, StdinTwiceIsRefused) {
  RunResult r = run_trtlens("summary - -", fixture("seed000_int8.log"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("more than once"), std::string::npos) << r.err;
}

// --- scale ---

TEST(HardeningJson, StreamedDocumentIsTheSameAsTheWholeOne) {
  // Several builds (two listings), one build, and none (a profile alone has one; an empty
  // selection has none).
  for (const std::string f : {"core/two_builds.log", "seed000_int8.log", "capture/profile.json",
                              "core/engine_detailed.json", "render/injection.json"}) {
    Capture c = load({fixture(f)});
    analyze(c, {});
    std::vector<const Build*> all, none;
    for (const auto& b : c.builds) all.push_back(&b);
    for (const auto* sel : {&all, &none}) {
      std::ostringstream streamed;
      write_capture_json(c, *sel, streamed);
      EXPECT_EQ(streamed.str(), dump_json(capture_json(c, *sel))) << f;
    }
  }
}

// --- inconsistent graphs ---

std::string layer_line(const std::string& name, const std::string& in, const std::string& out) {
  return "Layer(CaskConvolution): " + name + ", Tactic: 0x0000000000000001, " + in +
         "[Float(1,64)] -> " + out + "[Float(1,64)]\n";
}

std::string listing(const std::string& layers) {
  return "[02/08/2023-15:25:37] [V] [TRT] Engine Layer Information:\n" + layers;
}

size_t count_diagnostics(const Capture& c, const std::string& part) {
  size_t n = 0;
  for (const auto& d : c.diagnostics) n += d.message.find(part) != std::string::npos;
  return n;
}

TEST_F(Hardening, InconsistentGraphsAreNamedAndLivenessRefuses) {
  struct Case {
    std::string name, layers, message;
  };
  const std::vector<Case> cases = {
      {"use_before_def", layer_line("A", "t2", "t3") + layer_line("B", "in", "t2"),
       "layer 0 'A' reads tensor 't2' before layer 1 'B' writes it"},
      {"cycle", layer_line("A", "y", "x") + layer_line("B", "x", "y"),
       "cycle: layer 0 'A' reads tensor 'y' from layer 1 'B', which depends on it"},
      {"two_producers", layer_line("A", "in", "t") + layer_line("B", "in", "t"),
       "tensor 't' is written by two layers: layer 0 'A' and layer 1 'B'"},
      {"self_loop", layer_line("A", "t", "t"), "layer 0 'A' reads its own output tensor 't'"},
  };
  for (const auto& k : cases) {
    Capture c = load({put(k.name + ".log", listing(k.layers))});
    analyze(c, {});
    ASSERT_EQ(c.builds.size(), 1u) << k.name;
    EXPECT_EQ(count_diagnostics(c, "inconsistent engine graph: "), 1u) << k.name;
    EXPECT_TRUE(has_diagnostic(c, "inconsistent engine graph: " + k.message)) << k.name;
    EXPECT_FALSE(c.builds[0].memory.peak_live_bytes.has_value()) << k.name;
    EXPECT_NE(c.builds[0].memory.liveness_refused.find("inconsistent"), std::string::npos)
        << k.name;
  }
  // A consistent chain has none of these.
  Capture ok =
      load({put("ok.log", listing(layer_line("A", "in", "t") + layer_line("B", "t", "u")))});
  analyze(ok, {});
  EXPECT_EQ(count_diagnostics(ok, "inconsistent engine graph"), 0u);
  EXPECT_TRUE(ok.builds[0].memory.peak_live_bytes.has_value());
}

TEST_F(Hardening, TwoRunsInterleavedLineByLineAreWarned) {
  // Two trtexec runs of the same model logging into one file, line by line.
  auto lines = split_lines(read_file(fixture("seed000_int8.log")));
  std::vector<std::string> mixed;
  for (const auto& l : lines) {
    mixed.push_back(l);
    mixed.push_back(l);
  }
  Capture c = load({put("mixed.log", join_lines(mixed))});
  EXPECT_TRUE(has_diagnostic(c, "two listings interleaved")) << c.diagnostics.size();
}

// --- inputs that are not regular files ---

// Runs a shell command line under bash with a time limit; returns the exit code (124: timed out).
int bash(const std::string& line) {
  const std::string cmd = "timeout 60 bash -c " + shell_quote(line);
  int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(Hardening, PipesAndFifosAreReadAsStreams) {
  const std::string bin = shell_quote(TRTLENS_BINARY);
  const std::string log = shell_quote(fixture("seed000_int8.log"));
  const std::string out = shell_quote((tmp_ / "out").string());
  const std::string want = "layers: 48";  // the fixture's 48 Layer( lines
  EXPECT_EQ(bash(bin + " summary <(cat " + log + ") >" + out), 0);
  EXPECT_NE(read_file((tmp_ / "out").string()).find(want), std::string::npos);
  EXPECT_EQ(bash("cat " + log + " | " + bin + " summary /dev/stdin >" + out), 0);
  EXPECT_NE(read_file((tmp_ / "out").string()).find(want), std::string::npos);
  const std::string fifo = (tmp_ / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(bash("(cat " + log + " >" + shell_quote(fifo) + " &) ; " + bin + " summary " +
                 shell_quote(fifo) + " >" + out),
            0);
  EXPECT_NE(read_file((tmp_ / "out").string()).find(want), std::string::npos);
}

TEST_F(Hardening, FifoWithoutWriterDoesNotBlock) {
  const std::string fifo = (tmp_ / "lonely").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string err = (tmp_ / "err").string();
  EXPECT_EQ(bash(shell_quote(TRTLENS_BINARY) + " summary " + shell_quote(fifo) + " 2>" +
                 shell_quote(err)),
            2);
  EXPECT_EQ(read_file(err),
            "trtlens: " + fifo + ": nothing to read (a pipe or FIFO whose writer sent nothing)\n");
}

TEST_F(Hardening, Utf16LogIsNamedAsSuch) {
  // What PowerShell's '>' writes: a byte-order mark, then UTF-16LE.
  std::string text = "[02/08/2023-15:25:37] [V] [TRT] Engine Layer Information:\n";
  std::string utf16 = "\xff\xfe";
  for (char ch : text) utf16 += std::string{ch, '\0'};
  const std::string path = put("ps.log", utf16);
  RunResult r = run_trtlens("summary " + shell_quote(path));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "trtlens: " + path +
                       ": UTF-16 text (as Windows PowerShell '>' writes): convert it with iconv "
                       "-f UTF-16 -t UTF-8\n");
  // Without the mark too.
  r = run_trtlens("summary " + shell_quote(put("nobom.log", utf16.substr(2))));
  EXPECT_NE(r.err.find("UTF-16 text"), std::string::npos) << r.err;
  // Zeros alone are no text, in either encoding.
  const std::string zeros = put("zeros.log", std::string(4096, '\0'));
  r = run_trtlens("summary " + shell_quote(zeros));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "trtlens: " + zeros +
                       ": binary file (not a TensorRT log, JSON export or ONNX model)\n");
}

}  // namespace

// A file of many bad entries keeps a bounded number of diagnostics and counts the rest: 10,050
// entries that are neither a name nor an object, then "listing without layers", give 10,000
// kept and one that says 51 more.
TEST_F(Hardening, DiagnosticsPerInputAreBoundedAndTheRestCounted) {
  const size_t kept = 10000;  // the bound README documents
  const size_t entries = kept + 50;
  std::string json = "{\"Layers\":[0";
  for (size_t i = 1; i < entries; ++i) json += ",0";
  json += "]}";
  const std::string p = put("zeros.json", json);
  auto grammar = Grammar::load();
  Capture c = load_capture({p}, *grammar, ReadLimits{});
  size_t per_entry = 0;
  for (const auto& d : c.diagnostics)
    if (d.message.find("neither a name nor an object") != std::string::npos) ++per_entry;
  EXPECT_EQ(per_entry, kept);
  EXPECT_TRUE(has_diagnostic(c, "51 more diagnostics not kept"));
  EXPECT_FALSE(has_diagnostic(c, "listing without layers"));  // past the bound
  auto r = run_trtlens("summary " + shell_quote(p));
  EXPECT_NE(r.out.find("51 more diagnostics not kept"), std::string::npos) << r.out;
}

// A tactic block of millions of lines keeps a bounded list of ids as text and counts the rest:
// 10,050 tactic lines under one Timing Runner keep the first 10,000 and say 10,050 were tried.
TEST_F(Hardening, TacticsOfOneBlockAreBoundedAndCounted) {
  const size_t lines = 10050, kept = 10000;  // kept: the bound README documents
  std::string log =
      "&&&& RUNNING TensorRT.trtexec [TensorRT v8601] # trtexec --onnx=x.onnx\n"
      "[08/20/2023-11:00:00] [V] [TRT] --------------- Timing Runner: n (CaskConvolution)\n";
  char id[24];
  for (size_t i = 0; i < lines; ++i) {
    std::snprintf(id, sizeof id, "0x%016zx", i + 1);
    log += std::string("[08/20/2023-11:00:00] [V] [TRT] Tactic Name: k Tactic: ") + id +
           " Time: 0.1\n";
  }
  const std::string p = put("tactics.log", log);
  auto grammar = Grammar::load();
  // Line by line, and in blocks that the screen reads runs of tactic lines from.
  ReadLimits blocks;
  blocks.file_blocks_min_bytes = 1;
  blocks.log_block_bytes = 64 << 10;
  blocks.threads = 2;
  for (const ReadLimits& limits : {ReadLimits{}, blocks}) {
    Capture c = load_capture({p}, *grammar, limits);
    ASSERT_EQ(c.runs.size(), 1u);
    ASSERT_TRUE(c.runs[0].tactic);
    EXPECT_EQ(c.runs[0].tactic->tried, lines);
    ASSERT_EQ(c.runs[0].tactic->tactics.size(), kept);
    EXPECT_EQ(c.runs[0].tactic->tactics.front(), "0x0000000000000001");
    EXPECT_EQ(c.runs[0].tactic->tactics.back(), "0x0000000000002710");  // 10,000
  }
  auto r = run_trtlens("summary " + shell_quote(p));
  EXPECT_NE(r.out.find("10050 tactics tried"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(10000 kept)"), std::string::npos) << r.out;
  r = run_trtlens("json " + shell_quote(p));
  EXPECT_NE(r.out.find("\"tactics_tried\": 10050"), std::string::npos);
}
