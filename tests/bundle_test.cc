// Capture bundles: directories and tar / tar.gz archives as inputs, with and without
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
  // Nothing is extracted to disk: $TMPDIR stays empty.
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
  // libarchive hands out a member only when its blocks arrived: the cut one is empty.
  EXPECT_TRUE(has_diag(c, "archive is cut short inside 'cap/layers.json' (0 of")) << diags(c);
  ASSERT_EQ(c.builds.size(), 1u) << diags(c);
  EXPECT_EQ(c.builds[0].layers.size(), layer_lines_);
}

TEST_F(BundleTest, TruncatedGzipIsADiagnosticNotACrash) {
  make_bundle("cap");
  ASSERT_EQ(sh("cd " + shell_quote(tmp_.string()) + " && tar cf - cap | gzip -c > cap.tar.gz"), 0);
  fs::resize_file(tmp_ / "cap.tar.gz", fs::file_size(tmp_ / "cap.tar.gz") / 2);
  RunResult r = run_trtlens("json " + shell_quote((tmp_ / "cap.tar.gz").string()));
  EXPECT_NE(r.exit_code, -1);
  EXPECT_TRUE(r.out.find("damaged archive") != std::string::npos ||
              r.err.find("damaged archive") != std::string::npos ||
              r.out.find("archive is cut short") != std::string::npos ||
              r.err.find("archive is cut short") != std::string::npos)
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

// libarchive is opened when an archive is read, and only then: linked, it and the libraries it
// pulls in cost every run its start-up time.
TEST_F(BundleTest, LibarchiveIsLoadedOnlyToReadAnArchive) {
  fs::path b = make_bundle("cap");
  ASSERT_EQ(sh("cd " + shell_quote(tmp_.string()) + " && tar cf cap.tar cap"), 0);
  // How often the dynamic loader started libarchive (LD_DEBUG=files, on stderr).
  auto loads = [](const std::string& input) {
    // In a subshell: the input redirection run_trtlens appends would otherwise give grep
    // /dev/null instead of the pipe.
    return run_trtlens("--version >/dev/null; (LD_DEBUG=files " + shell_quote(TRTLENS_BINARY) +
                       " summary " + shell_quote(input) +
                       " 2>&1 >/dev/null | grep -c 'calling init: .*/libarchive[.]so')")
        .out;
  };
  EXPECT_EQ(loads(fixture("seed000_int8.log")), "0\n");
  EXPECT_EQ(loads(b.string()), "0\n");
  EXPECT_EQ(loads((tmp_ / "cap.tar").string()), "1\n");
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

// Archives as libarchive writes them (zip, tar.zst as Windows and other targets make them), and
// members that must be skipped. Written with libarchive's writer: no zip or zstd tool needed.
#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

struct Member {
  std::string name;
  std::string data;
  unsigned type = AE_IFREG;
  std::string link;  // symlink target / hard link source
};

void write_archive(const fs::path& path, const std::string& format, const std::string& filter,
                   const std::vector<Member>& members) {
  archive* a = archive_write_new();
  if (format == "zip")
    archive_write_set_format_zip(a);
  else
    archive_write_set_format_pax_restricted(a);
  if (filter == "zstd") archive_write_add_filter_zstd(a);
  if (filter == "gzip") archive_write_add_filter_gzip(a);
  ASSERT_EQ(archive_write_open_filename(a, path.c_str()), ARCHIVE_OK) << archive_error_string(a);
  for (const auto& m : members) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, m.name.c_str());
    archive_entry_set_filetype(e, m.type);
    archive_entry_set_perm(e, 0644);
    if (m.type == AE_IFLNK) archive_entry_set_symlink(e, m.link.c_str());
    if (m.type == AE_IFREG && !m.link.empty()) archive_entry_set_hardlink(e, m.link.c_str());
    archive_entry_set_size(e, m.type == AE_IFREG && m.link.empty() ? la_int64_t(m.data.size()) : 0);
    archive_write_header(a, e);
    if (m.type == AE_IFREG && m.link.empty()) archive_write_data(a, m.data.data(), m.data.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
}

class ArchiveTest : public BundleTest {
 protected:
  std::vector<Member> bundle_members(const std::string& dir) {
    std::vector<Member> ms;
    for (const char* f : {"build.log", "layers.json"})
      ms.push_back({dir + "/" + f, read_file(fixture(std::string("capture/") + f))});
    return ms;
  }
};

TEST_F(ArchiveTest, ZipAndTarZstdAreReadInMemory) {
  fs::create_directories(tmp_ / "scratch");
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  setenv("TMPDIR", (tmp_ / "scratch").c_str(), 1);
  for (auto [name, format, filter] :
       {std::tuple{"cap.zip", "zip", ""}, std::tuple{"cap.tar.zst", "tar", "zstd"}}) {
    write_archive(tmp_ / name, format, filter, bundle_members("cap"));
    Capture c = load({(tmp_ / name).string()});
    ASSERT_EQ(c.builds.size(), 1u) << name << "\n" << diags(c);
    EXPECT_EQ(c.builds[0].layers.size(), layer_lines_) << name;
    // layers.json enriched the log's listing: its tactic names arrived.
    EXPECT_EQ(c.builds[0].layers[1].tactic_name, "handmade_int8_fprop_3x3_tile128x64") << name;
    EXPECT_EQ(c.inputs[0].path, (tmp_ / name).string() + ":cap/build.log");
  }
  if (old)
    setenv("TMPDIR", saved.c_str(), 1);
  else
    unsetenv("TMPDIR");
  EXPECT_TRUE(fs::is_empty(tmp_ / "scratch"));
}

TEST_F(ArchiveTest, ArchiveOverTheInputLimitIsAnInputError) {
  // 4 MiB of log lines compress to a few KiB; a 1M limit refuses the archive as input error.
  std::string big;
  const std::string line = "[02/08/2023-15:25:35] [V] [TRT] Searching for input: 660\n";
  while (big.size() < (size_t{4} << 20)) big += line;
  write_archive(tmp_ / "big.tar.gz", "tar", "gzip", {{"b/build.log", big}});
  ASSERT_LT(fs::file_size(tmp_ / "big.tar.gz"), size_t{1} << 20);
  RunResult r =
      run_trtlens("summary --max-input-size 1M " + shell_quote((tmp_ / "big.tar.gz").string()));
  EXPECT_EQ(r.exit_code, 2);
  // Like a plain .gz over the limit (the gzip layer is decoded first).
  EXPECT_EQ(r.err, "trtlens: " + (tmp_ / "big.tar.gz").string() + ": decoded input exceeds " +
                       std::to_string(1 << 20) + " bytes (raise --max-input-size)\n");
  // zstd is decoded by libarchive: the members' total is what is bounded.
  write_archive(tmp_ / "big.tar.zst", "tar", "zstd", {{"b/build.log", big}});
  r = run_trtlens("summary --max-input-size 1M " + shell_quote((tmp_ / "big.tar.zst").string()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "trtlens: " + (tmp_ / "big.tar.zst").string() +
                       ": archive decodes to more than " + std::to_string(1 << 20) +
                       " bytes (raise --max-input-size)\n");
}

TEST_F(ArchiveTest, EverySkippedMemberIsNamedWithItsReason) {
  auto ms = bundle_members("cap");
  ms.push_back({"cap/link.log", "", AE_IFLNK, "/etc/passwd"});
  ms.push_back({"cap/hard.log", "", AE_IFREG, "cap/build.log"});
  ms.push_back({"cap/fifo", "", AE_IFIFO});
  ms.push_back({"cap/dev", "", AE_IFCHR});
  ms.push_back({"../up.log", "x"});
  ms.push_back({"/abs.log", "x"});
  write_archive(tmp_ / "s.tar", "tar", "", ms);
  Capture c = load({(tmp_ / "s.tar").string()});
  const std::string p = (tmp_ / "s.tar").string() + ": member '";
  EXPECT_TRUE(has_diag(c, p + "cap/link.log' is a symbolic link; skipped")) << diags(c);
  EXPECT_TRUE(has_diag(c, p + "cap/hard.log' is a hard link; skipped")) << diags(c);
  EXPECT_TRUE(has_diag(c, p + "cap/fifo' is a FIFO; skipped")) << diags(c);
  EXPECT_TRUE(has_diag(c, p + "cap/dev' is a character device; skipped")) << diags(c);
  EXPECT_TRUE(has_diag(c, p + "../up.log' has an unsafe path; skipped")) << diags(c);
  EXPECT_TRUE(has_diag(c, p + "/abs.log' has an unsafe path; skipped")) << diags(c);
  ASSERT_EQ(c.builds.size(), 1u);
  EXPECT_EQ(c.builds[0].layers.size(), layer_lines_);
}

TEST_F(ArchiveTest, ABundleOfOnlySkippedMembersSaysSo) {
  write_archive(tmp_ / "only.tar", "tar", "",
                {{"cap/link.log", "", AE_IFLNK, "/etc/passwd"}, {"../up.log", "x"}});
  RunResult r = run_trtlens("summary " + shell_quote((tmp_ / "only.tar").string()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("only.tar: bundle holds no input trtlens can read (all of its 2 member(s) "
                       "that could be inputs were skipped for safety)"),
            std::string::npos)
      << r.err;
}

TEST_F(ArchiveTest, ManifestEntriesPointingOutsideAreNamed) {
  fs::path b = make_bundle("cap");
  write(b / "manifest.json",
        "{\"files\": [{\"path\": \"../../etc/passwd\", \"kind\": \"build-log\"},"
        " {\"path\": \"/etc/passwd\", \"kind\": \"build-log\"},"
        " {\"path\": \"build.log\", \"kind\": \"build-log\"}, {\"path\": 7}]}");
  Capture c = load({b.string()});
  EXPECT_TRUE(has_diag(c, "unsafe path '../../etc/passwd' in the file list; ignored")) << diags(c);
  EXPECT_TRUE(has_diag(c, "unsafe path '/etc/passwd' in the file list; ignored")) << diags(c);
  EXPECT_TRUE(has_diag(c, "a \"files\" entry without a path (a string); ignored")) << diags(c);
  ASSERT_EQ(c.builds.size(), 1u);
}

TEST_F(ArchiveTest, DirectoryMembersThatAreNotFilesAreNamed) {
  fs::path b = make_bundle("cap", false);
  fs::create_symlink("/etc/passwd", b / "out.log");
  ASSERT_EQ(::mkfifo((b / "pipe.log").c_str(), 0600), 0);
  Capture c = load({b.string()});
  EXPECT_TRUE(has_diag(c, "out.log: is a symbolic link leading out of the bundle; skipped"))
      << diags(c);
  EXPECT_TRUE(has_diag(c, "pipe.log: is a FIFO; skipped")) << diags(c);
  ASSERT_EQ(c.builds.size(), 1u);
}

TEST_F(ArchiveTest, ADirectoryOfOtherThingsIsNotCrawled) {
  // A log deep inside unrelated files (a temp or home directory): refused with the reason.
  fs::create_directories(tmp_ / "home/projects/a/b");
  write(tmp_ / "home/notes.txt", "shopping list\n");
  fs::copy_file(fixture("capture/build.log"), tmp_ / "home/projects/a/b/build.log");
  RunResult r = run_trtlens("summary " + shell_quote((tmp_ / "home").string()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("home: not a capture bundle: no manifest.json and no TensorRT output "
                       "files at its top"),
            std::string::npos)
      << r.err;
  // Depth is bounded: a bundle's files more than four directories down are not searched.
  fs::path deep = tmp_ / "deep";
  fs::copy_file(fixture("capture/build.log"), (fs::create_directories(deep), deep / "build.log"));
  fs::create_directories(deep / "1/2/3/4/5");
  fs::copy_file(fixture("capture/runtime.log"), deep / "1/2/3/4/5/runtime.log");
  Capture c = load({deep.string()});
  EXPECT_TRUE(has_diag(c, "deeper than 4 directories below the bundle; not searched")) << diags(c);
  EXPECT_EQ(c.inputs.size(), 1u);
}

TEST_F(ArchiveTest, ModelThatIsNotProtobufIsDiagnosed) {
  fs::path b = make_bundle("cap", false);
  write(b / "model.onnx", "this is not a model\n");
  Capture c = load({b.string()});
  EXPECT_TRUE(has_diag(c, "model.onnx: named as an ONNX model but is not one")) << diags(c);
}

}  // namespace
