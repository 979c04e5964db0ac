// Failed and unfinished runs: status, error and warning records, the last stage reached, runs
// kept apart, and the TensorRT version from every line that states it. The fixtures under
// fixtures/failures/ are written from real line shapes; every expected value below was read off
// the fixture text by hand (line numbers counted in the file).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/analyze.h"
#include "analysis/runs.h"
#include "model/assembler.h"
#include "test_support.h"

namespace trtlens {
namespace {

using test::fixture;

Capture analyzed(const std::string& name) {
  Capture c = test::load({fixture("failures/" + name)});
  analyze(c, AnalysisOptions{});
  return c;
}

size_t count(const RunInfo& r, char severity) {
  size_t n = 0;
  for (const auto& rec : r.records) n += rec.severity == severity;
  return n;
}

const LogRecord* record_at(const RunInfo& r, uint64_t line) {
  for (const auto& rec : r.records)
    if (rec.line == line) return &rec;
  return nullptr;
}

const Finding* finding(const Capture& c, const std::string& id) {
  for (const auto& f : c.findings)
    if (f.id == id) return &f;
  return nullptr;
}

TEST(FailedRuns, UnsupportedOnnxNode) {
  Capture c = analyzed("unsupported_node.log");
  ASSERT_EQ(c.runs.size(), 1u);
  const RunInfo& r = c.runs[0];
  EXPECT_EQ(r.status, RunStatus::Failed);
  EXPECT_EQ(r.status_reason, "&&&& FAILED at line 32");
  EXPECT_EQ(r.trt_version, "8.6.1");
  EXPECT_EQ(r.trt_version_from, "banner");
  // Last stage: the last "Parsing node" line before the parser gave up.
  EXPECT_EQ(r.last_phase.phase, RunPhase::Parsing);
  EXPECT_EQ(r.last_phase.line, 14u);
  EXPECT_EQ(r.last_phase.text, "Parsing node: GridSample_2 [GridSample]");
  // Errors: the parser's (line 26) and trtexec's four; the "While parsing" line and the node
  // dump (lines 17-25) are context, not records. Warnings: the INT64 cast, twice.
  EXPECT_EQ(count(r, 'E'), 5u);
  EXPECT_EQ(count(r, 'W'), 2u);
  const LogRecord* parser = record_at(r, 26);
  ASSERT_TRUE(parser);
  EXPECT_EQ(parser->category, "UNSUPPORTED_NODE");
  EXPECT_EQ(parser->code, 8);
  EXPECT_EQ(parser->node, "GridSample_2");  // the dump's name: "GridSample_2"
  EXPECT_EQ(parser->onnx_node, "GridSample_2");
  EXPECT_TRUE(parser->layers.empty());  // no engine was built
  EXPECT_EQ(parser->origin, "builtin_op_importers.cpp:5403 (importFallbackPluginImporter)");
  EXPECT_EQ(parser->message,
            "Assertion failed: creator && \"Plugin not found, are the plugin name, version, and "
            "namespace correct?\"");
  const LogRecord* warning = record_at(r, 10);
  ASSERT_TRUE(warning);
  EXPECT_EQ(warning->origin, "onnx2trt_utils.cpp:374");
  // Groups: 5 errors of 5 kinds, the 2 warnings in one.
  ASSERT_EQ(r.groups.size(), 6u);
  EXPECT_EQ(r.groups.back().severity, 'W');
  EXPECT_EQ(r.groups.back().count, 2u);
  EXPECT_EQ(r.groups.back().first_line, 10u);
  const Finding* f = finding(c, "run-not-passed");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::Error);
  EXPECT_EQ(f->onnx_nodes, std::vector<std::string>{"GridSample_2"});
}

TEST(FailedRuns, NoImplementationForNode) {
  Capture c = analyzed("no_implementation.log");
  ASSERT_EQ(c.runs.size(), 1u);
  const RunInfo& r = c.runs[0];
  EXPECT_EQ(r.status, RunStatus::Failed);
  EXPECT_EQ(r.trt_version, "10.3.0");  // v100300
  EXPECT_EQ(r.last_phase.phase, RunPhase::TacticSelection);
  EXPECT_EQ(r.last_phase.line, 20u);  // Timing Runner: /head/Resize (Resize)
  ASSERT_TRUE(r.tactic);
  EXPECT_EQ(r.tactic->node, "/head/Resize");
  EXPECT_EQ(r.tactic->runner, "Resize");
  EXPECT_EQ(r.tactic->formats, "Half(802816,12544,112,1) -> Half(3211264,50176,224,1)");
  EXPECT_EQ(r.tactic->tactics,
            (std::vector<std::string>{"0x0000000000000000", "0x0000000000000001"}));
  const LogRecord* e = record_at(r, 24);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code, 10);
  EXPECT_EQ(e->category, "Internal Error");
  EXPECT_EQ(e->message, "Could not find any implementation for node /head/Resize.");
  EXPECT_EQ(e->node, "/head/Resize");
  EXPECT_EQ(e->onnx_node, "/head/Resize");  // "Parsing node: /head/Resize [Resize]", line 7
  EXPECT_EQ(record_pattern(*e), "Could not find any implementation for node <node>.");
  EXPECT_EQ(count(r, 'E'), 5u);  // lines 24-28
  EXPECT_EQ(count(r, 'W'), 0u);
  // trtexec's own closing errors are not pinned on the node being timed.
  ASSERT_TRUE(record_at(r, 25));
  EXPECT_EQ(record_at(r, 25)->node, "");
  EXPECT_EQ(r.groups.size(), 5u);
}

TEST(FailedRuns, OutOfMemoryDuringTacticTiming) {
  Capture c = analyzed("oom_tactics.log");
  ASSERT_EQ(c.runs.size(), 1u);
  const RunInfo& r = c.runs[0];
  EXPECT_EQ(r.status, RunStatus::Failed);
  EXPECT_EQ(r.last_phase.phase, RunPhase::TacticSelection);
  EXPECT_EQ(r.last_phase.line, 12u);
  ASSERT_TRUE(r.tactic);
  EXPECT_EQ(r.tactic->node, "/encoder/layer.0/attention/MatMul");
  EXPECT_EQ(r.tactic->runner, "CaskGemmMatrixMultiply");
  EXPECT_EQ(r.tactic->formats, "Half(1048576,1024,1) -> Half(4194304,4096,1)");
  // The warnings between the tactic lines do not end the block: both timed tactics are kept.
  EXPECT_EQ(r.tactic->tactics,
            (std::vector<std::string>{"0x000000000002025b", "0x000000000002025d"}));
  EXPECT_EQ(count(r, 'E'), 8u);  // lines 19-26
  EXPECT_EQ(count(r, 'W'), 4u);  // lines 14, 15, 17, 18
  const LogRecord* cuda = record_at(r, 19);
  ASSERT_TRUE(cuda);
  EXPECT_EQ(cuda->code, 1);
  EXPECT_EQ(cuda->category, "Cuda Runtime");
  EXPECT_EQ(cuda->message, "out of memory");
  EXPECT_EQ(cuda->origin, "defaultAllocator.cpp::allocate::20");
  // Messages that name no node are about the node being timed.
  EXPECT_EQ(cuda->node, "/encoder/layer.0/attention/MatMul");
  EXPECT_EQ(cuda->onnx_node, "/encoder/layer.0/attention/MatMul");
  ASSERT_TRUE(record_at(r, 14));  // a [TRT] warning between the tactic lines
  EXPECT_EQ(record_at(r, 14)->node, "/encoder/layer.0/attention/MatMul");
  ASSERT_TRUE(record_at(r, 23));  // "Engine could not be created from network": trtexec's
  EXPECT_EQ(record_at(r, 23)->node, "");
  // Groups: code 1 (1), code 2 OutOfMemory (2), code 2 Internal Error (1), four trtexec lines,
  // and two warning kinds of two each. The most frequent error comes first.
  ASSERT_EQ(r.groups.size(), 9u);
  EXPECT_EQ(r.groups[0].code, 2);
  EXPECT_EQ(r.groups[0].category, "OutOfMemory");
  EXPECT_EQ(r.groups[0].count, 2u);
  EXPECT_EQ(r.groups[0].first_line, 20u);
  EXPECT_EQ(r.groups[7].severity, 'W');
  EXPECT_EQ(r.groups[7].count, 2u);
  EXPECT_EQ(r.groups[8].count, 2u);
  EXPECT_EQ(r.groups[8].pattern,
            "Skipping tactic <n> due to insufficient memory on requested size of <n> detected "
            "for tactic <hex>.");
}

TEST(FailedRuns, AssertionWithoutTrailerIsACrash) {
  Capture c = analyzed("assertion_no_trailer.log");
  ASSERT_EQ(c.runs.size(), 1u);
  const RunInfo& r = c.runs[0];
  EXPECT_EQ(r.status, RunStatus::Crashed);
  EXPECT_EQ(r.status_reason, "assertion at line 17, no trailer");
  ASSERT_TRUE(r.stop);
  EXPECT_EQ(r.stop->kind, "assertion");  // the first stop line; "Aborted" follows at 18
  EXPECT_EQ(r.trt_version, "8.5.10");
  EXPECT_EQ(r.last_phase.phase, RunPhase::TacticSelection);
  EXPECT_EQ(r.last_phase.line, 14u);
  ASSERT_TRUE(r.tactic);
  EXPECT_EQ(r.tactic->node, "Conv_0 + BatchNormalization_1 + Relu_2");
  // Decimal tactics of TRT <= 8.2 style: -3 and 1825138533642645384 in canonical hex.
  EXPECT_EQ(r.tactic->tactics,
            (std::vector<std::string>{"0xfffffffffffffffd", "0x195431d38ba5af88"}));
  ASSERT_EQ(r.records.size(), 1u);
  EXPECT_EQ(r.records[0].category, "Assertion");
  EXPECT_EQ(r.records[0].origin, "cask_tactic.cpp:1204");
  EXPECT_EQ(r.records[0].node, "Conv_0 + BatchNormalization_1 + Relu_2");
  EXPECT_EQ(r.records[0].onnx_node, "Conv_0");  // the first ONNX node of the fused name
  // No "0-layer final build": the log has no listing.
  EXPECT_TRUE(c.builds.empty());
  const Finding* f = finding(c, "run-not-passed");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::Error);
}

TEST(FailedRuns, LogCutMidLine) {
  Capture c = analyzed("cut_mid_build.log");
  ASSERT_EQ(c.runs.size(), 1u);
  const RunInfo& r = c.runs[0];
  EXPECT_EQ(r.status, RunStatus::Cut);
  EXPECT_EQ(r.cut_at, 12u);  // the file's 12th line has no line end
  EXPECT_EQ(r.last_phase.phase, RunPhase::TacticSelection);
  EXPECT_EQ(r.last_phase.line, 11u);
  ASSERT_TRUE(r.tactic);
  EXPECT_EQ(r.tactic->node, "/model.0/conv/Conv + PWN(/model.0/act/Sigmoid)");
  EXPECT_EQ(r.tactic->formats, "Half(1228800,409600,640,1) -> Half(1638400,102400,320,1)");
  EXPECT_TRUE(r.tactic->tactics.empty());  // the one tactic line was cut before its id
  EXPECT_TRUE(r.records.empty());
}

TEST(FailedRuns, TwoRunsInOneFileStayApart) {
  Capture c = analyzed("two_runs.log");
  ASSERT_EQ(c.runs.size(), 2u);
  auto throughput = [](const RunInfo& r) {
    for (const auto& f : r.perf)
      if (f.metric == "Throughput") return f.value;
    return -1.0;
  };
  EXPECT_EQ(c.runs[0].command_line, "trtexec --onnx=mobilenet.onnx --fp16");
  EXPECT_EQ(throughput(c.runs[0]), 2012.5);
  EXPECT_EQ(c.runs[0].status, RunStatus::Passed);
  EXPECT_EQ(c.runs[1].command_line,
            "trtexec --onnx=bert_large.onnx --fp16 --memPoolSize=workspace:4096");
  EXPECT_EQ(throughput(c.runs[1]), 96.2);
  EXPECT_EQ(c.runs[1].status, RunStatus::Passed);
  EXPECT_EQ(c.runs[1].line, 14u);
  EXPECT_EQ(c.runs[0].perf.size(), c.runs[1].perf.size());  // 1 + 2 lines of 7 figures each
  EXPECT_EQ(c.runs[0].perf.size(), 15u);
  EXPECT_FALSE(finding(c, "run-not-passed"));
}

// A run that failed while timing tactics, then its retry in the same file, cut while timing
// another node: each run keeps the stage and the tactics it reached (lines counted by hand).
TEST(FailedRuns, ARetryDoesNotTakeOverTheFailedRunsLastStage) {
  Capture c = analyzed("retry_after_oom.log");
  ASSERT_EQ(c.runs.size(), 2u);
  const RunInfo& failed = c.runs[0];
  EXPECT_EQ(failed.status, RunStatus::Failed);
  EXPECT_EQ(failed.last_phase.phase, RunPhase::TacticSelection);
  EXPECT_EQ(failed.last_phase.line, 6u);  // its Timing Runner line
  ASSERT_TRUE(failed.tactic);
  EXPECT_EQ(failed.tactic->node, "/encoder/layer.0/attention/MatMul");
  EXPECT_EQ(failed.tactic->formats, "Half(1048576,1024,1) -> Half(4194304,4096,1)");
  EXPECT_EQ(failed.tactic->tactics, (std::vector<std::string>{"0x000000000002025b"}));
  const RunInfo& retry = c.runs[1];
  EXPECT_EQ(retry.line, 11u);
  EXPECT_EQ(retry.last_phase.phase, RunPhase::TacticSelection);
  EXPECT_EQ(retry.last_phase.line, 16u);
  ASSERT_TRUE(retry.tactic);
  EXPECT_EQ(retry.tactic->node, "/encoder/layer.0/output/MatMul");
  EXPECT_EQ(retry.tactic->formats, "Half(4194304,4096,1) -> Half(1048576,1024,1)");
  EXPECT_EQ(retry.tactic->tactics,
            (std::vector<std::string>{"0x000000000002025c", "0x000000000002025d"}));
}

// The same when each run is a file of its own: the second input does not move the first's.
TEST(FailedRuns, ALaterInputDoesNotTakeOverARunsLastStage) {
  Capture c = test::load({fixture("failures/cut_mid_build.log"),
                          fixture("failures/oom_tactics.log")});
  analyze(c, AnalysisOptions{});
  ASSERT_EQ(c.runs.size(), 2u);
  EXPECT_EQ(c.runs[0].last_phase.line, 11u);
  ASSERT_TRUE(c.runs[0].tactic);
  EXPECT_EQ(c.runs[0].tactic->node, "/model.0/conv/Conv + PWN(/model.0/act/Sigmoid)");
  EXPECT_EQ(c.runs[1].last_phase.line, 12u);
  ASSERT_TRUE(c.runs[1].tactic);
  EXPECT_EQ(c.runs[1].tactic->node, "/encoder/layer.0/attention/MatMul");
}

TEST(FailedRuns, CommandLinesWithoutBannersAreRunsOfTheirOwn) {
  Capture c = analyzed("readme_two_models.md");
  ASSERT_EQ(c.runs.size(), 2u);
  EXPECT_EQ(c.runs[0].command_line, "trtexec --loadEngine=resnet50.engine");
  EXPECT_EQ(c.runs[0].line, 5u);
  ASSERT_EQ(c.runs[0].perf.size(), 1u);
  EXPECT_EQ(c.runs[0].perf[0].value, 812.4);
  EXPECT_EQ(c.runs[1].command_line, "trtexec --loadEngine=vit_b16.engine");
  EXPECT_EQ(c.runs[1].line, 15u);
  ASSERT_EQ(c.runs[1].perf.size(), 1u);
  EXPECT_EQ(c.runs[1].perf[0].value, 95.1);
  // A pasted command line is no proof the run started or ended: unknown, not a failure.
  EXPECT_EQ(c.runs[1].status, RunStatus::Unknown);
  EXPECT_FALSE(finding(c, "run-not-passed"));
}

TEST(TrtVersion, FromPolygraphyAndLibraryNames) {
  Capture p = analyzed("polygraphy_version.log");
  ASSERT_EQ(p.builds.size(), 1u);
  // Polygraphy's 10.16.2.5 says more than the library's 10.16.2 after it.
  EXPECT_EQ(p.builds[0].trt_version, "10.16.2.5");
  EXPECT_EQ(p.builds[0].trt_version_from, "Polygraphy module line");
  Capture l = analyzed("library_version.log");
  ASSERT_EQ(l.builds.size(), 1u);
  EXPECT_EQ(l.builds[0].trt_version, "10.16.2");
  EXPECT_EQ(l.builds[0].trt_version_from, "library name");
}

TEST(FailedRunsCli, SummaryJsonAndReportStateTheOutcome) {
  const std::string log = test::shell_quote(fixture("failures/assertion_no_trailer.log"));
  auto s = test::run_trtlens("summary " + log);
  EXPECT_EQ(s.exit_code, 0) << s.err;
  EXPECT_NE(s.out.find("no layer listing found"), std::string::npos);
  EXPECT_NE(s.out.find("status: crashed (assertion at line 17, no trailer)"), std::string::npos)
      << s.out;
  EXPECT_NE(s.out.find("last stage: tactic-selection at line 14"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("timing: node Conv_0 + BatchNormalization_1 + Relu_2 (CaskConvolution)"),
            std::string::npos)
      << s.out;
  EXPECT_EQ(s.out.find("-1 reformat"), std::string::npos);

  auto j = test::run_trtlens("json " + log);
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  ASSERT_EQ(doc["runs"].size(), 1u);
  const auto& run = doc["runs"][0];
  EXPECT_EQ(run["status"], "crashed");
  EXPECT_EQ(run["last_phase"]["phase"], "tactic-selection");
  EXPECT_EQ(run["last_phase"]["line"], 14);
  EXPECT_EQ(run["stop"]["kind"], "assertion");
  EXPECT_EQ(run["record_groups"][0]["category"], "Assertion");
  EXPECT_EQ(run["trt_version_from"], "banner");

  auto md = test::run_trtlens("report --format md " + log);
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_NE(md.out.find("| run |"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("crashed (assertion at line 17, no trailer)"), std::string::npos);
  EXPECT_NE(md.out.find("run-not-passed"), std::string::npos);
  auto html = test::run_trtlens("report " + log);
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_NE(html.out.find("crashed (assertion at line 17, no trailer)"), std::string::npos);
}

TEST(FailedRunsCli, SummaryPrintsEachRunsFiguresWithoutABuild) {
  auto s = test::run_trtlens("summary " + test::shell_quote(fixture("failures/two_runs.log")));
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_NE(s.out.find("Throughput: 2012.5000 qps"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("Throughput: 96.2000 qps"), std::string::npos) << s.out;
}

TEST(FailedRunsCli, ErrorGroupsNameTheirNodesInSummary) {
  auto s =
      test::run_trtlens("summary " + test::shell_quote(fixture("failures/no_implementation.log")));
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_NE(s.out.find("error code 10 Internal Error, 1x, first at line 24: Could not find any "
                       "implementation for node <node>."),
            std::string::npos)
      << s.out;
  EXPECT_NE(s.out.find("node /head/Resize (ONNX node /head/Resize; no engine layer)"),
            std::string::npos)
      << s.out;
}

// The model reads the log reader's tactic attempt where it lives, as it is when a record or the
// run's end needs it, and keeps a copy of it once the reader forgets it (the reader goes away
// at the log's end, before the run is closed).
TEST(Failures, RunsKeepTheTacticAttemptTheReaderLastShowed) {
  Capture capture;
  Assembler out(capture);
  out.begin_input("tuning.log", "build-log", false);
  TacticAttempt attempt;
  attempt.node = "/blk.0/conv0/Conv";
  attempt.runner = "CaskConvolution";
  out.run_phase(RunPhase::TacticSelection, 4, "Timing Runner: /blk.0/conv0/Conv (CaskConvolution)");
  out.run_tactic(attempt);
  attempt.node = "/blk.0/conv1/Conv";  // the reader moved on
  LogRecord record;
  record.tensorrt = true;
  record.line = 9;
  record.message = "no implementation";
  out.run_record(record);  // opens the run
  attempt.node = "/blk.0/conv2/Conv";
  out.run_tactic(attempt);
  out.forget_tactic(attempt);
  attempt.node = "/blk.0/conv3/Conv";  // after the reader let go: not the run's
  out.end_input(12);
  ASSERT_EQ(capture.runs.size(), 1u);
  const RunInfo& r = capture.runs[0];
  ASSERT_EQ(r.records.size(), 1u);
  EXPECT_EQ(r.records[0].node, "/blk.0/conv1/Conv");
  ASSERT_TRUE(r.tactic);
  EXPECT_EQ(r.tactic->node, "/blk.0/conv2/Conv");
  EXPECT_EQ(r.tactic->runner, "CaskConvolution");
}

}  // namespace
}  // namespace trtlens
