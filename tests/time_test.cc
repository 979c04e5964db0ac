// Time: profiles, timing traces and runtime sections, and their join to layers.
// Expected values come from the fixtures' text, python3 over the shared files, or hand counts.
#include "analysis/time.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/analyze.h"
#include "ingest/profile_json.h"
#include "test_support.h"

namespace trtlens {
namespace {

using test::fixture;
using test::load;

Capture analyzed(const std::vector<std::string>& paths) {
  Capture c = load(paths);
  analyze(c, AnalysisOptions{});
  return c;
}

const PerfFigure* figure(const RunInfo& r, const std::string& metric, const std::string& stat) {
  for (const auto& f : r.perf)
    if (f.metric == metric && f.stat == stat) return &f;
  return nullptr;
}

std::string value_of(const KeyValues& kv, const std::string& key) {
  for (const auto& [k, v] : kv)
    if (k == key) return v;
  return "<absent>";
}

bool has_diagnostic(const Capture& c, const std::string& part) {
  for (const auto& d : c.diagnostics)
    if (d.message.find(part) != std::string::npos) return true;
  return false;
}

TEST(TimeProfileJson, UnescapedQuoteBackslashAndNanAreReadAndJoinedByName) {
  Capture c = analyzed({fixture("time/profile_quote_nan.json"), fixture("time/quote_layers.json")});
  ASSERT_EQ(c.builds.size(), 1u);
  const Build& b = c.builds[0];
  EXPECT_EQ(b.kind, ListingKind::LayerJson);  // the profile joined the listing, no build of its own
  const BuildProfile& p = b.profile;
  ASSERT_TRUE(p.present);
  EXPECT_EQ(p.count, 50);
  ASSERT_EQ(p.rows.size(), 4u);
  EXPECT_EQ(p.rows[1].name, "my \"quoted\" layer \\ with backslash");
  EXPECT_EQ(p.rows[3].percentage, std::nullopt);  // nan
  EXPECT_TRUE(has_diagnostic(c, "'NoOp_9': percentage is nan"));
  EXPECT_EQ(p.joined, 4);
  EXPECT_EQ(p.joined_by_suffix, 1);
  EXPECT_EQ(b.layers[2].time.profile_row, "Slice_4 [profile 1]");
  EXPECT_DOUBLE_EQ(*b.layers[1].time.average_ms, 0.06);
  ASSERT_EQ(p.unmatched_layers.size(), 1u);
  EXPECT_EQ(p.unmatched_layers[0], "Extra_10");
  EXPECT_TRUE(p.unmatched_rows.empty());
}

TEST(TimeProfileJson, AloneItIsABuildWhoseLayersAreItsRows) {
  Capture c = analyzed({fixture("time/profile_quote_nan.json")});
  ASSERT_EQ(c.builds.size(), 1u);
  EXPECT_EQ(c.builds[0].kind, ListingKind::Profile);
  ASSERT_EQ(c.builds[0].layers.size(), 4u);
  EXPECT_EQ(c.builds[0].layers[3].name, "NoOp_9");
  EXPECT_EQ(c.builds[0].profile.joined, 4);
}

TEST(TimeProfileJson, RecordScannerAnchorsOnTheTimeSeparator) {
  std::vector<std::string> problems;
  auto row = parse_profile_record(
      R"(, { "name" : "a", "b" : "c", "timeMs" : 1e-05, "averageMs" : inf, "percentage" : 0 })",
      problems);
  ASSERT_TRUE(row);
  EXPECT_EQ(row->name, R"(a", "b" : "c)");
  EXPECT_DOUBLE_EQ(*row->total_ms, 1e-05);
  EXPECT_FALSE(row->average_ms);
  EXPECT_EQ(problems.size(), 1u);
  EXPECT_FALSE(parse_profile_record(R"({ "name" : "x", "timeMs" : })", problems));
}

// Every profile of the TREx corpus: row count = lines holding "timeMs" (counted here), Σ % ≈ 100,
// and every row joins its graph by name (python3 over the pairs: all names equal).
TEST(TimeCorpus, EveryProfileReadsCompletelyAndJoinsItsGraph) {
  TRTLENS_REQUIRE_SHARED();
  namespace fs = std::filesystem;
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(test::shared_dir() + "/corpus/trex")) {
    std::string path = e.path().string();
    if (path.size() < 13 || path.substr(path.size() - 13) != ".profile.json") continue;
    ++files;
    std::ifstream in(path);
    std::string line;
    size_t expected_rows = 0;
    while (std::getline(in, line))
      if (line.find("\"timeMs\"") != std::string::npos) ++expected_rows;
    std::string graph = path.substr(0, path.size() - 13) + ".graph.json";
    Capture c = analyzed({graph, path});
    ASSERT_EQ(c.builds.size(), 1u) << path;
    const BuildProfile& p = c.builds[0].profile;
    EXPECT_EQ(p.rows.size(), expected_rows) << path;
    EXPECT_NEAR(p.sum_percentage, 100.0, 0.01) << path;
    EXPECT_EQ(size_t(p.joined), expected_rows) << path;
    EXPECT_TRUE(p.unmatched_rows.empty()) << path;
    EXPECT_TRUE(p.unmatched_layers.empty()) << path;
    EXPECT_EQ(c.inputs[1].unrecognized, 0u) << path;
  }
  EXPECT_EQ(files, 10);
}

// Values from python3 (json.load, trtexec's percentile rule emulated in float32).
TEST(TimeCorpus, TimingTracesMatchIndependentStatistics) {
  TRTLENS_REQUIRE_SHARED();
  std::string dir = test::shared_dir() + "/corpus/trex/";
  struct Expect {
    const char* file;
    size_t n;
    double median, p90, p99;
  } cases[] = {
      {"tests/inputs/mobilenet.qat.onnx.engine.timing.json", 8945, 0.351318, 0.352295, 0.47312},
      {"examples/pytorch/resnet/A100/fp32/resnet.onnx.engine.timing.json", 1600, 1.99072, 2.02124,
       2.05621},
      {"examples/tensorflow/resnet/RTX-3090/fp32/resnet.onnx.engine.timing.json", 263, 12.1682,
       12.2686, 12.7959},
  };
  for (const auto& e : cases) {
    Capture c = analyzed({dir + e.file});
    ASSERT_EQ(c.runs.size(), 1u);
    ASSERT_TRUE(c.runs[0].times);
    const TimingTrace& t = *c.runs[0].times;
    EXPECT_EQ(t.key_set, "8.4+") << e.file;
    EXPECT_FALSE(t.truncated);
    EXPECT_EQ(t.latency.count, e.n) << e.file;
    EXPECT_DOUBLE_EQ(t.latency.median, e.median) << e.file;
    EXPECT_DOUBLE_EQ(t.latency.p90, e.p90) << e.file;
    EXPECT_DOUBLE_EQ(t.latency.p99, e.p99) << e.file;
  }
}

// Seeds 000 and 002 are blog pages holding real --exportProfile arrays: read as profiles, with a
// note; 113 and 54 rows, Σ % = 100.000058 and 100.000018 (python3 over the array lines).
TEST(TimeSeeds, ProfileArraysInsidePagesAreReadAndNoted) {
  TRTLENS_REQUIRE_SHARED();
  namespace fs = std::filesystem;
  std::map<std::string, std::pair<size_t, double>> expect = {{"000_", {113, 100.000058}},
                                                             {"002_", {54, 100.000018}}};
  for (const auto& e : fs::directory_iterator(test::shared_dir() + "/seeds")) {
    std::string name = e.path().filename().string();
    auto it = expect.find(name.substr(0, 4));
    if (it == expect.end()) continue;
    Capture c = analyzed({e.path().string()});
    const Build* b = c.final_build();
    ASSERT_TRUE(b && b->profile.present) << name;
    EXPECT_EQ(b->profile.rows.size(), it->second.first) << name;
    EXPECT_NEAR(b->profile.sum_percentage, it->second.second, 1e-6) << name;
    EXPECT_TRUE(has_diagnostic(c, "--exportProfile array inside a text file")) << name;
  }
}

// Verbose log (seed 000's engine listing, 48 layers) + the profile array cut from seed 000:
// python3 finds 47 row names among the layer names; the layer PWN(Add_133) has no row (the
// profile calls it Add_133) and 66 rows name layers the excerpt does not list.
TEST(TimeJoin, VerboseLogAndProfilePairJoinByName) {
  TRTLENS_REQUIRE_SHARED();
  namespace fs = std::filesystem;
  std::string seed;
  for (const auto& e : fs::directory_iterator(test::shared_dir() + "/seeds"))
    if (e.path().filename().string().rfind("000_", 0) == 0) seed = e.path().string();
  ASSERT_FALSE(seed.empty());
  std::ifstream in(seed);
  std::string line, array;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line == "[") inside = true;
    if (inside) array += line + "\n";
    if (inside && line == "]") break;
  }
  fs::path tmp = fs::temp_directory_path() / "trtlens_time_seed000.profile.json";
  std::ofstream(tmp) << array;
  Capture c = analyzed({fixture("seed000_int8.log"), tmp.string()});
  fs::remove(tmp);
  ASSERT_EQ(c.builds.size(), 1u);
  const Build& b = c.builds[0];
  ASSERT_EQ(b.layers.size(), 48u);
  EXPECT_EQ(b.profile.rows.size(), 113u);
  EXPECT_EQ(b.profile.count, 625);
  EXPECT_EQ(b.profile.joined, 47);
  EXPECT_EQ(b.profile.joined_by_suffix, 0);
  ASSERT_EQ(b.profile.unmatched_layers.size(), 1u);
  EXPECT_EQ(b.profile.unmatched_layers[0], "PWN(Add_133)");
  EXPECT_EQ(b.profile.unmatched_rows.size(), 66u);
  // Conv_0 + PWN(Clip_3): 41.4232 ms total, 0.0662771 ms average (seed line 146).
  EXPECT_DOUBLE_EQ(*b.layers[1].time.total_ms, 41.4232);
  EXPECT_DOUBLE_EQ(*b.layers[1].time.average_ms, 0.0662771);
}

TEST(TimeTables, Layout82NameFirstWithSpaces) {
  Capture c = analyzed({fixture("time/profile_table_82.log")});
  const Build* b = c.final_build();
  ASSERT_TRUE(b);
  const BuildProfile& p = b->profile;
  EXPECT_EQ(p.format, "table-8.2");
  EXPECT_EQ(p.count, 100);
  ASSERT_EQ(p.rows.size(), 3u);
  EXPECT_EQ(p.rows[1].name, "(Unnamed Layer* 7) [Shuffle]");
  EXPECT_DOUBLE_EQ(*p.rows[1].average_ms, 0.055);
  EXPECT_FALSE(p.rows[1].median_ms);
  ASSERT_TRUE(p.total);
  EXPECT_DOUBLE_EQ(*p.total->total_ms, 30.78);
  ASSERT_EQ(c.runs.size(), 1u);
  EXPECT_EQ(c.runs[0].status, RunStatus::Passed);
  EXPECT_EQ(c.runs[0].trt_version, "8.2.4");
}

TEST(TimeTables, Layout84FromSeed001) {
  Capture c = analyzed({fixture("time/profile_table_84.log")});
  const BuildProfile& p = c.final_build()->profile;
  EXPECT_EQ(p.format, "table-8.4");
  EXPECT_EQ(p.count, 32);
  ASSERT_EQ(p.rows.size(), 2u);
  EXPECT_EQ(p.rows[0].name, "Reformatting CopyNode for Input Tensor 0 to Conv_0 + Relu_1");
  EXPECT_DOUBLE_EQ(*p.rows[1].total_ms, 116.65);
  EXPECT_DOUBLE_EQ(*p.rows[1].median_ms, 3.6336);
  EXPECT_DOUBLE_EQ(*p.rows[1].percentage, 3.6);
  EXPECT_DOUBLE_EQ(*p.total->median_ms, 101.1990);
}

TEST(TimeTables, Layout86NameLastWithAuxStreamWarningAndCutName) {
  Capture c = analyzed({fixture("time/profile_table_86.log")});
  const BuildProfile& p = c.final_build()->profile;
  EXPECT_EQ(p.format, "table-8.6");
  EXPECT_EQ(p.count, 2094);
  ASSERT_EQ(p.rows.size(), 2u);
  EXPECT_EQ(p.rows[1].name,
            "node_of_gpu_0/conv1_1 + node_of_gpu_0/res_conv1_bn_1 + node_of_gpu_0/res_conv1_bn_2");
  EXPECT_DOUBLE_EQ(*p.rows[0].average_ms, 0.0077);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("1 auxiliary streams"), std::string::npos);
  EXPECT_DOUBLE_EQ(*p.total->total_ms, 2970.11);
}

TEST(TimeTables, Seed001TableWithNoBreakSpacesIsRead) {
  TRTLENS_REQUIRE_SHARED();
  namespace fs = std::filesystem;
  for (const auto& e : fs::directory_iterator(test::shared_dir() + "/seeds")) {
    if (e.path().filename().string().rfind("001_", 0) != 0) continue;
    Capture c = analyzed({e.path().string()});
    const BuildProfile& p = c.final_build()->profile;
    // Three rows on the page (the third cut by the blog), no Total row: a warning says so.
    ASSERT_EQ(p.rows.size(), 3u);
    EXPECT_EQ(p.rows[2].name, "MaxPool_2");
    EXPECT_TRUE(has_diagnostic(c, "without its Total row"));
    EXPECT_EQ(p.joined, 2);  // the page's listing has the first two layers only
  }
}

TEST(TimeTraces, EveryKeySetGivesTheSameStatistics) {
  // python3 over the fixtures: 20 queries, latency median 0.47, p90 0.51, p95/p99 0.52,
  // compute median 0.45, compute CV 7.213423 %, latency drift -3.305785 %.
  const std::pair<const char*, const char*> sets[] = {{"time/times_70.json", "7.0"},
                                                      {"time/times_72.json", "7.2"},
                                                      {"time/times_80.json", "8.0-8.2"},
                                                      {"time/times_84.json", "8.4+"}};
  for (const auto& [file, keys] : sets) {
    Capture c = analyzed({fixture(file)});
    ASSERT_EQ(c.runs.size(), 1u) << file;
    const TimingTrace& t = *c.runs[0].times;
    EXPECT_EQ(t.key_set, keys) << file;
    EXPECT_EQ(t.latency.count, 20u);
    EXPECT_NEAR(t.latency.median, 0.47, 1e-12);
    EXPECT_NEAR(t.latency.p90, 0.51, 1e-12);
    EXPECT_NEAR(t.latency.p99, 0.52, 1e-12);
    EXPECT_NEAR(t.compute.median, 0.45, 1e-12);
    EXPECT_NEAR(t.compute.cv_percent, 7.213423047083141, 1e-9);
    EXPECT_NEAR(t.latency.drift_percent, -3.3057851239669644, 1e-9);
    // First query starts at 4 ms, the last ends at 13.93 ms: 20 queries in 9.93 ms.
    EXPECT_NEAR(t.walltime_ms, 9.93, 1e-9);
    EXPECT_NEAR(t.throughput_qps, 20 / 9.93 * 1000, 1e-6);
  }
}

TEST(TimeTraces, TruncatedFileKeepsWholeRecordsAndWarns) {
  Capture c = analyzed({fixture("time/times_truncated.json")});
  ASSERT_EQ(c.runs.size(), 1u);
  EXPECT_TRUE(c.runs[0].times->truncated);
  EXPECT_EQ(c.runs[0].times->records.size(), 7u);  // 8 opened, the last cut mid-record
  EXPECT_TRUE(has_diagnostic(c, "kept the 7 whole records"));
}

TEST(TimeTraces, PercentileFollowsTrtexecInFloat) {
  // n = 100, p = 99: (1 - 0.99f) * 100 is 0.99999... in float, so nothing is excluded and the
  // maximum is returned (in double arithmetic one value would be excluded).
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  EXPECT_EQ(trtexec_percentile(v, 99), 100);
  EXPECT_EQ(trtexec_percentile(v, 90), 90);
  Stats s = compute_stats({4, 1, 3, 2});
  EXPECT_EQ(s.median, 2.5);
}

TEST(TimeRuntime, Trt7BlocksKeepEveryFigureWithItsLabel) {
  Capture c = analyzed({fixture("time/runtime_trt7.log")});
  ASSERT_EQ(c.runs.size(), 1u);
  const RunInfo& r = c.runs[0];
  EXPECT_EQ(r.status, RunStatus::Passed);
  EXPECT_EQ(r.command_line, "./trtexec --loadEngine=model.trt --avgRuns=10");
  EXPECT_EQ(value_of(r.inference_options, "Streams"), "1");
  EXPECT_EQ(r.inference_options.size(), 4u);  // the trace line after the block is not an option
  ASSERT_EQ(r.trace_averages.size(), 1u);
  EXPECT_EQ(r.trace_averages[0].runs, 10);
  EXPECT_DOUBLE_EQ(*r.trace_averages[0].end_to_end_ms, 1.35);
  EXPECT_DOUBLE_EQ(*r.trace_averages[0].enqueue_ms, 0.41015);
  EXPECT_DOUBLE_EQ(figure(r, "Host Latency", "percentile(99%)")->value, 2.26147);
  EXPECT_DOUBLE_EQ(figure(r, "End-to-End Host Latency", "median")->value, 1.29834);
  EXPECT_DOUBLE_EQ(figure(r, "GPU Compute Time", "median")->value, 1.24219);
  EXPECT_EQ(figure(r, "Enqueue Time", "mean"), nullptr);  // not in the block
  EXPECT_DOUBLE_EQ(figure(r, "Throughput", "")->value, 758.012);
  EXPECT_DOUBLE_EQ(figure(r, "Total GPU Compute Time", "")->value, 2.92786);
}

TEST(TimeRuntime, Summary80WithEndToEndAndOnePercentileAndWarning) {
  Capture c = analyzed({fixture("time/runtime_80.log")});
  ASSERT_EQ(c.runs.size(), 1u);
  const RunInfo& r = c.runs[0];
  EXPECT_EQ(r.trt_version, "8.0.3");
  EXPECT_EQ(value_of(r.reporting_options, "Percentile"), "99");
  EXPECT_DOUBLE_EQ(figure(r, "End-to-End Host Latency", "percentile(99%)")->value, 3.3);
  EXPECT_DOUBLE_EQ(figure(r, "D2H Latency", "mean")->value, 0.012);
  EXPECT_EQ(r.perf.size(), 1u + 6 * 5 + 2);  // throughput, 6 stats lines of 5, 2 totals
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].rfind("Throughput may be bound by Enqueue Time", 0), 0u);
}

TEST(TimeRuntime, Summary86OptionsDeviceAndTwoRunsStaySeparate) {
  Capture c = analyzed({fixture("time/runtime_86.log")});
  ASSERT_EQ(c.runs.size(), 2u);
  const RunInfo& r = c.runs[0];
  EXPECT_EQ(r.status, RunStatus::Passed);
  EXPECT_EQ(r.trt_version, "8.6.1");
  EXPECT_EQ(value_of(r.build_options, "Memory Pools"),
            "workspace: default, dlaSRAM: default, dlaLocalDRAM: default, dlaGlobalDRAM: default");
  EXPECT_EQ(r.build_option("Precision"), "FP32");
  EXPECT_EQ(value_of(r.inference_options, "Inference Streams"), "1");  // "Options===" header
  EXPECT_EQ(value_of(r.reporting_options, "Dump refittable layers"), "Disabled");
  EXPECT_EQ(value_of(r.model_options, "Output"), "");
  EXPECT_EQ(value_of(r.device, "Memory Bus Width"), "192 bits (ECC disabled)");
  EXPECT_EQ(r.device.size(), 8u);
  EXPECT_EQ(r.perf.size(), 1u + 5 * 7 + 2);  // seed 001: 5 stats lines of 7 figures
  EXPECT_DOUBLE_EQ(figure(r, "Latency", "percentile(95%)")->value, 1.98364);
  EXPECT_DOUBLE_EQ(figure(r, "GPU Compute Time", "median")->value, 1.84009);
  const RunInfo& r2 = c.runs[1];
  EXPECT_EQ(r2.status, RunStatus::Failed);
  EXPECT_EQ(r2.command_line, "trtexec --loadEngine=demo.engine");
  ASSERT_EQ(r2.perf.size(), 1u);
  EXPECT_DOUBLE_EQ(r2.perf[0].value, 510.5);
}

TEST(TimeCli, ProfileCommandOnCorpusFileAndJsonFields) {
  TRTLENS_REQUIRE_SHARED();
  std::string base = test::shared_dir() + "/corpus/trex/tests/inputs/mobilenet.qat.onnx.engine.";
  auto r = test::run_trtlens("profile --top 3 " + test::shell_quote(base + "graph.json") + " " +
                             test::shell_quote(base + "profile.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("73 rows, 73 joined"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("top 3 by average"), std::string::npos);
  auto j = test::run_trtlens("json " + test::shell_quote(base + "graph.json") + " " +
                             test::shell_quote(base + "profile.json"));
  ASSERT_EQ(j.exit_code, 0);
  // QuantizeLinear_2: "timeMs" : 31.3879 in the file.
  EXPECT_NE(j.out.find("\"total_ms\": 31.3879"), std::string::npos);
  EXPECT_NE(j.out.find("\"profile\": {"), std::string::npos);
  auto bad = test::run_trtlens("profile " + test::shell_quote(fixture("time/README.md")));
  EXPECT_NE(bad.exit_code, 0);
}

}  // namespace
}  // namespace trtlens

namespace trtlens {
namespace {

// The table's first name is cut with "..." (as in the TRT 10 log it comes from): it joins the
// one layer that starts with its text; the layer with no row is listed.
TEST(TimeJoin, TableRowCutShortJoinsTheOnlyLayerWithThatPrefix) {
  Capture c = analyzed({test::fixture("time/layers_86.json"),
                        test::fixture("time/profile_table_86.log")});
  ASSERT_EQ(c.builds.size(), 1u);
  const Build& b = c.builds[0];
  EXPECT_EQ(b.profile.joined, 2);
  EXPECT_EQ(b.profile.joined_by_suffix, 1);
  EXPECT_DOUBLE_EQ(*b.layers[0].time.total_ms, 16.15);
  EXPECT_EQ(b.layers[0].time.profile_row,
            "Reformatting CopyNode for Input Tensor 0 to node_of_gpu_0/conv1_1 + ...");
  ASSERT_EQ(b.profile.unmatched_layers.size(), 1u);
  EXPECT_EQ(b.profile.unmatched_layers[0], "node_of_gpu_0/pool1_1");
}

}  // namespace
}  // namespace trtlens
