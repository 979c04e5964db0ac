// Capture bundles (issue 9): directories and tar / tar.gz archives as inputs, with and without
// manifest.json, and damaged or partial bundles.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>

#include "io/input.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace trtlens;
using namespace trtlens::test;

namespace {

class BundleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/trtlens-bundle-test-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    tmp_ = templ;
    layer_lines_ = count_matches(fixture("capture/build.log"), "^Layer\\(");
    ASSERT_EQ(layer_lines_, 6u);  // the seed-000 excerpt: six engine layers
  }
  void TearDown() override { fs::remove_all(tmp_); }

  static size_t count_matches(const std::string& path, const std::string& re) {
    std::ifstream f(path);
    std::string line;
    size_t n = 0;
    const std::regex r(re);
    while (std::getline(f, line)) n += std::regex_search(line, r) ? 1 : 0;
    return n;
  }
  static void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
  }
  // A bundle as trtlens-capture lays it out, from the replay fixtures.
  fs::path make_bundle(const std::string& name, bool manifest = true) {
    fs::path b = tmp_ / name;
    fs::create_directories(b / "env");
    for (const char* f : {"build.log", "layers.json", "runtime.log", "profile.json", "times.json"})
      fs::copy_file(fixture(std::string("capture/") + f), b / f);
    write(b / "env/uname.txt", "Linux orin 5.10.120-tegra #1 SMP PREEMPT aarch64 GNU/Linux\n");
    if (manifest) {
      auto size = [&](const char* f) { return std::to_string(fs::file_size(b / f)); };
      write(
          b / "manifest.json",
          std::string("{\"schema\": \"trtlens-bundle/1\", \"status\": \"ok\", \"files\": [\n") +
              "{\"path\": \"build.log\", \"kind\": \"build-log\", \"size\": " + size("build.log") +
              "},\n" + "{\"path\": \"layers.json\", \"kind\": \"layer-json\", \"size\": " +
              size("layers.json") + "},\n" +
              "{\"path\": \"runtime.log\", \"kind\": \"runtime-log\"},\n" +
              "{\"path\": \"profile.json\", \"kind\": \"profile-json\"},\n" +
              "{\"path\": \"times.json\", \"kind\": \"times-json\"},\n" +
              "{\"path\": \"env/uname.txt\", \"kind\": \"env\"}]}\n");
    }
    return b;
  }
  static bool has_diag(const Capture& c, const std::string& needle) {
    for (const auto& d : c.diagnostics)
      if ((d.where.path + ": " + d.message).find(needle) != std::string::npos) return true;
    return false;
  }
  static std::string diags(const Capture& c) {
    std::string s;
    for (const auto& d : c.diagnostics) s += d.where.path + ": " + d.message + "\n";
    return s;
  }
  int sh(const std::string& cmd) { return std::system(cmd.c_str()); }

  fs::path tmp_;
  size_t layer_lines_ = 0;
};

TEST_F(BundleTest, DirectoryWithManifestLoadsLogAndEnrichingLayerJson) {
  fs::path b = make_bundle("cap");
  Capture c = load({b.string()});
  ASSERT_EQ(c.builds.size(), 1u) << diags(c);
  EXPECT_EQ(c.builds[0].layers.size(), layer_lines_);
  // The hand-made layer JSON names the tactic of Conv_0 + PWN(Clip_3); the log does not.
  EXPECT_EQ(c.builds[0].layers[1].name, "Conv_0 + PWN(Clip_3)");
  EXPECT_EQ(c.builds[0].layers[1].tactic_name, "handmade_int8_fprop_3x3_tile128x64");
  // Inputs are named inside the bundle; env files are not ingested.
  std::vector<std::string> paths;
  for (const auto& in : c.inputs) paths.push_back(in.path);
  EXPECT_EQ(paths, (std::vector<std::string>{b.string() + "/build.log", b.string() + "/layers.json",
                                             b.string() + "/runtime.log", b.string() + "/profile.json",
                                             b.string() + "/times.json"}));
  // The profile joins the layers of the build by name.
  EXPECT_TRUE(c.builds[0].profile.present) << diags(c);
}

TEST_F(BundleTest, ManifestReportsMissingAndCutShortFiles) {
  fs::path b = make_bundle("partial");
  fs::remove(b / "layers.json");
  std::string log = read_file((b / "build.log").string());
  write(b / "build.log", log.substr(0, log.size() - 200));  // an interrupted copy
  Capture c = load({b.string()});
  EXPECT_TRUE(has_diag(c, "layers.json: listed in manifest.json but missing")) << diags(c);
  EXPECT_TRUE(has_diag(c, "build.log: is " + std::to_string(log.size() - 200) +
                              " bytes but manifest.json says " + std::to_string(log.size())))
      << diags(c);
}

TEST_F(BundleTest, FailedCaptureIsReported) {
  fs::path b = make_bundle("failed", false);
  write(b / "manifest.json",
        "{\"status\": \"failed\", \"runs\": [{\"role\": \"build\", \"exit_code\": 1}],"
        " \"files\": [{\"path\": \"build.log\", \"kind\": \"build-log\"}]}");
  Capture c = load({b.string()});
  EXPECT_TRUE(has_diag(c, "status \"failed\"")) << diags(c);
  EXPECT_TRUE(has_diag(c, "trtexec build run exited with code 1")) << diags(c);
}

TEST_F(BundleTest, WithoutManifestFilesAreSniffed) {
  fs::path b = make_bundle("sniffed", false);
  Capture c = load({b.string()});
  ASSERT_EQ(c.builds.size(), 1u) << diags(c);
  EXPECT_EQ(c.builds[0].layers[1].tactic_name, "handmade_int8_fprop_3x3_tile128x64");
  for (const auto& in : c.inputs) EXPECT_EQ(in.path.find("uname"), std::string::npos) << in.path;
  EXPECT_EQ(c.inputs.size(), 5u);  // build.log, layers.json, runtime.log, profile.json, times.json
}

TEST_F(BundleTest, BadManifestFallsBackToSniffing) {
  fs::path b = make_bundle("badmanifest", false);
  write(b / "manifest.json", "{\"files\": [ {\"path\": ");
  Capture c = load({b.string()});
  EXPECT_TRUE(has_diag(c, "manifest.json: not a bundle manifest")) << diags(c);
  ASSERT_EQ(c.builds.size(), 1u);
  EXPECT_EQ(c.builds[0].layers.size(), layer_lines_);
}

TEST_F(BundleTest, TarGzRoundTripsWithNamesInsideTheArchive) {
  make_bundle("cap");
  ASSERT_EQ(sh("cd " + shell_quote(tmp_.string()) + " && tar cf - cap | gzip -c > cap.tar.gz"), 0);
  const std::string archive = (tmp_ / "cap.tar.gz").string();
  // Extraction goes to $TMPDIR; point it at a directory of our own to see it cleaned up.
  fs::create_directories(tmp_ / "scratch");
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  setenv("TMPDIR", (tmp_ / "scratch").c_str(), 1);
  Capture c = load({archive});
  if (old)
    setenv("TMPDIR", saved.c_str(), 1);
  else
    unsetenv("TMPDIR");
  EXPECT_TRUE(fs::is_empty(tmp_ / "scratch"));
  ASSERT_EQ(c.builds.size(), 1u) << diags(c);
  EXPECT_EQ(c.builds[0].layers.size(), layer_lines_);
  EXPECT_EQ(c.builds[0].layers[1].tactic_name, "handmade_int8_fprop_3x3_tile128x64");
  ASSERT_FALSE(c.inputs.empty());
  EXPECT_EQ(c.inputs[0].path, archive + ":cap/build.log");
}

TEST_F(BundleTest, GnuLongNamesInTar) {
  const std::string longname(120, 'n');
  make_bundle(longname);
  ASSERT_EQ(
      sh("cd " + shell_quote(tmp_.string()) + " && tar --format=gnu -cf long.tar " + longname), 0);
  Capture c = load({(tmp_ / "long.tar").string()});
  ASSERT_EQ(c.builds.size(), 1u) << diags(c);
  EXPECT_EQ(c.inputs[0].path, (tmp_ / "long.tar").string() + ":" + longname + "/build.log");
}

TEST_F(BundleTest, TruncatedArchiveKeepsWhatArrived) {
  make_bundle("cap");
  ASSERT_EQ(sh("cd " + shell_quote(tmp_.string()) +
               " && tar cf cap.tar cap/manifest.json cap/build.log cap/layers.json"),
            0);
  // Cut inside layers.json: header(512) + manifest + build.log come first, each padded to 512.
  auto padded = [&](const char* f) { return (fs::file_size(tmp_ / "cap" / f) + 511) / 512 * 512; };
  const uint64_t cut = 3 * 512 + padded("manifest.json") + padded("build.log") + 100;
  fs::resize_file(tmp_ / "cap.tar", cut);
  Capture c = load({(tmp_ / "cap.tar").string()});
  EXPECT_TRUE(has_diag(c, "archive is cut short inside 'cap/layers.json' (100 of")) << diags(c);
  ASSERT_EQ(c.builds.size(), 1u) << diags(c);
  EXPECT_EQ(c.builds[0].layers.size(), layer_lines_);
}

TEST_F(BundleTest, TruncatedGzipIsADiagnosticNotACrash) {
  make_bundle("cap");
  ASSERT_EQ(sh("cd " + shell_quote(tmp_.string()) + " && tar cf - cap | gzip -c > cap.tar.gz"), 0);
  fs::resize_file(tmp_ / "cap.tar.gz", fs::file_size(tmp_ / "cap.tar.gz") / 2);
  RunResult r = run_trtlens("json " + shell_quote((tmp_ / "cap.tar.gz").string()));
  EXPECT_NE(r.exit_code, -1);
  EXPECT_TRUE(r.out.find("damaged archive: truncated gzip stream") != std::string::npos ||
              r.err.find("damaged archive: truncated gzip stream") != std::string::npos)
      << r.out << r.err;
}

// A ustar header written by hand: checks the reader against the format, not against GNU tar.
std::string ustar_member(const std::string& name, const std::string& data, char type = '0') {
  std::string h(512, '\0');
  name.copy(h.data(), std::min<size_t>(name.size(), 100));
  std::snprintf(h.data() + 100, 8, "%07o", 0644);
  std::snprintf(h.data() + 124, 12, "%011o", unsigned(data.size()));
  std::snprintf(h.data() + 136, 12, "%011o", 0u);
  h[156] = type;
  std::memcpy(h.data() + 257,
              "ustar\0"
              "00",
              8);
  std::memset(h.data() + 148, ' ', 8);
  unsigned sum = 0;
  for (unsigned char ch : h) sum += ch;
  std::snprintf(h.data() + 148, 8, "%06o", sum);
  std::string body = data;
  body.resize((data.size() + 511) / 512 * 512, '\0');
  return h + body;
}

TEST_F(BundleTest, HandWrittenUstarWithUnsafeMemberIsSkipped) {
  const std::string log = read_file(fixture("seed000_int8.log"));
  std::string tar = ustar_member("../escape.log", log) + ustar_member("b/build.log", log) +
                    std::string(1024, '\0');
  write(tmp_ / "h.tar", tar);
  Capture c = load({(tmp_ / "h.tar").string()});
  EXPECT_TRUE(has_diag(c, "member '../escape.log' has an unsafe path; skipped")) << diags(c);
  EXPECT_FALSE(fs::exists(tmp_.parent_path() / "escape.log"));
  ASSERT_EQ(c.inputs.size(), 1u);
  EXPECT_EQ(c.inputs[0].path, (tmp_ / "h.tar").string() + ":b/build.log");
  ASSERT_EQ(c.builds.size(), 1u);
  EXPECT_EQ(c.builds[0].layers.size(), count_matches(fixture("seed000_int8.log"), "^Layer\\("));
}

TEST_F(BundleTest, BadChecksumIsDamageAndAnEmptyBundleIsAnError) {
  std::string tar = ustar_member("b/build.log", read_file(fixture("seed000_int8.log")));
  tar[0] = 'X';  // the name changes, the stored checksum does not
  write(tmp_ / "bad.tar", tar + std::string(1024, '\0'));
  RunResult r = run_trtlens("summary " + shell_quote((tmp_ / "bad.tar").string()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.tar: bundle holds no input trtlens can read"), std::string::npos)
      << r.err;
}

TEST_F(BundleTest, CliReadsADirectoryBundle) {
  fs::path b = make_bundle("cap");
  RunResult r = run_trtlens("summary " + shell_quote(b.string() + "/"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(std::to_string(layer_lines_) + " layers"), std::string::npos) << r.out;
  fs::create_directories(tmp_ / "empty");
  r = run_trtlens("summary " + shell_quote((tmp_ / "empty").string()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bundle holds no input trtlens can read"), std::string::npos) << r.err;
}

}  // namespace

namespace {

// Every cut of an archive is either read (with diagnostics) or refused with an InputError:
// never a crash, a hang or another exception.
TEST_F(BundleTest, EveryTruncationOfAnArchiveIsHandled) {
  make_bundle("cap");
  ASSERT_EQ(sh("cd " + shell_quote(tmp_.string()) +
               " && tar cf cap.tar cap/manifest.json cap/build.log cap/layers.json"
               " && gzip -c cap.tar > cap.tar.gz"),
            0);
  for (const char* name : {"cap.tar", "cap.tar.gz"}) {
    const std::string whole = read_file((tmp_ / name).string());
    size_t read_ok = 0, refused = 0;
    for (size_t cut = 0; cut < whole.size(); cut += 97) {
      write(tmp_ / "cut", whole.substr(0, cut));
      try {
        Capture c = load({(tmp_ / "cut").string()});
        ++read_ok;
        EXPECT_FALSE(c.diagnostics.empty()) << name << " cut at " << cut;
      } catch (const InputError&) {
        ++refused;
      }
    }
    EXPECT_GT(read_ok, 0u) << name;
    EXPECT_GT(refused, 0u) << name;
  }
}

}  // namespace
