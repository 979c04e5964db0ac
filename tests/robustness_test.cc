// Bad inputs: every one runs the real binary and must end in a documented outcome -
// a one-line "trtlens: PATH: reason" and exit 2, or a result with a diagnostic - never a
// crash, a hang or unbounded memory. README's robustness table lists the same outcomes.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "test_support.h"

namespace fs = std::filesystem;
using namespace trtlens::test;

namespace {

class Robustness : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/trtlens-robustness-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    tmp_ = templ;
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(tmp_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(tmp_, ec);
  }
  std::string put(const std::string& name, const std::string& bytes) {
    std::string p = (tmp_ / name).string();
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  std::string gz(const std::string& name, const std::string& bytes) {
    return put(name, gzip_bytes(bytes));
  }
  // The one-line input error every bad input ends in.
  static void expect_input_error(const RunResult& r, const std::string& path,
                                 const std::string& reason) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err, "trtlens: " + path + ": " + reason + "\n");
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  // Neither a signal nor a sanitizer abort: 0 (read, with diagnostics) or 2 (input error).
  static void expect_handled(const RunResult& r) {
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << "exit " << r.exit_code << "\n" << r.err;
    EXPECT_EQ(r.err.find("AddressSanitizer"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("runtime error"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << r.err;
  }
  fs::path tmp_;
};

size_t count_lines_starting(const std::string& text, const std::string& head) {
  size_t n = 0, pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    if (text.compare(pos, head.size(), head) == 0) ++n;
    pos = end + 1;
  }
  return n;
}

TEST_F(Robustness, EmptyFile) {
  std::string p = put("empty.log", "");
  expect_input_error(run_trtlens("summary " + shell_quote(p)), p, "empty file");
}

TEST_F(Robustness, BinaryFile) {
  std::string bytes;
  for (int i = 0; i < 4096; ++i) bytes.push_back(char((i * 131 + 7) & 0xff));  // NULs included
  std::string p = put("blob.bin", bytes);
  expect_input_error(run_trtlens("summary " + shell_quote(p)), p,
                     "binary file (not a TensorRT log, JSON export or ONNX model)");
}

TEST_F(Robustness, FiftyMegabyteSingleLineIsCutAndCounted) {
  // A real log with one 50 MB line after its first line: the line is cut at the 8 MiB limit
  // with a warning naming it, the rest is read, and memory stays far below the line size.
  const std::string log = read_file(fixture("capture/build.log"));
  ASSERT_EQ(count_lines_starting(log, "Layer("), 6u);  // the six engine layers of the excerpt
  size_t first = log.find('\n') + 1;
  std::string big = log.substr(0, first) + "[V] [TRT] " + std::string(50u << 20, 'x') + "\n" +
                    log.substr(first);
  std::string p = put("long_line.log", big);
  big.clear();
  big.shrink_to_fit();
  RunResult r = run_trtlens("summary " + shell_quote(p));
  expect_handled(r);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE((r.out + r.err).find(p + ":2: line longer than the line limit; its end was skipped"),
            std::string::npos)
      << r.out << r.err;
  EXPECT_NE(r.out.find("6 layers"), std::string::npos) << r.out;
// Shadow memory counts in RSS. gcc says it is sanitizing with these macros, clang with
// __has_feature.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TRTLENS_TEST_SANITIZED 1
#endif
#endif
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) && \
    !defined(TRTLENS_TEST_SANITIZED)
  // Peak RSS (KiB) from /usr/bin/time: the 50 MB line must not be held whole.
  if (access("/usr/bin/time", X_OK) == 0) {
    std::string rss = (tmp_ / "rss").string();
    std::string cmd = "/usr/bin/time -f %M -o " + shell_quote(rss) + " " +
                      shell_quote(TRTLENS_BINARY) + " summary " + shell_quote(p) +
                      " >/dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    EXPECT_LT(std::stol(read_file(rss)), 64 * 1024) << "KiB";
  }
#endif
}

TEST_F(Robustness, JsonNested100000Deep) {
  const size_t depth = 100000;
  std::string layers = "{\"Layers\": " + std::string(depth, '[') + std::string(depth, ']') + "}";
  std::string p = put("deep_layers.json", layers);
  RunResult r = run_trtlens("summary " + shell_quote(p));
  expect_handled(r);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("trtlens: " + p + ":", 0), 0u) << r.err;
  // Profile JSON: the record scanner is line based; the deep line is not a record.
  std::string profile = "[\n  { \"count\" : 1 }\n, " + std::string(depth, '[') +
                        std::string(depth, ']') + "\n]\n";
  std::string q = put("deep_profile.json", profile);
  r = run_trtlens("summary " + shell_quote(q));
  expect_handled(r);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("trtlens: " + q + ":", 0), 0u) << r.err;
  // Deep nesting inside a record's name is just characters of the name.
  std::string named = "[\n  { \"count\" : 1 }\n, { \"name\" : \"" + std::string(depth, '[') +
                      "\", \"timeMs\" : 1, \"averageMs\" : 1, \"percentage\" : 100 }\n]\n";
  r = run_trtlens("summary " + shell_quote(put("deep_name.json", named)));
  expect_handled(r);
}

TEST_F(Robustness, InvalidUtf8InNamesIsEscapedInEveryOutput) {
  // Text output: bytes that are not UTF-8 are shown as \xNN.
  RunResult r = run_trtlens("layers " + shell_quote(fixture("robustness/invalid_utf8.log")));
  expect_handled(r);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Conv_\\xff\\xfe + Relu_\\x80"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\xff'), std::string::npos);
  // JSON output stays valid UTF-8 (the bad bytes become U+FFFD).
  r = run_trtlens("json " + shell_quote(fixture("robustness/invalid_utf8.log")));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find('\xff'), std::string::npos);
  EXPECT_NE(r.out.find("Conv_\xef\xbf\xbd"), std::string::npos);
  // Layer JSON with invalid UTF-8 inside a string.
  r = run_trtlens("layers " + shell_quote(fixture("robustness/invalid_utf8.json")));
  expect_handled(r);
  if (r.exit_code == 2)
    EXPECT_EQ(r.err.rfind("trtlens: " + fixture("robustness/invalid_utf8.json") + ":", 0), 0u);
  else
    EXPECT_EQ(r.out.find('\xff'), std::string::npos);
  // Profile JSON (read by a byte scanner): the name is kept and escaped.
  r = run_trtlens("profile " + shell_quote(fixture("robustness/invalid_utf8_profile.json")));
  expect_handled(r);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find('\xff'), std::string::npos);
}

TEST_F(Robustness, TruncatedLogMidLineKeepsTheWholeLines) {
  const std::string log = read_file(fixture("capture/build.log"));
  size_t third = log.find("Layer(CudaDepthwiseConvolution)");
  ASSERT_NE(third, std::string::npos);
  std::string p = put("cut.log", log.substr(0, third + 30));  // mid third layer line
  RunResult r = run_trtlens("layers --format csv " + shell_quote(p));
  expect_handled(r);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // The two whole layer lines before the cut, plus the header.
  size_t rows = 0;
  for (char c : r.out) rows += c == '\n';
  EXPECT_GE(rows, 3u) << r.out;
  EXPECT_NE(r.out.find("Conv_0 + PWN(Clip_3)"), std::string::npos) << r.out;
}

TEST_F(Robustness, TruncatedJsonExportsOfEveryKind) {
  const std::string kinds[] = {"core/engine_detailed.json", "time/profile_quote_nan.json",
                               "time/times_84.json"};
  for (const auto& k : kinds) {
    const std::string text = read_file(fixture(k));
    // Every cut point of the first 400 bytes plus a few later ones: none may crash.
    for (size_t n = 1; n < text.size(); n += (n < 400 ? 7 : 97)) {
      std::string p = put("cut.json", text.substr(0, n));
      RunResult r = run_trtlens("summary " + shell_quote(p));
      SCOPED_TRACE(k + " cut at " + std::to_string(n));
      expect_handled(r);
      if (r.exit_code == 2) EXPECT_EQ(r.err.rfind("trtlens: " + p + ":", 0), 0u) << r.err;
    }
  }
  // A layer JSON cut in half is an error naming the file (not a partial engine).
  const std::string layers = read_file(fixture("core/engine_detailed.json"));
  std::string p = put("half.json", layers.substr(0, layers.size() / 2));
  RunResult r = run_trtlens("summary " + shell_quote(p));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("trtlens: " + p + ":", 0), 0u) << r.err;
}

TEST_F(Robustness, TruncatedGzipKeepsWhatArrivedAndSaysSo) {
  const std::string log = read_file(fixture("capture/build.log"));
  std::string whole = gz("whole.log.gz", log);
  std::string bytes = read_file(whole);
  for (size_t n : {size_t(10), bytes.size() / 2, bytes.size() - 4}) {
    std::string p = put("cut.log.gz", bytes.substr(0, n));
    RunResult r = run_trtlens("summary " + shell_quote(p));
    SCOPED_TRACE("gzip cut at " + std::to_string(n));
    expect_handled(r);
    EXPECT_NE((r.out + r.err).find(p), std::string::npos) << r.out << r.err;
  }
  // Cut after the layer block: every layer arrived and is read; the cut is a warning.
  const size_t after_layers = log.find('\n', log.rfind("Layer(")) + 1;
  std::string part = read_file(gz("part.log.gz", log.substr(0, after_layers)));
  std::string p = put("cut.log.gz", part.substr(0, part.size() - 8));  // no gzip trailer
  RunResult whole_run = run_trtlens("layers --format csv " + shell_quote(fixture("capture/build.log")));
  RunResult r = run_trtlens("layers --format csv " + shell_quote(p));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, whole_run.out);
  r = run_trtlens("summary " + shell_quote(p));
  EXPECT_NE(r.out.find("warning: " + p + ":"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gzip stream ends early"), std::string::npos) << r.out;
}

TEST_F(Robustness, TruncatedTarGzBundle) {
  fs::create_directories(tmp_ / "cap");
  fs::copy_file(fixture("capture/build.log"), tmp_ / "cap" / "build.log");
  fs::copy_file(fixture("core/engine_detailed.json"), tmp_ / "cap" / "layers.json");
  std::string cmd = "tar -C " + shell_quote(tmp_.string()) + " -czf " +
                    shell_quote((tmp_ / "cap.tar.gz").string()) + " cap";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::string bytes = read_file((tmp_ / "cap.tar.gz").string());
  for (size_t n : {size_t(20), bytes.size() / 3, bytes.size() * 2 / 3, bytes.size() - 1}) {
    std::string p = put("cut.tar.gz", bytes.substr(0, n));
    RunResult r = run_trtlens("summary " + shell_quote(p));
    SCOPED_TRACE("tar.gz cut at " + std::to_string(n));
    expect_handled(r);
    // Either what arrived is read with a warning naming the archive, or nothing arrived whole.
    EXPECT_NE((r.out + r.err).find("cut.tar.gz"), std::string::npos) << r.out << r.err;
    if (r.exit_code == 2)
      EXPECT_NE(r.err.find("truncated gzip stream"), std::string::npos) << r.err;
  }
}

TEST_F(Robustness, TruncatedOnnxIsAnErrorNamingTheFile) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("g");
  for (int i = 0; i < 20; ++i) {
    auto* n = g->add_node();
    n->set_name("/model/conv_" + std::to_string(i));
    n->set_op_type("Conv");
    n->add_input(i == 0 ? "input" : "t" + std::to_string(i - 1));
    n->add_output("t" + std::to_string(i));
  }
  std::string whole;
  ASSERT_TRUE(m.SerializeToString(&whole));
  std::string ok = put("whole.onnx", whole);
  RunResult r = run_trtlens("provenance " + shell_quote(ok));
  expect_handled(r);
  for (size_t n : {size_t(3), whole.size() / 2, whole.size() - 1}) {
    std::string p = put("cut.onnx", whole.substr(0, n));
    r = run_trtlens("summary " + shell_quote(p));
    SCOPED_TRACE("onnx cut at " + std::to_string(n));
    expect_handled(r);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err.rfind("trtlens: " + p + ":", 0), 0u) << r.err;
  }
}

TEST_F(Robustness, GzipBombIsCappedByMaxInputSize) {
  // 256 MiB of log-shaped text compresses to about 1 MB; the cap is 64 MiB.
  std::string p = (tmp_ / "bomb.log.gz").string();
  std::string cmd = "yes '[V] [TRT] Tactic: 0x0000000000000000 Time: 0.1' | head -c 268435456 | "
                    "gzip -1 > " + shell_quote(p);
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  ASSERT_LT(fs::file_size(p), 8u << 20);
  RunResult r = run_trtlens("summary --max-input-size 64M " + shell_quote(p));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("trtlens: " + p + ":", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("64"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST_F(Robustness, LayerJsonOverMaxInputSizeIsRefused) {
  // A real layer JSON padded past the cap with white space (still valid JSON): refused at the
  // cap, like a log; the reader sizes its buffer from the file only when the file is under it.
  std::string json = read_file(fixture("core/engine_detailed.json"));
  json.append(size_t(2) << 20, ' ');
  std::string p = put("padded.json", json);
  RunResult r = run_trtlens("layers --format csv --max-input-size 1M " + shell_quote(p));
  expect_handled(r);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "trtlens: " + p + ": decoded input exceeds " + std::to_string(1 << 20) +
                       " bytes (raise --max-input-size)\n");
  EXPECT_TRUE(r.out.empty());
  // Under the cap it reads.
  r = run_trtlens("layers --format csv --max-input-size 4M " + shell_quote(p));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("#,name,type,tactic,precision,inputs,outputs\n", 0), 0u) << r.out;
}

TEST_F(Robustness, MissingPath) {
  std::string p = (tmp_ / "no-such.log").string();
  expect_input_error(run_trtlens("summary " + shell_quote(p)), p, "no such file");
}

TEST_F(Robustness, DirectoryThatIsNotABundle) {
  fs::create_directories(tmp_ / "empty");
  std::string e = (tmp_ / "empty").string();
  expect_input_error(run_trtlens("summary " + shell_quote(e)), e,
                     "bundle holds no input trtlens can read");
  fs::create_directories(tmp_ / "junk");
  put("junk/blob.bin", std::string("\x00\x01\x02\x03", 4));
  put("junk/readme.txt", "not a log\n");
  std::string j = (tmp_ / "junk").string();
  RunResult r = run_trtlens("summary " + shell_quote(j));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("trtlens: " + j + ": bundle holds no input trtlens can read\n"),
            std::string::npos)
      << r.err;
}

TEST_F(Robustness, UnreadableFile) {
  if (geteuid() == 0)
    GTEST_SKIP() << "running as root: chmod 000 does not stop root from reading the file";
  std::string p = put("secret.log", read_file(fixture("capture/build.log")));
  ASSERT_EQ(chmod(p.c_str(), 0), 0);
  expect_input_error(run_trtlens("summary " + shell_quote(p)), p, "permission denied");
}

TEST_F(Robustness, StdinClosedEarly) {
  // Nothing at all on stdin.
  expect_input_error(run_trtlens("summary -", "/dev/null"), "-", "empty file");
  // The first 100 bytes of a log through a pipe: a cut first line, no layer yet.
  std::string fifo = (tmp_ / "pipe").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string cmd = "head -c 100 " + shell_quote(fixture("capture/build.log")) + " > " +
                    shell_quote(fifo) + " &";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  RunResult r = run_trtlens("summary -", fifo);
  expect_handled(r);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("no layer listing found"), std::string::npos) << r.out;
}

}  // namespace

namespace {

// Inputs that once crashed an ingester (fuzzing or review), kept under fixtures/fuzz/. Every one
// must load to a result or a one-line input error; manifest_* files are a bundle's manifest.
TEST_F(Robustness, FuzzRegressionsLoad) {
  size_t seen = 0;
  for (const auto& e : fs::directory_iterator(fixture("fuzz"))) {
    const std::string name = e.path().filename().string();
    std::string input = e.path().string();
    if (name.rfind("manifest_", 0) == 0) {
      fs::path b = tmp_ / ("bundle_" + name);
      fs::create_directories(b);
      fs::copy_file(e.path(), b / "manifest.json");
      fs::copy_file(fixture("capture/build.log"), b / "build.log");
      input = b.string();
    }
    RunResult r = run_trtlens("summary " + shell_quote(input));
    SCOPED_TRACE(name);
    expect_handled(r);
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    ++seen;
  }
  EXPECT_GE(seen, 2u);
}

TEST_F(Robustness, JsonNumberOverflowNamesTheLine) {
  // Found by fuzz_layer_json: was `trtlens: internal error: ... number overflow` (exit 3). A
  // tactic no integer holds is a warning on its layer and line; the rest of the file reads.
  const std::string p = fixture("fuzz/layer_json_number_overflow.json");
  RunResult r = run_trtlens("summary " + shell_quote(p));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE((r.out + r.err).find(":2: layer 0 TacticValue 16E66269 is not a tactic number"),
            std::string::npos)
      << r.out << r.err;
}

TEST_F(Robustness, HugeKernelOutputCountIsUnrecognizedNotAnInternalError) {
  // Was `trtlens: internal error: stoll` (exit 3).
  RunResult r = run_trtlens("summary " + shell_quote(fixture("fuzz/kernel_outputs_overflow.log")));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE((r.out + r.err).find(":2: kernel line: numOutputs out of range: 99999999999999999999"),
            std::string::npos)
      << r.out << r.err;
}

TEST_F(Robustness, NonStringManifestStatusIsIgnored) {
  // Was `trtlens: internal error: [json.exception.type_error.302] ...` (exit 3).
  fs::create_directories(tmp_ / "b");
  fs::copy_file(fixture("fuzz/manifest_status_number.json"), tmp_ / "b" / "manifest.json");
  fs::copy_file(fixture("capture/build.log"), tmp_ / "b" / "build.log");
  RunResult r = run_trtlens("summary " + shell_quote((tmp_ / "b").string()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("6 layers"), std::string::npos) << r.out;
}

}  // namespace
