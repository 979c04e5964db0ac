// The store (`trtlens db`): the real binary and real SQLite on the corpus engines. Expected
// figures are computed here from the corpus files with a few lines of independent code.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "io/digest.h"
#include "store/sqlite.h"
#include "test_support.h"

namespace trtlens::test {
namespace {

namespace fs = std::filesystem;

// The five A100 ResNet builds of the corpus, in the order `db add` files a directory of them.
const std::vector<std::string> kA100 = {"fp16", "fp32", "qat", "qat-residual",
                                        "qat-residual-qgap"};

std::string a100_dir() {
  return shared_dir() + "/corpus/trex/examples/pytorch/resnet/A100";
}

std::string only_file_ending(const std::string& dir, const std::string& tail) {
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string n = e.path().filename().string();
    if (n.size() > tail.size() && n.compare(n.size() - tail.size(), tail.size(), tail) == 0)
      return e.path().string();
  }
  return "";
}

// trtexec's median of latencyMs (mean of the middle two when even), from the raw trace.
double median_latency(const std::string& dir) {
  std::ifstream f(only_file_ending(dir, ".timing.json"));
  auto j = nlohmann::json::parse(f);
  std::vector<double> v;
  for (const auto& r : j) v.push_back(r["latencyMs"].get<double>());
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

size_t layer_count(const std::string& dir) {
  std::ifstream f(only_file_ending(dir, ".graph.json"));
  return nlohmann::json::parse(f)["Layers"].size();
}

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/trtlens-store-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

nlohmann::json query_json(const std::string& db, const std::string& sql) {
  RunResult r = run_trtlens("db query " + shell_quote(db) + " " + shell_quote(sql) +
                            " --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(Store, AddsEachCaptureOnceWithFiguresFromTheCorpus) {
  TRTLENS_REQUIRE_SHARED();
  TempDir tmp;
  const std::string db = tmp / "builds.db";
  RunResult first = run_trtlens("db add " + shell_quote(db) + " " + shell_quote(a100_dir()) +
                                " --label model=resnet --label target=A100");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("5 added, 0 already stored, 0 failed"), std::string::npos)
      << first.out;

  // The same captures again: nothing new.
  RunResult again = run_trtlens("db add -q " + shell_quote(db) + " " + shell_quote(a100_dir()));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("0 added, 5 already stored"), std::string::npos) << again.out;
  EXPECT_EQ(query_json(db, "SELECT count(*) AS n FROM captures")[0]["n"], 5);

  auto rows = query_json(db,
                         "SELECT c.source, b.layers, b.latency_median_ms, b.latency_source "
                         "FROM builds b JOIN captures c ON c.id = b.capture_id "
                         "WHERE b.final = 1 ORDER BY c.id");
  ASSERT_EQ(rows.size(), kA100.size());
  for (size_t i = 0; i < kA100.size(); ++i) {
    const std::string dir = a100_dir() + "/" + kA100[i];
    SCOPED_TRACE(dir);
    EXPECT_EQ(rows[i]["source"], dir);
    EXPECT_EQ(rows[i]["layers"].get<size_t>(), layer_count(dir));
    EXPECT_EQ(rows[i]["latency_source"], "times");
    EXPECT_NEAR(rows[i]["latency_median_ms"].get<double>(), median_latency(dir), 1e-9);
  }
  // Every layer row of a build is there, in engine order.
  auto n = query_json(db,
                      "SELECT count(*) AS n FROM layers l JOIN builds b ON b.id = l.build_id "
                      "JOIN captures c ON c.id = b.capture_id WHERE c.source LIKE '%/fp16'");
  EXPECT_EQ(n[0]["n"].get<size_t>(), layer_count(a100_dir() + "/fp16"));
}

TEST(Store, TrendFollowsTheStoredOrderAndGatesOnThePreviousBuild) {
  TRTLENS_REQUIRE_SHARED();
  TempDir tmp;
  const std::string db = tmp / "builds.db";
  // Dated in the order fp32, fp16, qat: the order a team would have built them in.
  const std::vector<std::pair<std::string, std::string>> order = {
      {"fp32", "2026-01-01"}, {"fp16", "2026-01-02"}, {"qat", "2026-01-03"}};
  for (const auto& [dir, date] : order) {
    RunResult r = run_trtlens("db add -q " + shell_quote(db) + " " +
                              shell_quote(a100_dir() + "/" + dir) +
                              " --label model=resnet --label target=A100 --label date=" + date);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  RunResult r = run_trtlens("db trend " + shell_quote(db) +
                            " --model resnet --metric latency --format json --jump 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["points"].size(), 3u);
  std::vector<double> want;
  for (const auto& [dir, date] : order) want.push_back(median_latency(a100_dir() + "/" + dir));
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(j["points"][i]["date"], order[i].second);
    EXPECT_NEAR(j["points"][i]["value"].get<double>(), want[i], 1e-9);
  }
  EXPECT_TRUE(j["points"][0]["change_percent"].is_null());
  EXPECT_NEAR(j["points"][1]["change_percent"].get<double>(),
              (want[1] - want[0]) / want[0] * 100, 1e-9);
  // FP32 -> FP16 changes time a lot: the jump lists layer changes.
  ASSERT_FALSE(j["jumps"].empty());
  EXPECT_FALSE(j["jumps"][0]["changes"].empty());

  // The gate compares the newest build with the one before it.
  const double rise = (want[2] - want[1]) / want[1] * 100;
  const double tight = std::max(0.0, rise - 0.5), loose = std::fabs(rise) + 0.5;
  RunResult gate_tight = run_trtlens("db trend " + shell_quote(db) +
                                     " --model resnet --fail-on latency:+" +
                                     std::to_string(tight) + "%");
  RunResult gate_loose = run_trtlens("db trend " + shell_quote(db) +
                                     " --model resnet --fail-on latency:+" +
                                     std::to_string(loose) + "%");
  EXPECT_EQ(gate_loose.exit_code, 0) << gate_loose.out << gate_loose.err;
  EXPECT_EQ(gate_tight.exit_code, rise >= tight ? 1 : 0) << gate_tight.out << gate_tight.err;

  // The SVG chart is one standalone picture with a point per build.
  RunResult svg = run_trtlens("db trend " + shell_quote(db) + " --model resnet --format svg");
  ASSERT_EQ(svg.exit_code, 0) << svg.err;
  EXPECT_EQ(svg.out.rfind("<svg", 0), 0u);
  size_t circles = 0;
  for (size_t p = svg.out.find("<circle"); p != std::string::npos;
       p = svg.out.find("<circle", p + 1))
    ++circles;
  EXPECT_EQ(circles, 3u);
}

TEST(Store, ConcurrentWritersLoseNothing) {
  TRTLENS_REQUIRE_SHARED();
  TempDir tmp;
  const std::string db = tmp / "builds.db";
  std::string a, b;
  for (size_t i = 0; i < kA100.size(); ++i) {
    std::string p = " " + shell_quote(a100_dir() + "/" + kA100[i]);
    (i % 2 ? a : b) += p;
    if (i == 0) a += p;  // one capture given to both writers
  }
  const std::string bin = shell_quote(TRTLENS_BINARY);
  // Both writers' exit statuses count (a bare `wait` would hide the first one's).
  const std::string cmd = "(" + bin + " db add -q " + shell_quote(db) + a + " & p=$!; " + bin +
                          " db add -q " + shell_quote(db) + b +
                          "; b=$?; wait $p; exit $(($? | b))) >/dev/null";
  int rc = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  ASSERT_EQ(WEXITSTATUS(rc), 0);
  EXPECT_EQ(query_json(db, "SELECT count(*) AS n FROM captures")[0]["n"], 5);
  EXPECT_EQ(query_json(db, "SELECT count(DISTINCT content_hash) AS n FROM captures")[0]["n"], 5);
}

// SQLite refuses a connection that has read and then asks for the write lock while another
// connection holds it at once, without the busy timeout (waiting could deadlock); switching the
// journal mode is such a request. Two `db add` on a new store meet it when one switches to WAL
// while the other checks the schema in its write transaction.
TEST(Store, JournalModeSwitchWaitsForAnotherWriter) {
  TempDir tmp;
  const std::string path = tmp / "rollback.db";
  sql::Db holder(path, sql::Db::Mode::ReadWriteCreate);
  holder.exec("CREATE TABLE t (x)");
  sql::Db switcher(path, sql::Db::Mode::ReadWriteCreate);
  holder.exec("BEGIN IMMEDIATE");
  try {
    switcher.exec("PRAGMA journal_mode = WAL");
    ADD_FAILURE() << "SQLite switched the journal mode while another connection wrote";
  } catch (const sql::Error& e) {
    EXPECT_EQ(e.code() & 0xff, SQLITE_BUSY) << e.what();
  }
  const auto start = std::chrono::steady_clock::now();
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    holder.exec("COMMIT");
  });
  EXPECT_NO_THROW(switcher.exec_upgrading("PRAGMA journal_mode = WAL"));
  release.join();
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(300));
  sql::Stmt mode(switcher, "PRAGMA journal_mode");
  ASSERT_TRUE(mode.step());
  EXPECT_EQ(mode.text(0), "wal");
}

TEST(Store, ForeignAndDamagedFilesAreRefused) {
  TempDir tmp;
  const std::string text = tmp / "notes.txt";
  std::ofstream(text) << "not a database at all\n";
  RunResult r = run_trtlens("db query " + shell_quote(text) + " 'SELECT 1'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("trtlens: " + text + ": "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not a database"), std::string::npos) << r.err;

  const std::string other = tmp / "other.db";
  {
    sql::Db d(other, sql::Db::Mode::ReadWriteCreate);
    d.exec("CREATE TABLE songs (title TEXT)");
  }
  r = run_trtlens("db add " + shell_quote(other) + " " + shell_quote(fixture("seed000_int8.log")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("another program"), std::string::npos) << r.err;

  r = run_trtlens("db query " + shell_quote(tmp / "missing.db") + " 'SELECT 1'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(fs::exists(tmp / "missing.db"));
}

TEST(Store, QueriesOnlyReadAndNamesAreStoredVerbatim) {
  TempDir tmp;
  const std::string db = tmp / "builds.db";
  // A layer name that would break a statement built by splicing text.
  const std::string evil = "conv'); DROP TABLE layers; -- \"x\" \xe5\x90\x8d";
  const std::string layers = tmp / "layers.json";
  nlohmann::json j = {{"Layers",
                       {{{"Name", evil},
                         {"LayerType", "CaskConvolution"},
                         {"Inputs",
                          {{{"Name", "in"}, {"Dimensions", {1, 8}}, {"Format/Datatype", "Row major linear FP32"}}}},
                         {"Outputs",
                          {{{"Name", "out"}, {"Dimensions", {1, 8}}, {"Format/Datatype", "Row major linear FP32"}}}},
                         {"TacticValue", "0x1"}}}}};
  std::ofstream(layers) << j.dump();
  RunResult r = run_trtlens("db add -q " + shell_quote(db) + " " + shell_quote(layers));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = query_json(db, "SELECT name FROM layers");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["name"], evil);

  r = run_trtlens("db query " + shell_quote(db) + " 'DELETE FROM layers'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(query_json(db, "SELECT count(*) AS n FROM layers")[0]["n"], 1);
  // A bad input is reported and stores nothing.
  const std::string bad = tmp / "bad.log";
  std::ofstream(bad) << "nothing of TensorRT in here\n";
  r = run_trtlens("db add " + shell_quote(db) + " " + shell_quote(bad));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("trtlens: " + bad + ": "), std::string::npos) << r.err;
  EXPECT_EQ(query_json(db, "SELECT count(*) AS n FROM captures")[0]["n"], 1);
}

TEST(Store, SchemaIsVersionedAndReadableByTheSqliteLibrary) {
  TempDir tmp;
  const std::string db = tmp / "builds.db";
  RunResult r = run_trtlens("db add -q " + shell_quote(db) + " " +
                            shell_quote(fixture("seed000_int8.log")) + " --label model=seed");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  sql::Db d(db, sql::Db::Mode::ReadOnly);
  sql::Stmt v(d, "PRAGMA user_version");
  ASSERT_TRUE(v.step());
  EXPECT_EQ(v.int64(0), 1);
  // Layer count by hand from the fixture: 48 "Layer(" lines in its listing.
  sql::Stmt n(d, "SELECT layers FROM latest_builds WHERE model = 'seed'");
  ASSERT_TRUE(n.step());
  EXPECT_EQ(n.int64(0), 48);
}

// A capture's content hash, computed here the long way: each file's name and NUL, its bytes and
// its size as a little-endian 64-bit count, in order, hashed by coreutils' sha256sum.
TEST(StoreDigest, ContentHashIsSha256OfNamesBytesAndSizes) {
  const std::vector<DigestMember> members = {{"a.log", fixture("core/tactics.log")},
                                             {"sub/b.log", fixture("seed000_int8.log")}};
  const fs::path joined = fs::temp_directory_path() / "trtlens-digest-joined.bin";
  {
    std::ofstream out(joined, std::ios::binary);
    for (const auto& m : members) {
      const std::string bytes = read_file(m.path);
      out.write(m.name.c_str(), std::streamsize(m.name.size() + 1));
      out << bytes;
      uint64_t size = bytes.size();
      for (int i = 0; i < 8; ++i) out.put(char((size >> (8 * i)) & 0xff));
    }
  }
  const std::string cmd = "sha256sum " + shell_quote(joined.string());
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  char line[128] = {};
  ASSERT_NE(fgets(line, sizeof line, p), nullptr);
  pclose(p);
  fs::remove(joined);
  EXPECT_EQ(sha256_of_files(members), std::string(line, 64));
}

}  // namespace
}  // namespace trtlens::test
