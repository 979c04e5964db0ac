// Memory: the seed's per-layer formula, TensorRT's memory lines, the ONNX parse trace,
// shapes of dynamic builds and the liveness estimate. Expected values are worked out by hand
// (comments show the arithmetic) or taken from the seed's and TREx's published figures.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/analyze.h"
#include "analysis/layer_names.h"
#include "ingest/build_log/section.h"
#include "test_support.h"

namespace trtlens {
namespace {

using test::fixture;

// Loaded and analysed, as the commands do.
Capture load(const std::vector<std::string>& paths) {
  Capture c = test::load(paths);
  analyze(c, AnalysisOptions{});
  return c;
}
using test::run_trtlens;
using test::shared_dir;

const Layer* find_layer(const Build& b, const std::string& name) {
  for (const auto& l : b.layers)
    if (l.name == name) return &l;
  return nullptr;
}

std::string seed_file(const std::string& prefix) {
  for (const auto& e : std::filesystem::directory_iterator(shared_dir() + "/seeds"))
    if (e.path().filename().string().rfind(prefix, 0) == 0) return e.path().string();
  return "";
}

// The seed's worked examples (section 1.2 of seed 000):
//   Conv_0 + PWN(Clip_3): 1*3*512*768*1 + (32*3*3*3)/1*1 + 1*32*256*384*1 = 4,326,240
//   PWN(Add_133): 2 inputs of 1*128*32*48 INT8 + one output = 589,824
void expect_seed_examples(const Capture& c) {
  const Build* b = c.final_build();
  ASSERT_NE(b, nullptr);
  const Layer* conv = find_layer(*b, "Conv_0 + PWN(Clip_3)");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->memory.input_bytes, 1179648u);
  EXPECT_EQ(conv->memory.weight_bytes, 864u);
  EXPECT_EQ(conv->memory.output_bytes, 3145728u);
  EXPECT_EQ(conv->memory.total_bytes, 4326240u);
  EXPECT_EQ(conv->memory.weight_source, "onnx-parse");
  const Layer* add = find_layer(*b, "PWN(Add_133)");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->memory.input_bytes, 2u * 128 * 32 * 48);
  EXPECT_EQ(add->memory.weight_bytes, 0u);
  EXPECT_EQ(add->memory.total_bytes, 589824u);
  // A convolution whose ONNX node the excerpt does not show: unknown, not zero.
  const Layer* conv4 = find_layer(*b, "Conv_4 + PWN(Clip_7)");
  ASSERT_NE(conv4, nullptr);
  EXPECT_FALSE(conv4->memory.weight_bytes.has_value());
  EXPECT_FALSE(conv4->memory.total_bytes.has_value());
}

TEST(Memory, SeedWorkedExamplesFromFixture) {
  expect_seed_examples(load({fixture("seed000_int8.log")}));
}

TEST(Memory, SeedWorkedExamplesFromSeedFile) {
  TRTLENS_REQUIRE_SHARED();
  expect_seed_examples(load({seed_file("000_")}));
}

TEST(OnnxParse, NodesTensorsAndKernelFromSeed000) {
  Capture c = load({fixture("seed000_int8.log")});
  const OnnxNode* conv = c.onnx.find("Conv_0");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->op, "Conv");
  ASSERT_EQ(conv->inputs.size(), 3u);
  EXPECT_EQ(conv->inputs[0].name, "inputs");
  EXPECT_EQ(conv->inputs[0].dims, (std::vector<int64_t>{1, 3, 512, 768}));
  EXPECT_EQ(conv->inputs[1].name, "661");
  EXPECT_EQ(conv->inputs[1].dims, (std::vector<int64_t>{32, 3, 3, 3}));
  EXPECT_EQ(conv->inputs[1].dtype, "FP32");
  ASSERT_EQ(conv->outputs.size(), 1u);
  EXPECT_EQ(conv->outputs[0].name, "660");
  EXPECT_EQ(conv->kernel(), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(conv->num_outputs, 32);
  const OnnxNode* k = c.onnx.find("Constant_1");
  ASSERT_NE(k, nullptr);
  ASSERT_EQ(k->outputs.size(), 1u);
  EXPECT_TRUE(k->outputs[0].has_dims);
  EXPECT_TRUE(k->outputs[0].dims.empty());  // "()" is a scalar
  ASSERT_NE(c.onnx.find("Clip_3"), nullptr);
  // Conv_0, Constant_1, Constant_2, Clip_3 come from the parse lines; provenance adds the
  // nodes it only knows from layer names, marked inferred.
  size_t parsed = 0;
  for (const auto& n : c.onnx.nodes) parsed += n.inferred ? 0 : 1;
  EXPECT_EQ(parsed, 4u);
}

TEST(OnnxParse, InitializersInputsOutputsFromSeed001) {
  TRTLENS_REQUIRE_SHARED();
  Capture c = load({seed_file("001_")});
  ASSERT_EQ(c.onnx.graph_inputs.size(), 1u);
  EXPECT_EQ(c.onnx.graph_inputs[0].name, "input");
  EXPECT_EQ(c.onnx.graph_inputs[0].dtype, "FP32");
  EXPECT_EQ(c.onnx.graph_inputs[0].dims, (std::vector<int64_t>{-1, 3, 224, 224}));
  // grep -c "Importing initializer" on the seed: 5.
  EXPECT_EQ(c.onnx.initializers.size(), 5u);
  EXPECT_TRUE(c.onnx.is_initializer("onnx::Conv_497"));
  ASSERT_EQ(c.onnx.graph_outputs.size(), 1u);
  EXPECT_EQ(c.onnx.graph_outputs[0].name, "output");
  // The initializer's shape comes from the node line that uses it.
  for (const auto& i : c.onnx.initializers)
    if (i.name == "onnx::Conv_497") EXPECT_EQ(i.dims, (std::vector<int64_t>{64, 3, 7, 7}));
}

TEST(OnnxParse, TensorListSplitsOnAnchorsNotOnNames) {
  std::vector<OnnxValue> v;
  std::string err;
  ASSERT_TRUE(parse_onnx_value_list(
      "[a -> b -> (1, 2)[FLOAT]], [x]y, z -> ()[INT64]], [m::n (q) -> (-1)[HALF]],", v, &err))
      << err;
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].name, "a -> b");
  EXPECT_EQ(v[0].dims, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(v[1].name, "x]y, z");
  EXPECT_EQ(v[1].dtype, "INT64");
  EXPECT_EQ(v[2].name, "m::n (q)");
  EXPECT_EQ(v[2].dims, (std::vector<int64_t>{-1}));
  EXPECT_EQ(v[2].dtype, "FP16");
  v.clear();
  EXPECT_FALSE(parse_onnx_value_list("[broken -> (1, 2)[FLOAT]", v, &err));
}

TEST(LayerNames, FusedNodeNames) {
  EXPECT_EQ(fused_node_names("Conv_0 + PWN(Clip_3)"),
            (std::vector<std::string>{"Conv_0", "Clip_3"}));
  EXPECT_EQ(fused_node_names("PWN(PWN(Mul_5, Add_6), Relu_7)"),
            (std::vector<std::string>{"Mul_5", "Add_6", "Relu_7"}));
  EXPECT_EQ(fused_node_names("A || B [profile 1]"), (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(fused_node_names("x_quantize_scale_node + Conv_1"),
            (std::vector<std::string>{"x", "Conv_1"}));
  EXPECT_EQ(fused_node_names("f(a + b) + c"), (std::vector<std::string>{"f(a + b)", "c"}));
}

TEST(Memory, TrexMobilenetQatWeightsAndQuantizeLayer) {
  TRTLENS_REQUIRE_SHARED();
  Capture c =
      load({shared_dir() + "/corpus/trex/tests/inputs/mobilenet.qat.onnx.engine.graph.json"});
  const Build* b = c.final_build();
  ASSERT_NE(b, nullptr);
  // TREx: weights 3.3 MB; python3 sum of Weights.Count x size(Type) over the file: 3,469,760.
  EXPECT_EQ(b->memory.sum_weights_stored_bytes, 3469760u);
  const Layer* q = find_layer(*b, "QuantizeLinear_2");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->memory.input_bytes, 602112u);   // 1*3*224*224 FP32
  EXPECT_EQ(q->memory.output_bytes, 150528u);  // 1*3*224*224 INT8
  // First convolution: Weights Count 864 Int8, Bias 32 Float.
  const Layer* conv =
      find_layer(*b, "features.0.0.weight + QuantizeLinear_8 + Conv_12 + PWN(Clip_16)");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->memory.weights_stored_bytes, 864u);
  EXPECT_EQ(conv->memory.bias_stored_bytes, 128u);
  EXPECT_EQ(conv->memory.weight_bytes, 864u);  // at the INT8 input size
}

TEST(Memory, Trt8PerLayerLinesTotalsAndRuntimeFigures) {
  Capture c = load({fixture("memory/several_builds.log")});
  ASSERT_EQ(c.builds.size(), 2u);
  const Build& b = c.builds[0];
  const Layer* conv = find_layer(b, "conv1");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->memory.host_persistent, 3200u);
  EXPECT_EQ(conv->memory.device_persistent, 512u);
  EXPECT_EQ(conv->memory.scratch, 1024u);
  // "Skipped printing ... 1 layers with 0 memory size": relu1 is zero, not unknown.
  EXPECT_EQ(find_layer(b, "relu1")->memory.host_persistent, 0u);
  const BuildMemory& m = b.memory;
  EXPECT_EQ(m.total_host_persistent, 3200u);
  EXPECT_EQ(m.total_device_persistent, 512u);
  EXPECT_EQ(m.total_scratch, 1024u);
  EXPECT_EQ(m.total_activation, 4096u);
  EXPECT_EQ(m.block_assignment_bytes, 4096u);
  EXPECT_EQ(m.skipped_zero_layers, 1u);
  EXPECT_EQ(m.peak_cpu_mib, 1.0);
  EXPECT_EQ(m.peak_gpu_mib, 5.0);
  EXPECT_EQ(m.generation_seconds, 1.5);
  EXPECT_EQ(m.loaded_engine_mib, 1.0);
  EXPECT_EQ(m.per_runner_device_persistent, 512u);
  EXPECT_EQ(m.per_runner_host_persistent, 3200u);
  EXPECT_EQ(m.allocated_activation, 4096u);
  ASSERT_EQ(m.timeline.size(), 2u);
  EXPECT_EQ(m.timeline[0].phase, "Init CUDA");
  EXPECT_EQ(m.timeline[0].cpu_delta_mib, 2.0);
  EXPECT_EQ(m.timeline[0].gpu_now_mib, 1073.0);
  EXPECT_EQ(m.timeline[1].gpu_delta_mib, 1.0);
  EXPECT_EQ(m.blocks_seen, 1);
  EXPECT_EQ(c.inputs[0].unrecognized, 0u);
}

TEST(Memory, Trt10BlocksAttachToTheirBuildAndTheMatchingOneIsKept) {
  Capture c = load({fixture("memory/several_builds.log")});
  ASSERT_EQ(c.builds.size(), 2u);
  const Build& b = c.builds[1];
  EXPECT_TRUE(b.final);
  const BuildMemory& m = b.memory;
  // Two strategy blocks; the first names this listing's layers, the second does not.
  EXPECT_EQ(m.blocks_seen, 2);
  EXPECT_EQ(m.total_host_persistent, 3096u);
  EXPECT_EQ(m.total_device_persistent, 256u);
  EXPECT_EQ(m.total_scratch, 512u);
  EXPECT_EQ(m.total_activation, 6144u);
  EXPECT_EQ(m.total_weights, 40960u);
  EXPECT_EQ(find_layer(b, "/stem/Conv + /act/Relu")->memory.host_persistent, 3000u);
  EXPECT_EQ(find_layer(b, "/head/Gemm")->memory.host_persistent, 96u);
  EXPECT_EQ(m.generation_seconds, 2.25);
  EXPECT_EQ(m.engine_size_mib, 0.0412);
  EXPECT_EQ(m.context_memory_mib, 0.00585938);
  // Build 0's figures did not leak into build 1.
  EXPECT_FALSE(m.loaded_engine_mib.has_value());
  EXPECT_TRUE(m.timeline.empty());
  // Tensor bytes: Half 1x3x16x16 = 1536 in, Half 1x16x16x16 = 8192 out.
  const Layer* stem = find_layer(b, "/stem/Conv + /act/Relu");
  EXPECT_EQ(stem->memory.input_bytes, 1536u);
  EXPECT_EQ(stem->memory.output_bytes, 8192u);
}

TEST(Memory, DynamicShapesFromProfileLineOrShapeOption) {
  // Opt shape 4x3x32x32 from "Input build shape": conv in 4*3*32*32*4 = 49152, out (Half)
  // 4*8*32*32*2 = 65536; out_cast out (Float) 131072, total 65536 + 0 + 131072 = 196608.
  Capture c = load({fixture("memory/dynamic.log")});
  const Build& b = *c.final_build();
  EXPECT_EQ(find_layer(b, "conv")->memory.input_bytes, 49152u);
  EXPECT_EQ(find_layer(b, "conv")->memory.output_bytes, 65536u);
  EXPECT_EQ(find_layer(b, "out_cast")->memory.total_bytes, 196608u);

  // Without shapes: unknown, never negative or zero.
  Capture u = load({fixture("memory/dynamic_no_profile.log")});
  const Build& ub = *u.final_build();
  EXPECT_FALSE(find_layer(ub, "conv")->memory.input_bytes.has_value());
  EXPECT_FALSE(find_layer(ub, "out_cast")->memory.total_bytes.has_value());
  EXPECT_FALSE(ub.memory.peak_live_bytes.has_value());

  // --shape input=2x3x32x32: out_cast 2*8*32*32*2 + 2*8*32*32*4 = 32768 + 65536 = 98304.
  AnalysisOptions o;
  o.shapes = {"input=2x3x32x32"};
  analyze(u, o);
  EXPECT_EQ(find_layer(ub, "out_cast")->memory.total_bytes, 98304u);
  auto r = run_trtlens("memory " + test::shell_quote(fixture("memory/dynamic_no_profile.log")) +
                       " --shape input=2x3x32x32 --format csv");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("out_cast,32768,0,65536,98304,"), std::string::npos) << r.out;
}

TEST(Memory, LivenessPeakWorkedOutByHand) {
  // x 16 B and y 8 B (graph input/output) live throughout = 24.
  // a [L0..L2] 32, b [L1..L2] 16, c [L2..L3] 8.
  // L0: 24+32 = 56; L1: 56+16 = 72; L2: 72+8 = 80; L3: 24+8 = 32 -> peak 80 at L2.
  Capture c = load({fixture("memory/liveness.log")});
  const BuildMemory& m = c.final_build()->memory;
  EXPECT_EQ(m.peak_live_bytes, 80u);
  EXPECT_EQ(m.peak_layer, 2);
  EXPECT_EQ(m.peak_tensors, (std::vector<std::string>{"x", "a", "b", "c", "y"}));
  EXPECT_EQ(m.liveness_unknown_tensors, 0);
}

TEST(Memory, UnknownDtypeIsADiagnosticAndInt4IsHalfAByte) {
  Capture c = load({fixture("memory/unknown_dtype.log")});
  const Layer& l = c.final_build()->layers.at(0);
  EXPECT_FALSE(l.memory.input_bytes.has_value());
  EXPECT_EQ(l.memory.output_bytes, 2u);  // INT4 1x3 = 1.5 bytes, rounded up
  bool reported = false;
  for (const auto& d : c.diagnostics)
    if (d.message.find("COMPLEX") != std::string::npos) reported = true;
  EXPECT_TRUE(reported);
}

TEST(MemoryCli, FormatsSortTopAndJson) {
  const std::string in = test::shell_quote(fixture("seed000_int8.log"));
  auto csv = run_trtlens("memory " + in + " --sort total --top 2 --format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  // Largest footprints, partly known ones ranked by their known lower bound: Conv_13 (weights
  // unknown; 9437184 + 2359296 = 11796480), then Conv_9 (1572864 + 9437184 = 11010048), both
  // above the input reformat's exact 4718592 + 0 + 1179648 = 5898240.
  EXPECT_NE(csv.out.find("5,Conv_13 + PWN(Clip_16),9437184,,2359296,>=11796480,"),
            std::string::npos)
      << csv.out;
  EXPECT_NE(csv.out.find("4,Conv_9 + PWN(Clip_12),1572864,,9437184,>=11010048,"),
            std::string::npos);
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 3);

  auto table = run_trtlens("memory " + in + " --top 2");
  EXPECT_NE(table.out.find("4.13 MiB"), std::string::npos) << table.out;  // Conv_0: 4326240 B
  auto exact = run_trtlens("memory " + in + " --sort footprint --top 1 --format csv");
  EXPECT_NE(exact.out.find(",>=11796480,"), std::string::npos) << exact.out;

  auto md = run_trtlens("memory " + in + " --format md --top 1");
  EXPECT_EQ(md.exit_code, 0);
  EXPECT_NE(md.out.find("| "), std::string::npos);

  auto js = run_trtlens("json " + in);
  ASSERT_EQ(js.exit_code, 0);
  auto doc = nlohmann::json::parse(js.out);
  bool found = false;
  for (const auto& l : doc["builds"][0]["layers"])
    if (l["name"] == "Conv_0 + PWN(Clip_3)") {
      EXPECT_EQ(l["memory"]["total_bytes"], 4326240);
      found = true;
    }
  EXPECT_TRUE(found);
  EXPECT_TRUE(doc["builds"][0]["memory"].contains("activation_estimate"));

  auto bad = run_trtlens("memory " + in + " --sort nonsense");
  EXPECT_EQ(bad.exit_code, 2);
}

TEST(MemoryCli, SummaryShowsTensorRTFigures) {
  auto r = run_trtlens("summary " + test::shell_quote(fixture("memory/several_builds.log")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("TensorRT memory: activation 6.00 KiB"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace trtlens

namespace trtlens {
namespace {

TEST(Memory, LogWithoutListingsMakesNoBuild) {
  // several_builds.log without its two listings: no layers were read, so no build (an empty
  // build would pass for an engine of 0 layers); the figures are said to be unattached.
  std::string text = test::read_file(fixture("memory/several_builds.log"));
  std::string kept;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string line = text.substr(pos, end - pos);
    if (line.rfind("Layer(", 0) != 0 && line.find("Engine Layer Information") == std::string::npos)
      kept += line + "\n";
    pos = end == std::string::npos ? text.size() : end + 1;
  }
  std::string path = testing::TempDir() + "memory_no_listing.log";
  { std::ofstream(path) << kept; }
  Capture c = load({path});
  EXPECT_TRUE(c.builds.empty());
  bool said = false;
  for (const auto& d : c.diagnostics)
    said |= d.message.find("no layer listing or profile to attach them to") != std::string::npos;
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace trtlens
