// Formats users paste: TREx metadata JSON, Polygraphy engine summaries.
// Expected values are read by hand from the files (quoted beside each check) or cross-checked
// between two files written by different tools.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/analyze.h"
#include "analysis/diff.h"
#include "ingest/detect.h"
#include "render/explain.h"
#include "test_support.h"

namespace trtlens {
namespace {

using test::fixture;
using test::load;
using test::shared_dir;

std::string value_of(const KeyValues& kv, const std::string& key) {
  for (const auto& [k, v] : kv)
    if (k == key) return v;
  return "<absent>";
}

const PerfFigure* figure(const RunInfo& r, const std::string& metric, const std::string& stat) {
  for (const auto& f : r.perf)
    if (f.metric == metric && f.stat == stat) return &f;
  return nullptr;
}

std::string trex(const std::string& rel) { return shared_dir() + "/corpus/trex/" + rel; }

// --- TREx metadata JSON -------------------------------------------------------------------

TEST(FormatsMetadata, BuildMetadataFillsModelAndBuildOptions) {
  TRTLENS_REQUIRE_SHARED();
  Capture c = load({trex("tests/inputs/mobilenet.qat.onnx.engine.build.metadata.json")});
  ASSERT_EQ(c.inputs.size(), 1u);
  EXPECT_EQ(c.inputs[0].kind, "trex-metadata");
  ASSERT_EQ(c.runs.size(), 1u);
  const RunInfo& r = c.runs[0];
  // {"model_options": {"Format": "ONNX", "Model": "trt-engine-explorer-OSS/tests/inputs/...
  EXPECT_EQ(value_of(r.model_options, "Format"), "ONNX");
  EXPECT_EQ(value_of(r.build_options, "Precision"), "FP32+FP16+INT8");
  EXPECT_EQ(value_of(r.build_options, "avgTiming"), "8");
  EXPECT_EQ(r.build_options.size(),
            5u);  // Max batch, Memory Pools, minTiming, avgTiming, Precision
}

TEST(FormatsMetadata, SevenValueSummaryGivesTheBuildItsLatency) {
  TRTLENS_REQUIRE_SHARED();
  Capture c = load({trex("tests/inputs/mobilenet.qat.onnx.engine.graph.json"),
                    trex("tests/inputs/mobilenet.qat.onnx.engine.profile.metadata.json")});
  analyze(c, AnalysisOptions{});
  ASSERT_EQ(c.builds.size(), 1u);
  ASSERT_EQ(c.runs.size(), 1u);
  const RunInfo& r = c.runs[0];
  // "Latency": [0.349854, 0.586731, 0.352143, 0.351196, 0.352234, 0.352295, 0.376038]
  ASSERT_TRUE(figure(r, "Latency", "min"));
  EXPECT_DOUBLE_EQ(figure(r, "Latency", "min")->value, 0.349854);
  EXPECT_DOUBLE_EQ(figure(r, "Latency", "percentile(90%)")->value, 0.352234);
  EXPECT_DOUBLE_EQ(figure(r, "Latency", "percentile(99%)")->value, 0.376038);
  EXPECT_EQ(figure(r, "Latency", "min")->unit, "ms");
  // "Throughput": 2829.15, "Total Host Walltime": 3.00091
  EXPECT_DOUBLE_EQ(figure(r, "Throughput", "")->value, 2829.15);
  EXPECT_EQ(figure(r, "Throughput", "")->unit, "qps");
  EXPECT_EQ(figure(r, "Total Host Walltime", "")->unit, "s");
  EXPECT_EQ(value_of(r.inference_options, "CUDA Graph"), "Enabled");
  // "device_information": {"Compute Capability": 7.5, "SMs": 72.0, "Memory Bus Width": 384.0, ...}
  EXPECT_EQ(value_of(r.device, "Selected Device"), "NVIDIA TITAN RTX");
  EXPECT_EQ(value_of(r.device, "Compute Capability"), "7.5");
  EXPECT_EQ(value_of(r.device, "SMs"), "72");
  EXPECT_EQ(value_of(r.device, "Memory Bus Width"), "384 bits");

  const Latency& l = c.builds[0].latency;
  EXPECT_EQ(l.source, Latency::Source::PerfSummary);
  ASSERT_TRUE(l.median_ms);
  EXPECT_DOUBLE_EQ(*l.median_ms, 0.351196);
  EXPECT_DOUBLE_EQ(*l.p99_ms, 0.376038);
}

TEST(FormatsMetadata, FiveValueSummaryEndsWithTheNinetyNinthPercentile) {
  TRTLENS_REQUIRE_SHARED();
  Capture c =
      load({trex("examples/pytorch/resnet/A100/qat/resnet-qat.onnx.engine.profile.metadata.json")});
  ASSERT_EQ(c.runs.size(), 1u);
  // "Latency": [0.878601, 0.889893, 0.882274, 0.882568, 0.884766] (trtexec <= 8.4)
  const PerfFigure* p99 = figure(c.runs[0], "Latency", "percentile(99%)");
  ASSERT_TRUE(p99);
  EXPECT_DOUBLE_EQ(p99->value, 0.884766);
  EXPECT_DOUBLE_EQ(figure(c.runs[0], "GPU Compute Time", "median")->value, 0.882568);
  EXPECT_EQ(figure(c.runs[0], "Latency", "percentile(90%)"), nullptr);
}

// The pycuda device list and the trtexec Device Information of the same A100 were written by
// two different tools; read through trtlens, their common figures must agree.
TEST(FormatsMetadata, DeviceListAgreesWithTrtexecDeviceInformation) {
  TRTLENS_REQUIRE_SHARED();
  const std::string dir = "examples/pytorch/resnet/A100/fp16/";
  Capture c = load({trex(dir + "resnet.onnx.engine.metadata.json"),
                    trex(dir + "resnet.onnx.engine.profile.metadata.json")});
  ASSERT_EQ(c.runs.size(), 2u);
  const KeyValues& pycuda = c.runs[0].device;
  const KeyValues& trtexec = c.runs[1].device;
  for (const char* key :
       {"Selected Device", "Compute Capability", "SMs", "Compute Clock Rate",
        "Device Global Memory", "Shared Memory per SM", "Memory Bus Width", "Memory Clock Rate"}) {
    EXPECT_NE(value_of(pycuda, key), "<absent>") << key;
    EXPECT_EQ(value_of(pycuda, key), value_of(trtexec, key)) << key;
  }
  EXPECT_EQ(value_of(pycuda, "CUDA Version"), "11.6.0");  // "CUDA_VERSION": [11, 6, 0]
}

TEST(FormatsMetadata, DirectoryOfTrexOutputsReadsTheMetadataToo) {
  TRTLENS_REQUIRE_SHARED();
  Capture c = load({trex("examples/pytorch/resnet/A100/qat")});
  int metadata = 0;
  for (const auto& in : c.inputs) metadata += in.kind == "trex-metadata";
  EXPECT_EQ(metadata, 3);  // engine.metadata, build.metadata, profile.metadata
}

TEST(FormatsMetadata, DetectsTheThreeShapesAndNothingElse) {
  EXPECT_EQ(detect_kind(R"({"model_options": {"Format": "ONNX"}})"), InputKind::TrexMetadata);
  EXPECT_EQ(detect_kind(R"({"performance_summary": {}})"), InputKind::TrexMetadata);
  EXPECT_EQ(detect_kind(R"([{"Name": "GPU", "ComputeCapability": [8, 0]}])"),
            InputKind::TrexMetadata);
  EXPECT_EQ(detect_kind(R"({"other": {"model_options": 1}})"), InputKind::OtherJson);
  EXPECT_EQ(detect_kind(R"({"Layers": [], "model_options": 1})"), InputKind::LayerJson);
}

TEST(FormatsMetadata, CutFileIsAnInputErrorWithExitTwo) {
  auto r = test::run_trtlens("json " + test::shell_quote(fixture("formats/metadata_cut.json")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("trtlens: " + fixture("formats/metadata_cut.json") + ": invalid JSON"),
            std::string::npos)
      << r.err;
}

// --- Polygraphy `inspect model` -------------------------------------------------------------

TEST(FormatsPolygraphy, LayersTensorsTacticsMemoryAndShapesAreRead) {
  Capture c = load({fixture("formats/polygraphy_inspect.txt")});
  ASSERT_EQ(c.inputs.size(), 1u);
  EXPECT_EQ(c.inputs[0].kind, "polygraphy-text");
  EXPECT_EQ(c.inputs[0].unrecognized, 0u);
  ASSERT_EQ(c.builds.size(), 1u);
  const Build& b = c.builds[0];
  ASSERT_EQ(b.layers.size(), 5u);  // "---- 5 Layer(s) ----"
  EXPECT_EQ(b.layers[1].name, "conv1 + relu1");
  EXPECT_EQ(b.layers[1].type, "CaskConvolution");
  EXPECT_EQ(b.layers[1].tactic, "0x2775507d5e6f6b0f");
  EXPECT_EQ(b.layers[1].tactic_name.str().substr(0, 25), "sm80_xmma_fprop_implicit_");
  EXPECT_EQ(b.layers[1].attributes.string("Kernel"), "[7, 7]");
  EXPECT_EQ(b.layers[2].tactic, "0xfffffffffffffffd");  // "Tactic = -3"
  EXPECT_EQ(b.layers[3].name, "{ForeignNode[fc.weight...fc, softmax]}");
  EXPECT_EQ(b.layers[3].type, "Myelin");
  EXPECT_FALSE(b.layers[3].tactic);
  EXPECT_EQ(b.layers[3].tactic_name.str().substr(0, 6), "__myl_");

  const Tensor& in = b.layers[0].inputs.at(0);
  EXPECT_EQ(in.name, "input");
  EXPECT_EQ(in.dtype, "FP32");
  EXPECT_EQ(in.dims, (std::vector<int64_t>{-1, 3, 224, 224}));
  EXPECT_EQ(in.format, "Row major linear FP32 format (kLINEAR)");
  const Tensor& hwc8 = b.layers[0].outputs.at(0);
  EXPECT_EQ(hwc8.name, "Reformatted Input Tensor 0 to conv1 + relu1");
  EXPECT_EQ(hwc8.dtype, "FP16");
  EXPECT_EQ(hwc8.vector_width, 8);
  // A name with a comma and a space survives the tensor-list scanner.
  EXPECT_EQ(b.layers[4].outputs.at(0).name, "logits, final");
  EXPECT_EQ(b.layers[4].outputs.at(0).dims, (std::vector<int64_t>{-1, 1000}));

  ASSERT_EQ(b.bindings.size(), 2u);
  EXPECT_EQ(b.bindings[0].io_mode, "Input");
  EXPECT_EQ(b.bindings[1].name, "logits, final");
  EXPECT_EQ(b.bindings[1].io_mode, "Output");
  // "Device Memory: 51380224 bytes"
  EXPECT_EQ(b.memory.total_activation, 51380224u);
  // "Shapes: min=(1, 3, 224, 224), opt=(8, 3, 224, 224), ..."
  ASSERT_EQ(b.memory.profile_shapes.size(), 1u);
  EXPECT_EQ(b.memory.profile_shapes[0].second, "8x3x224x224");
}

TEST(FormatsPolygraphy, LayersKeepTheirFileAndLine) {
  const std::string path = fixture("formats/polygraphy_inspect.txt");
  Capture c = load({path});
  ASSERT_EQ(c.builds.size(), 1u);
  ASSERT_EQ(c.builds[0].layers.size(), 5u);
  // Lines of "Layer N | ..." in the fixture (grep -n).
  const uint64_t lines[] = {21, 27, 35, 40, 45};
  for (size_t i = 0; i < 5; ++i) {
    const Layer& l = c.builds[0].layers[i];
    EXPECT_EQ(l.source.path.str(), path) << l.name;
    EXPECT_EQ(l.source.line, lines[i]) << l.name;
  }
}

TEST(FormatsPolygraphy, CutListingIsReadAndSaysSo) {
  Capture c = load({fixture("formats/polygraphy_cut.txt")});
  ASSERT_EQ(c.builds.size(), 1u);
  EXPECT_EQ(c.builds[0].layers.size(), 3u);
  bool warned = false;
  for (const auto& d : c.diagnostics)
    warned |= d.message.find("announced 7 layer(s) and listed 3") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(FormatsPolygraphy, SummaryJsonListsTheLayersThroughTheCli) {
  auto r =
      test::run_trtlens("json " + test::shell_quote(fixture("formats/polygraphy_inspect.txt")));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"kind\": \"polygraphy-text\""), std::string::npos);
  EXPECT_NE(r.out.find("\"CaskPooling\""), std::string::npos);
}

// --- DLA placement and fallbacks -----------------------------------------------------------

TEST(FormatsDla, InfoListingIsANamesAndKindsBuildWithDevices) {
  Capture c = load({fixture("formats/dla_info_10x.log")});
  ASSERT_EQ(c.builds.size(), 1u);
  const Build& b = c.builds[0];
  EXPECT_EQ(b.kind, ListingKind::DeviceList);
  EXPECT_EQ(b.trt_version, "10.3.0");
  ASSERT_EQ(b.layers.size(), 5u);  // 1 [DlaLayer] + 4 [GpuLayer] lines
  EXPECT_EQ(b.layers[0].name, "{ForeignNode[/model.0/conv/Conv.../model.22/cv3.2/cv3.2.2/Conv]}");
  EXPECT_EQ(b.layers[0].device, "DLA");
  EXPECT_EQ(b.layers[2].name, "/model.22/Slice_1");
  EXPECT_EQ(b.layers[2].type, "SLICE");
  EXPECT_EQ(b.layers[2].device, "GPU");
  EXPECT_EQ(b.layers[2].source.line, 19u);
}

TEST(FormatsDla, TenXFallbacksCarryTheirReasonLine) {
  Capture c = load({fixture("formats/dla_info_10x.log")});
  ASSERT_EQ(c.dla_fallbacks.size(), 3u);
  const DlaFallback& f = c.dla_fallbacks[0];
  EXPECT_EQ(f.layer, "/model.22/Slice_1");
  EXPECT_EQ(f.kind, "SLICE");
  EXPECT_EQ(f.reason, "DLA only supports slicing 4 dimensional tensors");
  EXPECT_EQ(f.source.line, 9u);
  EXPECT_EQ(f.reason_source.line, 10u);
  // The third warning has no reason line after it.
  EXPECT_EQ(c.dla_fallbacks[2].layer, "/model.22/Concat_3");
  EXPECT_EQ(c.dla_fallbacks[2].reason, "");
  EXPECT_EQ(c.dla_fallbacks[2].reason_source.line, 0u);
}

TEST(FormatsDla, OlderSyntaxesAndMissingScaleAreRead) {
  Capture c = load({fixture("formats/dla_8x.log")});
  ASSERT_EQ(c.dla_fallbacks.size(), 4u);
  EXPECT_EQ(c.dla_fallbacks[0].layer, "Embedding matrix");
  EXPECT_EQ(c.dla_fallbacks[0].syntax, "8.x");
  EXPECT_EQ(c.dla_fallbacks[1].layer, "(Unnamed Layer* 275) [Gather]");
  EXPECT_EQ(c.dla_fallbacks[1].kind, "Gather");
  EXPECT_EQ(c.dla_fallbacks[1].reason, "DLA only supports FP16 and Int8 precision type");
  EXPECT_EQ(c.dla_fallbacks[2].layer, "Conv_0");
  EXPECT_EQ(c.dla_fallbacks[2].reason, "does not support dynamic shapes in any dimension");
  EXPECT_EQ(c.dla_fallbacks[3].layer, "{ForeignNode[Conv_12...Relu_30]}");
  ASSERT_EQ(c.precision_fallbacks.size(), 1u);
  EXPECT_EQ(c.precision_fallbacks[0].tensor, "input_ids");
  EXPECT_EQ(c.precision_fallbacks[0].source.line, 7u);
}

TEST(FormatsDla, TableListsEveryLayerWithWhereItRunsAndWhy) {
  auto r = test::run_trtlens("explain --show dla --format csv " +
                             test::shell_quote(fixture("formats/dla_info_10x.log")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string path = fixture("formats/dla_info_10x.log");
  EXPECT_NE(r.out.find("/model.22/Slice_1,/model.22/Slice_1,GPU,DLA only supports slicing 4 "
                       "dimensional tensors,\"" +
                       path + ":9, " + path + ":10\""),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("/model.22/Concat_3,/model.22/Concat_3,GPU,TensorRT printed no reason"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(",DLA,"), std::string::npos);
}

// --- Build tuner --------------------------------------------------------------------------

TEST(FormatsTuner, LogIterationsRoutesAccuracyAndTheBestBuildIsFinal) {
  Capture c = load({fixture("formats/tuner_11_1.log")});
  ASSERT_EQ(c.tuning.size(), 1u);
  const TuningRun& t = c.tuning[0];
  EXPECT_EQ(t.expanded, 3);
  ASSERT_EQ(t.phases.size(), 1u);
  EXPECT_EQ(t.phases[0].first, "exhaustive");
  ASSERT_EQ(t.iterations.size(), 3u);
  EXPECT_EQ(t.iterations[0].route, "-match_ragged_mha=on -copy_ppg=off");
  EXPECT_TRUE(t.iterations[0].ended);
  EXPECT_TRUE(t.iterations[2].aborted);
  ASSERT_EQ(t.iterations[1].accuracy_loss.size(), 1u);
  EXPECT_DOUBLE_EQ(t.iterations[1].accuracy_loss[0].second, 0.612);
  EXPECT_TRUE(t.iterations[1].accuracy_failed);
  EXPECT_FALSE(t.iterations[0].accuracy_failed);
  EXPECT_EQ(t.best_iter, 1);
  EXPECT_DOUBLE_EQ(*t.best_gpu_ms, 1.234);
  EXPECT_EQ(t.summary_ok, 2);
  EXPECT_EQ(t.summary_total, 3);
  // Two iterations built an engine (the third aborted); the first is the best, so it is final.
  ASSERT_EQ(c.builds.size(), 2u);
  EXPECT_TRUE(c.builds[0].final);
  EXPECT_FALSE(c.builds[1].final);
}

TEST(FormatsTuner, CacheLinesAreReadAndACutLineIsReported) {
  Capture c = load({fixture("formats/tuning_cache.jsonl")});
  ASSERT_EQ(c.inputs.size(), 1u);
  EXPECT_EQ(c.inputs[0].kind, "tuning-cache");
  EXPECT_EQ(c.inputs[0].unrecognized, 1u);  // the last line is cut
  ASSERT_EQ(c.tuning.size(), 1u);
  const TuningRun& t = c.tuning[0];
  EXPECT_EQ(t.default_route, "-match_ragged_mha=off -copy_ppg=off");
  ASSERT_EQ(t.iterations.size(), 3u);
  EXPECT_TRUE(t.iterations[2].crash);
  EXPECT_FALSE(t.iterations[2].gpu_time_ms);
  EXPECT_EQ(t.iterations[2].error_message, "Internal Error (copy_ppg requires ragged MHA)");
  EXPECT_EQ(t.best_iter, 1);  // 1.234 ms < 1.301 ms; iteration 3 crashed
}

// --- explain ------------------------------------------------------------------------------

TEST(FormatsExplain, DlaFallbacksBecomeMissedRemarksFoldedPerScope) {
  Capture c = load({fixture("formats/dla_info_10x.log")});
  analyze(c, AnalysisOptions{});
  int missed = 0;
  for (const auto& r : c.remarks) missed += r.kind == "missed";
  EXPECT_EQ(missed, 3);
  ASSERT_FALSE(c.remarks.empty());
  EXPECT_EQ(c.remarks[0].kind, "missed");  // failures first
  EXPECT_EQ(c.remarks[0].scope, "/model.22");
  EXPECT_EQ(c.remarks[0].evidence.size(), 2u);
}

// A100 FP16 ResNet: Conv_0 + Relu_1 feeds MaxPool_2 (3x3 window, 112 -> 56: a ConvActPool
// candidate in INT8) and Conv_43 + Add_44 + Relu_45 feeds GlobalAveragePool_46 (7x7 -> 1x1, a
// reduction that no precision fuses): only the first is a missed fusion.
TEST(FormatsExplain, AGlobalPoolAfterAConvolutionIsNoMissedConvActPool) {
  TRTLENS_REQUIRE_SHARED();
  Capture c = load({trex("examples/pytorch/resnet/A100/fp16/resnet.onnx.engine.graph.json")});
  analyze(c, AnalysisOptions{});
  std::vector<std::string> pools;
  for (const auto& r : c.remarks)
    if (r.kind == "missed" && r.category == "fusion" &&
        r.reason.find("pooling after it") != std::string::npos)
      pools.push_back(r.layer);
  EXPECT_EQ(pools, std::vector<std::string>{"Conv_0 + Relu_1"});
}

TEST(FormatsExplain, MissingScaleNamesTheLayersTouchingTheTensor) {
  Capture c = load({fixture("formats/dla_8x.log")});
  analyze(c, AnalysisOptions{});
  bool found = false;
  for (const auto& r : c.remarks)
    if (r.category == "precision" && r.kind == "missed" &&
        r.reason.rfind("Missing scale and zero-point for tensor input_ids", 0) == 0)
      found = r.evidence.at(0).line == 7;
  EXPECT_TRUE(found);
}

TEST(FormatsExplain, FusionLinesOfTheSeedAreRemarksWithTheirLines) {
  Capture c = load({fixture("seed000_int8.log")});
  analyze(c, AnalysisOptions{});
  size_t passed = 0;
  for (const auto& r : c.remarks) passed += r.kind == "passed" && r.category == "fusion";
  EXPECT_EQ(passed, c.onnx.events.size() -
                        std::count_if(c.onnx.events.begin(), c.onnx.events.end(),
                                      [](const FusionEvent& e) { return e.kind == "run"; }));
}

TEST(FormatsExplain, CliFiltersByKindAndNodeAndWritesEveryFormat) {
  const std::string in = test::shell_quote(fixture("formats/dla_info_10x.log"));
  auto r = test::run_trtlens("explain --kind missed --node Softmax --format json " + in);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["remarks"].size(), 1u);
  EXPECT_EQ(j["remarks"][0]["reason"],
            "SOFTMAX falls back from DLA to GPU: DLA only supports softmax on the channel axis of "
            "4D tensors");
  for (const char* f : {"table", "csv", "md", "html"}) {
    auto out = test::run_trtlens(std::string("explain --format ") + f + " " + in);
    EXPECT_EQ(out.exit_code, 0) << f << out.err;
    EXPECT_NE(out.out.find("Slice"), std::string::npos) << f;  // Markdown escapes the "_"
  }
  EXPECT_EQ(test::run_trtlens("explain --kind nope " + in).exit_code, 2);
}

TEST(FormatsExplain, MissedSectionFoldsRepeats) {
  Capture c = load({fixture("formats/dla_info_10x.log")});
  analyze(c, AnalysisOptions{});
  std::ostringstream md;
  write_missed_section(c, "md", md);
  EXPECT_NE(md.str().find("### Missed optimisations"), std::string::npos);
  EXPECT_NE(md.str().find("**/model.22**"), std::string::npos);
}

// --- The tuner's best route against its default route -----------------------------------

// tuner_default_route.log: iteration 1 runs the route named "default", iteration 2
// "-fp16_conv=on" is best (line "Best iteration: -fp16_conv=on"). Between their listings the
// conv layer goes FP32 -> FP16 (input) with tactic 0xa1 -> 0xa2; the Gemm keeps tactic 0xb1.
TEST(FormatsTuner, BestRouteIsDiffedAgainstTheRouteNamedDefault) {
  Capture c = load({fixture("formats/tuner_default_route.log")});
  analyze(c, AnalysisOptions{});
  ASSERT_EQ(c.tuning.size(), 1u);
  const TuningRun& t = c.tuning[0];
  EXPECT_EQ(t.default_iter, 1);
  EXPECT_EQ(t.default_build, 0);
  EXPECT_EQ(t.best_build, 1);
  ASSERT_TRUE(t.best_vs_default);
  auto r = test::run_trtlens("explain --show tuner --format json " +
                             test::shell_quote(fixture("formats/tuner_default_route.log")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["best_vs_default"].size(), 1u);
  const auto& cmp = j["best_vs_default"][0];
  EXPECT_EQ(cmp["default_route"], "default");
  EXPECT_EQ(cmp["best_route"], "-fp16_conv=on");
  bool tactic = false, precision = false;
  for (const auto& ch : cmp["diff"]["changes"]) {
    const bool conv = ch["head_layers"].dump().find("/conv1/Conv") != std::string::npos;
    if (ch["kind"] == "tactic" && conv)
      tactic = ch["base"] == "0x00000000000000a1" && ch["head"] == "0x00000000000000a2";
    if (ch["kind"] == "precision" && conv) precision = true;
    EXPECT_FALSE(ch["kind"] == "tactic" && !conv) << ch.dump();  // the Gemm kept 0xb1
  }
  EXPECT_TRUE(tactic) << cmp["diff"]["changes"].dump();
  EXPECT_TRUE(precision) << cmp["diff"]["changes"].dump();
  auto text = test::run_trtlens("explain --show tuner " +
                                test::shell_quote(fixture("formats/tuner_default_route.log")));
  EXPECT_NE(text.out.find("best route (iteration 2) against the default route (iteration 1)"),
            std::string::npos)
      << text.out;
  auto md = test::run_trtlens("explain --show tuner --format md " +
                              test::shell_quote(fixture("formats/tuner_default_route.log")));
  EXPECT_NE(md.out.find("- best: -fp16\\_conv=on\n"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("## trtlens diff"), std::string::npos) << md.out;
}

// With the cache beside the log, the header's default_build_route names the default: iteration
// 2 of tuner_11_1.log ("-match_ragged_mha=off -copy_ppg=off"). Its listing and the best one's
// (iteration 1) are the same text, so nothing changed.
TEST(FormatsTuner, CacheHeaderNamesTheDefaultRouteOfTheLog) {
  Capture c = load({fixture("formats/tuner_11_1.log"), fixture("formats/tuning_cache.jsonl")});
  analyze(c, AnalysisOptions{});
  const TuningRun* log = nullptr;
  for (const auto& t : c.tuning)
    if (t.from == "log") log = &t;
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(log->default_iter, 2);
  EXPECT_EQ(log->default_build, 1);
  EXPECT_EQ(log->best_build, 0);
  ASSERT_TRUE(log->best_vs_default);
  EXPECT_TRUE(log->best_vs_default->changes.empty());
  // The log alone names no default: the note says what to give.
  Capture alone = load({fixture("formats/tuner_11_1.log")});
  analyze(alone, AnalysisOptions{});
  EXPECT_NE(alone.tuning[0].comparison_note.find("default_build_route"), std::string::npos);
}

// --- trtlens json carries what explain shows ---------------------------------------------

// dla_info_10x.log: 3 fallback warnings (lines 9, 11, 13; reasons on lines 10 and 12, none for
// Concat_3), 5 placement lines ([DlaLayer] line 16, [GpuLayer] lines 18-21).
TEST(FormatsJson, DocumentCarriesRemarksDlaPlacementsAndFallbacks) {
  const std::string path = fixture("formats/dla_info_10x.log");
  auto r = test::run_trtlens("json " + test::shell_quote(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["dla"]["fallbacks"].size(), 3u);
  EXPECT_EQ(j["dla"]["fallbacks"][0]["layer"], "/model.22/Slice_1");
  EXPECT_EQ(j["dla"]["fallbacks"][0]["kind"], "SLICE");
  // The reason line without its closing full stop (as the reader keeps reasons).
  EXPECT_EQ(j["dla"]["fallbacks"][0]["reason"], "DLA only supports slicing 4 dimensional tensors");
  EXPECT_EQ(j["dla"]["fallbacks"][0]["source"]["line"], 9);
  EXPECT_EQ(j["dla"]["fallbacks"][0]["reason_source"]["line"], 10);
  EXPECT_EQ(j["dla"]["fallbacks"][2]["layer"], "/model.22/Concat_3");
  EXPECT_TRUE(j["dla"]["fallbacks"][2]["reason_source"].is_null());
  ASSERT_EQ(j["dla"]["placements"].size(), 5u);
  EXPECT_EQ(j["dla"]["placements"][0]["device"], "DLA");
  EXPECT_EQ(j["dla"]["placements"][0]["source"]["line"], 16);
  EXPECT_EQ(j["dla"]["placements"][2]["layer"], "/model.22/Slice_1");
  EXPECT_EQ(j["dla"]["placements"][2]["kind"], "SLICE");
  EXPECT_EQ(j["dla"]["placements"][2]["device"], "GPU");
  size_t missed = 0;
  for (const auto& rm : j["remarks"]) missed += rm["kind"] == "missed";
  EXPECT_EQ(missed, 3u);  // one per fallback warning
  // The layers carry their device.
  bool slice_on_gpu = false;
  for (const auto& l : j["builds"][0]["layers"])
    if (l["name"] == "/model.22/Slice_1") slice_on_gpu = l["device"] == "GPU";
  EXPECT_TRUE(slice_on_gpu);
}

// dla_8x.log line 7: "Missing scale and zero-point for tensor input_ids, ...".
TEST(FormatsJson, DocumentCarriesPrecisionFallbacks) {
  auto r = test::run_trtlens("json " + test::shell_quote(fixture("formats/dla_8x.log")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["precision_fallbacks"].size(), 1u);
  EXPECT_EQ(j["precision_fallbacks"][0]["tensor"], "input_ids");
  EXPECT_EQ(j["precision_fallbacks"][0]["source"]["line"], 7);
}

// tuner_11_1.log: "Expanded to 3", iterations 1 (ok, loss 0.000123), 2 (accuracy FAIL 0.612),
// 3 (TASK_ABORT); best 1 at 1.234 ms; summary 2 / 3.
TEST(FormatsJson, DocumentCarriesTuningRuns) {
  auto r = test::run_trtlens("json " + test::shell_quote(fixture("formats/tuner_11_1.log")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["tuning"].size(), 1u);
  const auto& t = j["tuning"][0];
  EXPECT_EQ(t["from"], "log");
  EXPECT_EQ(t["expanded"], 3);
  EXPECT_EQ(t["best_iter"], 1);
  EXPECT_DOUBLE_EQ(t["best_gpu_ms"].get<double>(), 1.234);
  EXPECT_EQ(t["summary_ok"], 2);
  EXPECT_EQ(t["summary_total"], 3);
  ASSERT_EQ(t["iterations"].size(), 3u);
  EXPECT_EQ(t["iterations"][0]["status"], "ok");
  EXPECT_TRUE(t["iterations"][0]["best"].get<bool>());
  EXPECT_DOUBLE_EQ(t["iterations"][0]["accuracy_loss"]["probs"].get<double>(), 0.000123);
  EXPECT_EQ(t["iterations"][1]["status"], "accuracy-fail");
  EXPECT_EQ(t["iterations"][2]["status"], "aborted");
  EXPECT_EQ(t["iterations"][2]["route"], "-match_ragged_mha=on -copy_ppg=on");
  EXPECT_TRUE(t["best_vs_default"]["diff"].is_null());  // the log alone names no default
}

}  // namespace
}  // namespace trtlens
