// Findings: each rule on an input that triggers it and one that does not. Expected values
// come from TREx's published lint expectations, the seed log and hand arithmetic on the
// fixtures (fixtures/findings/*), never from trtlens's own output.
#include "analysis/findings.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "analysis/analyze.h"
#include "model/engine_graph.h"
#include "test_support.h"

namespace trtlens {
namespace {

using test::fixture;
using test::run_trtlens;
using test::shell_quote;

// Loaded and analysed, as the commands do.
Capture analyzed(const std::vector<std::string>& paths) {
  Capture c = test::load(paths);
  analyze(c, AnalysisOptions{});
  return c;
}

std::vector<const Finding*> with_id(const Capture& c, const std::string& id) {
  std::vector<const Finding*> out;
  for (const auto& f : c.findings)
    if (f.id == id) out.push_back(&f);
  return out;
}

// The finding of `id` that names `layer`, or nullptr.
const Finding* about(const Capture& c, const std::string& id, const std::string& layer) {
  for (const Finding* f : with_id(c, id))
    if (std::find(f->layers.begin(), f->layers.end(), layer) != f->layers.end()) return f;
  return nullptr;
}

bool any_finding_names(const Capture& c, const std::string& layer) {
  for (const auto& f : c.findings)
    if (std::find(f.layers.begin(), f.layers.end(), layer) != f.layers.end()) return true;
  return false;
}

std::string mobilenet() {
  return test::shared_dir() + "/corpus/trex/tests/inputs/mobilenet.qat.onnx.engine.graph.json";
}

// --- TREx's own lint expectations on mobilenet.qat (formats-and-trex.md §2.4) ---

TEST(FindingsCorpus, MobilenetQuantizedConvWithFloatOutput) {
  TRTLENS_REQUIRE_SHARED();
  Capture c = analyzed({mobilenet()});
  const Finding* f =
      about(c, "int8-float-output", "features.4.conv.2.weight + QuantizeLinear_187 + Conv_191");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->evidence["input"], "INT8");
  EXPECT_EQ(f->evidence["output"], "FP16");  // "Thirty-two wide ... FP16 format" in the file
  EXPECT_EQ(f->severity, Severity::Warning);
}

TEST(FindingsCorpus, MobilenetFirstConvChannelsNotAligned) {
  TRTLENS_REQUIRE_SHARED();
  Capture c = analyzed({mobilenet()});
  const Finding* f = about(c, "channels-unaligned",
                           "features.0.0.weight + QuantizeLinear_8 + Conv_12 + PWN(Clip_16)");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->evidence["C"], 3);
  EXPECT_EQ(f->evidence["K"], 32);
  EXPECT_EQ(f->evidence["alignment"], 16);
}

TEST(FindingsCorpus, MobilenetQdqReformatFromInput) {
  TRTLENS_REQUIRE_SHARED();
  Capture c = analyzed({mobilenet()});
  auto qdq = with_id(c, "reformat-qdq");
  ASSERT_EQ(qdq.size(), 1u);
  // 18 Reformat layers in the file, 17 of them with "Origin": "QDQ" (grep -c '"QDQ"').
  EXPECT_EQ(qdq[0]->evidence["count"], 17);
  const nlohmann::ordered_json* item = nullptr;
  for (const auto& it : qdq[0]->evidence["items"])
    if (it["layer"] == "QuantizeLinear_2") item = &it;
  ASSERT_NE(item, nullptr);
  EXPECT_EQ((*item)["conversion"], "FP32 -> INT8");
  EXPECT_EQ((*item)["origin"], "QDQ");
  EXPECT_EQ((*item)["from_dims"], nlohmann::ordered_json({1, 3, 224, 224}));
  EXPECT_EQ((*item)["to_dims"], nlohmann::ordered_json({1, 3, 224, 224}));
  // TREx golden: inputs 602,112 B + outputs 150,528 B.
  EXPECT_EQ((*item)["bytes"], 752640);
  EXPECT_EQ((*item)["between"]["from"], "graph input input1");
  // The one REFORMAT-origin reformat changes only the vector width (FP16 32-wide -> 2-wide).
  auto layout = with_id(c, "reformat-layout");
  ASSERT_EQ(layout.size(), 1u);
  EXPECT_EQ(layout[0]->layers,
            std::vector<std::string>{
                "Reformatting CopyNode for Input Tensor 0 to GlobalAveragePool_843"});
}

TEST(FindingsCorpus, MobilenetDepthwiseIsNotCalledUnaccelerated) {
  TRTLENS_REQUIRE_SHARED();
  Capture c = analyzed({mobilenet()});
  // TREx flags this depthwise convolution as "not accelerated"; trtlens must not.
  const std::string dw = "features.1.conv.0.0.weight + QuantizeLinear_25 + Conv_29 + PWN(Clip_33)";
  EXPECT_EQ(about(c, "no-tensor-core", dw), nullptr);
  EXPECT_EQ(about(c, "channels-unaligned", dw), nullptr);
  // Its first convolution really runs a dp4a (int8x4) kernel: that one is reported.
  EXPECT_NE(
      about(c, "no-tensor-core", "features.0.0.weight + QuantizeLinear_8 + Conv_12 + PWN(Clip_16)"),
      nullptr);
}

// --- seed 000 (INT8 build log excerpt) ---

TEST(FindingsSeed, Int8InputReformatAndFloatOutputConv) {
  Capture c = analyzed({fixture("seed000_int8.log")});
  const Finding* io =
      about(c, "reformat-io", "Reformatting CopyNode for Input Tensor 0 to Conv_0 + PWN(Clip_3)");
  ASSERT_NE(io, nullptr);
  EXPECT_EQ(io->evidence["items"][0]["conversion"], "FP32 -> INT8");
  // Float(1,3,512,768) in, Int8(1,3,512,768) out: 1179648*4 + 1179648 bytes.
  EXPECT_EQ(io->evidence["bytes_moved"], 5898240);
  const Finding* fo = about(c, "int8-float-output", "Conv_136 + Relu_137");
  ASSERT_NE(fo, nullptr);
  EXPECT_EQ(fo->evidence["output"], "FP32");
  EXPECT_EQ(fo->evidence["graph_output"], true);
  // The excerpt is one build: nothing ambiguous about it.
  EXPECT_TRUE(with_id(c, "ambiguous-final-build").empty());
}

// Seed 002 (TRT 8.2, INT8): line 59 is a standalone Scale quantizing the FP32 input; lines
// 107-108 are an INT8 convolution writing Float into a reformat that feeds graph output "hm".
TEST(FindingsSeed, StandaloneQuantizeScaleIsUnfusedNotAnIsland) {
  TRTLENS_REQUIRE_SHARED();
  Capture c = analyzed({test::shared_dir() + "/seeds/002_4e1b64db6c7b7a92.txt"});
  const Finding* f = about(c, "qdq-unfused", "QuantizeLinear_2_quantize_scale_node");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->evidence["from"], "FP32");
  EXPECT_EQ(f->evidence["to"], "INT8");
  EXPECT_EQ(about(c, "precision-island", "QuantizeLinear_2_quantize_scale_node"), nullptr);
  const Finding* hm = about(c, "int8-float-output",
                            "hm.2.weight + QuantizeLinear_626_quantize_scale_node + Conv_628");
  ASSERT_NE(hm, nullptr);
  EXPECT_EQ(hm->evidence["graph_output"], true);
  EXPECT_EQ(hm->severity, Severity::Info);
}

// --- hand-made fixtures: fixtures/findings/problems_int8.json triggers, clean_fp16.json not ---

TEST(FindingsFixtures, CleanFp16BuildHasNoFindings) {
  Capture c = analyzed({fixture("findings/clean_fp16.json")});
  ASSERT_EQ(c.builds.size(), 1u);
  EXPECT_TRUE(c.findings.empty()) << c.findings.front().id << ": " << c.findings.front().message;
}

TEST(FindingsFixtures, ReformatGroups) {
  Capture c = analyzed({fixture("findings/problems_int8.json")});
  const Finding* io = about(c, "reformat-io", "Reformatting CopyNode for Input Tensor 0 to Conv_1");
  ASSERT_NE(io, nullptr);
  // FP32 1x24x32x32 (98304 B) -> INT8 (24576 B).
  EXPECT_EQ(io->evidence["bytes_moved"], 122880);
  ASSERT_NE(about(c, "reformat-qdq", "QuantizeLinear_5"), nullptr);
  const Finding* prec =
      about(c, "reformat-precision", "Reformatting CopyNode for Input Tensor 0 to TopK_4");
  ASSERT_NE(prec, nullptr);
  EXPECT_EQ(prec->evidence["items"][0]["conversion"], "FP16 -> FP32");
  EXPECT_EQ(prec->evidence["items"][0]["between"]["from"], "Conv_3");
  EXPECT_EQ(prec->evidence["items"][0]["between"]["to"], nlohmann::ordered_json({"TopK_4"}));
  ASSERT_NE(about(c, "reformat-layout", "Reformatting CopyNode for Input Tensor 0 to Conv_2"),
            nullptr);
}

TEST(FindingsFixtures, PrecisionIslandWithReasons) {
  Capture c = analyzed({fixture("findings/problems_int8.json")});
  const Finding* f = about(c, "precision-island", "TopK_4");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->evidence["allowed"], nlohmann::ordered_json({"FP16", "INT8"}));
  EXPECT_EQ(f->evidence["allowed_from"], "inferred from tensor types");
  std::string reasons = f->evidence["reasons"].dump();
  EXPECT_NE(reasons.find("TopK"), std::string::npos);
  EXPECT_NE(reasons.find("reformat pair"), std::string::npos);
  const Finding* out = about(c, "precision-island", "DequantizeLinear_7 + Conv_8");
  ASSERT_NE(out, nullptr);
  EXPECT_NE(out->evidence["reasons"].dump().find("graph output output"), std::string::npos);
}

TEST(FindingsFixtures, QuantizationRules) {
  Capture c = analyzed({fixture("findings/problems_int8.json")});
  const Finding* unfused = about(c, "qdq-unfused", "Scale_6");
  ASSERT_NE(unfused, nullptr);
  EXPECT_EQ(unfused->evidence["from"], "INT8");
  EXPECT_EQ(unfused->evidence["to"], "FP32");
  EXPECT_NE(about(c, "qdq-float-op", "DequantizeLinear_7 + Conv_8"), nullptr);
  const Finding* fo = about(c, "int8-float-output", "Conv_3");
  ASSERT_NE(fo, nullptr);
  EXPECT_EQ(fo->severity, Severity::Warning);  // feeds a layer, not a graph output
  // INT8 -> INT8 convolutions are fine.
  EXPECT_EQ(about(c, "int8-float-output", "Conv_1"), nullptr);
  EXPECT_EQ(with_id(c, "qdq-unfused").size(), 1u);
}

TEST(FindingsFixtures, KernelRulesSkipDepthwiseAndFp32) {
  Capture c = analyzed({fixture("findings/problems_int8.json")});
  const Finding* c1 = about(c, "channels-unaligned", "Conv_1");
  ASSERT_NE(c1, nullptr);
  EXPECT_EQ(c1->evidence["C"], 24);
  EXPECT_EQ(c1->evidence["K"], 24);
  // Conv_2 is depthwise by its Groups == C (LayerType CaskConvolution), with a non-tensor-core
  // kernel name: neither rule may fire on it.
  EXPECT_EQ(about(c, "channels-unaligned", "Conv_2"), nullptr);
  EXPECT_EQ(about(c, "no-tensor-core", "Conv_2"), nullptr);
  EXPECT_NE(about(c, "no-tensor-core", "Conv_3"), nullptr);
  // Conv_1 runs an xmma kernel; Conv_8 runs FP32.
  EXPECT_EQ(about(c, "no-tensor-core", "Conv_1"), nullptr);
  EXPECT_EQ(about(c, "no-tensor-core", "DequantizeLinear_7 + Conv_8"), nullptr);
}

TEST(FindingsFixtures, NamesOnlyListing) {
  Capture c = analyzed({fixture("findings/names_only.json")});
  auto f = with_id(c, "names-only");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0]->hint.find("--profilingVerbosity=detailed"), std::string::npos);
  EXPECT_EQ(f[0]->evidence["layers"], 3);
  EXPECT_TRUE(with_id(analyzed({fixture("findings/clean_fp16.json")}), "names-only").empty());
}

TEST(FindingsFixtures, TwoBuildsInOneRunAreAmbiguous) {
  Capture c = analyzed({fixture("findings/two_builds.log")});
  ASSERT_EQ(c.builds.size(), 2u);
  auto f = with_id(c, "ambiguous-final-build");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->severity, Severity::Warning);
  EXPECT_EQ(f[0]->evidence["same_run"], 2);
}

// --- time / profile / options rules on a hand-built capture ---
// Other work fills Layer::time, Build::profile and Capture::runs from real files; here the
// fields are set by hand to check each threshold on both sides.

Layer fp16_layer(const std::string& name, const std::string& type, const std::string& in,
                 const std::string& out, double share, double avg_ms) {
  Layer l;
  l.name = name;
  l.type = type;
  l.inputs = {test::tensor(in, "FP16", {1, 16, 8, 8})};
  l.outputs = {test::tensor(out, "FP16", {1, 16, 8, 8})};
  l.time.percentage = share;
  l.time.average_ms = avg_ms;
  return l;
}

// A chain of layers with the given types and shares.
Capture chain(const std::vector<std::pair<std::string, double>>& types_shares,
              double ms_per_percent = 0.01) {
  Capture c;
  Build b;
  b.final = true;
  for (size_t i = 0; i < types_shares.size(); ++i) {
    const auto& [type, share] = types_shares[i];
    b.layers.push_back(fp16_layer(type + "_" + std::to_string(i), type,
                                  i ? "t" + std::to_string(i - 1) : "in", "t" + std::to_string(i),
                                  share, share * ms_per_percent));
  }
  b.profile.present = true;
  b.profile.count = 500;
  b.graph = build_engine_graph(b.layers, b.bindings);
  c.builds.push_back(std::move(b));
  return c;
}

bool has(const std::vector<Finding>& fs, const std::string& id) {
  return std::any_of(fs.begin(), fs.end(), [&](const Finding& f) { return f.id == id; });
}

TEST(FindingsTime, HotLayer) {
  Capture c = chain({{"CaskConvolution", 45}, {"CaskConvolution", 30}, {"CaskPooling", 25}});
  auto fs = run_findings(c, {});
  EXPECT_EQ(std::count_if(fs.begin(), fs.end(), [](auto& f) { return f.id == "hot-layer"; }), 3);
  std::vector<std::pair<std::string, double>> flat(20, {"CaskConvolution", 5.0});
  EXPECT_FALSE(has(run_findings(chain(flat), {}), "hot-layer"));
}

TEST(FindingsTime, MyelinShare) {
  auto fs = run_findings(chain({{"Myelin", 60}, {"CaskConvolution", 40}}), {});
  ASSERT_TRUE(has(fs, "myelin-share"));
  auto it = std::find_if(fs.begin(), fs.end(), [](auto& f) { return f.id == "myelin-share"; });
  EXPECT_DOUBLE_EQ(it->evidence["time_share_percent"].get<double>(), 60.0);
  EXPECT_FALSE(
      has(run_findings(chain({{"CaskConvolution", 60}, {"CaskPooling", 40}}), {}), "myelin-share"));
}

TEST(FindingsTime, TinyLayersAddingUp) {
  // 50 layers at 0.45% = 22.5%, plus one big layer.
  std::vector<std::pair<std::string, double>> many(50, {"PointWiseV2", 0.45});
  many.push_back({"CaskConvolution", 77.5});
  EXPECT_TRUE(has(run_findings(chain(many), {}), "tiny-layers"));
  std::vector<std::pair<std::string, double>> few(10, {"PointWiseV2", 0.45});
  few.push_back({"CaskConvolution", 95.5});
  EXPECT_FALSE(has(run_findings(chain(few), {}), "tiny-layers"));
}

TEST(FindingsTime, ShapeCopyShare) {
  EXPECT_TRUE(has(run_findings(chain({{"Shuffle", 8}, {"Slice", 7}, {"CaskConvolution", 85}}), {}),
                  "shape-copy-share"));
  EXPECT_FALSE(
      has(run_findings(chain({{"Shuffle", 5}, {"CaskConvolution", 95}}), {}), "shape-copy-share"));
}

TEST(FindingsTime, LayerSumFarAboveGpuCompute) {
  // Shares 60 + 40 at 0.02 ms per percent: the layers sum to 2.0 ms.
  Capture c = chain({{"CaskConvolution", 60}, {"CaskPooling", 40}}, 0.02);
  RunInfo run;
  run.perf.push_back({"GPU Compute Time", "mean", 1.0, "ms"});
  c.runs.push_back(run);
  auto fs = run_findings(c, {});
  ASSERT_TRUE(has(fs, "layer-sum-overhead"));
  auto it =
      std::find_if(fs.begin(), fs.end(), [](auto& f) { return f.id == "layer-sum-overhead"; });
  EXPECT_DOUBLE_EQ(it->evidence["ratio"].get<double>(), 2.0);
  c.runs[0].perf[0].value = 1.9;  // 2.0 / 1.9 < 1.2
  EXPECT_FALSE(has(run_findings(c, {}), "layer-sum-overhead"));
}

TEST(FindingsTime, AuxiliaryStreams) {
  Capture c = chain({{"CaskConvolution", 60}, {"CaskPooling", 40}});
  EXPECT_FALSE(has(run_findings(c, {}), "aux-streams"));
  c.builds[0].layers[1].stream_id = 1;
  EXPECT_TRUE(has(run_findings(c, {}), "aux-streams"));
}

TEST(FindingsSanity, ProfileOfOneIteration) {
  Capture c = chain({{"CaskConvolution", 60}, {"CaskPooling", 40}});
  EXPECT_FALSE(has(run_findings(c, {}), "profile-one-iteration"));
  c.builds[0].profile.count = 1;
  EXPECT_TRUE(has(run_findings(c, {}), "profile-one-iteration"));
}

TEST(FindingsSanity, PercentagesFarFrom100) {
  EXPECT_FALSE(has(run_findings(chain({{"CaskConvolution", 60}, {"CaskPooling", 40}}), {}),
                   "profile-percent-sum"));
  EXPECT_TRUE(has(run_findings(chain({{"CaskConvolution", 30}, {"CaskPooling", 30}}), {}),
                  "profile-percent-sum"));
}

TEST(FindingsSanity, UnmatchedProfileRows) {
  Capture c = chain({{"CaskConvolution", 60}, {"CaskPooling", 40}});
  EXPECT_FALSE(has(run_findings(c, {}), "profile-unmatched"));
  c.builds[0].profile.unmatched_rows = {"Conv_99 + Relu_100"};
  EXPECT_TRUE(has(run_findings(c, {}), "profile-unmatched"));
}

TEST(FindingsPrecision, BuildOptionDecidesWhatIsAllowed) {
  // An FP32 layer between FP16 layers.
  Capture c = chain({{"CaskConvolution", 40}, {"CaskPooling", 30}, {"CaskConvolution", 30}});
  auto& mid = c.builds[0].layers[1];
  mid.inputs[0].dtype = mid.outputs[0].dtype = "FP32";
  RunInfo run;
  run.build_options = {{"Precision", "FP32+FP16"}};
  c.runs.push_back(run);
  auto fs = run_findings(c, {});
  auto it = std::find_if(fs.begin(), fs.end(), [](auto& f) { return f.id == "precision-island"; });
  ASSERT_NE(it, fs.end());
  EXPECT_EQ(it->evidence["allowed_from"], "build options");
  EXPECT_EQ(it->layers, std::vector<std::string>{"CaskPooling_1"});
  // FP32-only build: FP32 layers are what was asked for, even with FP16 tensors around.
  c.runs[0].build_options = {{"Precision", "FP32"}};
  EXPECT_FALSE(has(run_findings(c, {}), "precision-island"));
  // Strongly typed: the model decides precisions, not the builder.
  c.runs[0].build_options = {{"Precision", "FP32+FP16 (Strongly Typed)"}};
  EXPECT_FALSE(has(run_findings(c, {}), "precision-island"));
}

TEST(FindingsIgnore, ExactAndPrefix) {
  Capture c = analyzed({fixture("findings/problems_int8.json")});
  size_t all = run_findings(c, {}).size();
  auto no_islands = run_findings(c, {"precision-island"});
  EXPECT_EQ(no_islands.size(), all - 2);
  auto no_reformats = run_findings(c, {"reformat-*"});
  EXPECT_EQ(no_reformats.size(), all - 4);
  EXPECT_FALSE(has(no_reformats, "reformat-io"));
}

// --- the binary: exit codes and formats ---

TEST(FindingsCli, FailOnExitCodes) {
  std::string bad = shell_quote(fixture("findings/problems_int8.json"));
  std::string clean = shell_quote(fixture("findings/clean_fp16.json"));
  EXPECT_EQ(run_trtlens("findings " + bad).exit_code, 0);  // no --fail-on: report only
  EXPECT_EQ(run_trtlens("findings " + bad + " --fail-on warning").exit_code, 1);
  EXPECT_EQ(run_trtlens("findings " + bad + " --fail-on info").exit_code, 1);
  EXPECT_EQ(run_trtlens("findings " + bad + " --fail-on error").exit_code, 0);  // none is error
  EXPECT_EQ(run_trtlens("findings " + clean + " --fail-on info").exit_code, 0);
  // Ignoring every warning-level id leaves only info findings.
  EXPECT_EQ(run_trtlens("findings " + bad +
                        " --fail-on warning --ignore precision-island --ignore qdq-unfused"
                        " --ignore qdq-float-op --ignore int8-float-output"
                        " --ignore channels-unaligned --ignore no-tensor-core")
                .exit_code,
            0);
}

TEST(FindingsCli, InputAndUsageErrorsExit2) {
  auto missing = run_trtlens("findings " + shell_quote(fixture("findings/no_such_file.json")));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no_such_file.json"), std::string::npos);
  auto typo = run_trtlens("findings " + shell_quote(fixture("findings/clean_fp16.json")) +
                          " --ignore reformat-cots");
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("reformat-cots"), std::string::npos);
  EXPECT_EQ(run_trtlens("findings " + shell_quote(fixture("findings/clean_fp16.json")) +
                        " --fail-on fatal")
                .exit_code,
            2);
}

TEST(FindingsCli, JsonMarkdownSummaryAndDocument) {
  std::string bad = shell_quote(fixture("findings/problems_int8.json"));
  auto j = run_trtlens("findings " + bad + " --format json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  ASSERT_TRUE(doc.is_array());
  for (const auto& f : doc) {
    EXPECT_TRUE(is_finding_id(f["id"].get<std::string>())) << f["id"];
    for (const char* key : {"severity", "message", "layers", "onnx_nodes", "evidence", "hint"})
      EXPECT_TRUE(f.contains(key)) << key;
  }
  auto md = run_trtlens("findings " + bad + " --format md");
  EXPECT_NE(md.out.find("`qdq-unfused`"), std::string::npos);
  auto whole = nlohmann::json::parse(run_trtlens("json " + bad).out);
  EXPECT_EQ(whole["findings"].size(), doc.size());
  auto summary = run_trtlens("summary " + bad);
  EXPECT_NE(summary.out.find("findings: "), std::string::npos);
  EXPECT_NE(summary.out.find("qdq-unfused"), std::string::npos);
}

}  // namespace
}  // namespace trtlens
