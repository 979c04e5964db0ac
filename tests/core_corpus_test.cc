// The core on real inputs: every TREx engine-graph JSON of ../shared/corpus and the layer
// listings of the seeds. Expected values come from reading the same files independently
// (nlohmann::json directly, plain string splitting of the seed lines) and from counts taken
// by hand with grep / python3, noted beside each constant.
#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "test_support.h"

namespace trtlens::test {
namespace {

// All *.graph.json below `dir`, sorted.
void find_graph_files(const std::string& dir, std::vector<std::string>& out) {
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    std::string p = dir + "/" + n;
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) find_graph_files(p, out);
    else if (n.size() > 11 && n.compare(n.size() - 11, 11, ".graph.json") == 0) out.push_back(p);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
}

// The test's own reading of a TRT 8.x "Format/Datatype" string (the 14 spellings of the corpus,
// listed with python3): dtype by word, vector width by "N wide" / "channel % N".
std::string expected_dtype(const std::string& format) {
  if (format.find("Int8") != std::string::npos) return "INT8";
  if (format.find("FP16") != std::string::npos) return "FP16";
  if (format.find("FP32") != std::string::npos) return "FP32";
  return "?";
}
int expected_vector(const std::string& format) {
  static const std::map<std::string, int> words{
      {"Two wide", 2}, {"Four wide", 4}, {"Thirty-two wide", 32}};
  for (const auto& [w, n] : words)
    if (format.rfind(w, 0) == 0) return n;
  if (auto p = format.find("channel % "); p != std::string::npos)
    return std::atoi(format.c_str() + p + 10);
  return 0;
}

std::string canonical_hex(std::string s) {
  EXPECT_EQ(s.substr(0, 2), "0x");
  s = s.substr(2);
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return "0x" + std::string(16 - s.size(), '0') + s;
}

void expect_tensor(const Tensor& got, const nlohmann::json& want, const std::string& where) {
  SCOPED_TRACE(where + " tensor " + want["Name"].get<std::string>());
  EXPECT_EQ(got.name, want["Name"].get<std::string>());
  EXPECT_TRUE(got.has_dims);
  EXPECT_EQ(got.dims, want["Dimensions"].get<std::vector<int64_t>>());
  const std::string format = want["Format/Datatype"].get<std::string>();
  EXPECT_EQ(got.format, format);
  EXPECT_EQ(got.dtype, expected_dtype(format));
  EXPECT_EQ(got.vector_width, expected_vector(format));
  if (want.contains("Location")) EXPECT_EQ(got.location, want["Location"].get<std::string>());
}

// (layers, bindings) per file, counted with python3 json.load: len(Layers), len(Bindings).
const std::map<std::string, std::pair<size_t, size_t>> kCounts{
    {"examples/pytorch/resnet/A100/fp16/resnet.onnx.engine.graph.json", {36, 2}},
    {"examples/pytorch/resnet/A100/fp32/resnet.onnx.engine.graph.json", {32, 2}},
    {"examples/pytorch/resnet/A100/qat-residual-qgap/resnet-qat-residual-qgap.onnx.engine.graph.json",
     {24, 2}},
    {"examples/pytorch/resnet/A100/qat-residual/resnet-qat-residual.onnx.engine.graph.json", {26, 2}},
    {"examples/pytorch/resnet/A100/qat/resnet-qat.onnx.engine.graph.json", {37, 2}},
    {"examples/tensorflow/resnet/RTX-3090/fp16/resnet.onnx.engine.graph.json", {86, 2}},
    {"examples/tensorflow/resnet/RTX-3090/fp32/resnet.onnx.engine.graph.json", {103, 2}},
    {"examples/tensorflow/resnet/RTX-3090/qat/resnet-qat.onnx.engine.graph.json", {63, 2}},
    {"tests/inputs/mobilenet.qat.onnx.engine.graph.json", {73, 2}},
    {"tests/inputs/mobilenet_v2_residuals.qat.onnx.engine.graph.json", {58, 2}},
};

TEST(CoreCorpus, EveryTrexGraphJsonParsesExactly) {
  TRTLENS_REQUIRE_SHARED();
  const std::string root = shared_dir() + "/corpus/trex";
  std::vector<std::string> files;
  find_graph_files(root, files);
  ASSERT_EQ(files.size(), kCounts.size());
  for (const auto& path : files) {
    SCOPED_TRACE(path);
    const std::string rel = path.substr(root.size() + 1);
    ASSERT_TRUE(kCounts.count(rel)) << rel;
    const nlohmann::json want = nlohmann::json::parse(read_file(path));
    Capture c = load({path});
    ASSERT_EQ(c.builds.size(), 1u);
    const Build& b = c.builds[0];
    EXPECT_TRUE(b.final);
    EXPECT_EQ(b.kind, ListingKind::LayerJson);
    EXPECT_FALSE(b.names_only);
    EXPECT_EQ(c.inputs.at(0).kind, "layer-json");
    EXPECT_EQ(c.inputs.at(0).unrecognized, 0u);
    EXPECT_TRUE(c.diagnostics.empty());

    const auto& layers = want["Layers"];
    EXPECT_EQ(b.layers.size(), kCounts.at(rel).first);
    ASSERT_EQ(b.layers.size(), layers.size());
    for (size_t i = 0; i < layers.size(); ++i) {
      const auto& wl = layers[i];
      const Layer& gl = b.layers[i];
      const std::string where = "layer " + std::to_string(i);
      EXPECT_EQ(gl.name, wl["Name"].get<std::string>()) << where;
      EXPECT_EQ(gl.type, wl["LayerType"].get<std::string>()) << where;
      ASSERT_TRUE(gl.tactic) << where;
      EXPECT_EQ(*gl.tactic, canonical_hex(wl["TacticValue"].get<std::string>())) << where;
      EXPECT_EQ(gl.tactic_name, wl.value("TacticName", std::string())) << where;
      ASSERT_EQ(gl.inputs.size(), wl["Inputs"].size()) << where;
      ASSERT_EQ(gl.outputs.size(), wl["Outputs"].size()) << where;
      for (size_t k = 0; k < gl.inputs.size(); ++k) expect_tensor(gl.inputs[k], wl["Inputs"][k], where);
      for (size_t k = 0; k < gl.outputs.size(); ++k)
        expect_tensor(gl.outputs[k], wl["Outputs"][k], where);
      // Every other key is kept as an attribute, value for value.
      for (const auto& [key, value] : wl.items()) {
        if (key == "Name" || key == "LayerType" || key == "Inputs" || key == "Outputs" ||
            key == "TacticValue" || key == "TacticName")
          continue;
        ASSERT_TRUE(gl.attributes.contains(key)) << where << " " << key;
        EXPECT_EQ(nlohmann::json::parse(gl.attributes.get(key)->dump()), value)
            << where << " " << key;
      }
    }
    ASSERT_EQ(b.bindings.size(), kCounts.at(rel).second);
    for (size_t i = 0; i < b.bindings.size(); ++i)
      EXPECT_EQ(b.bindings[i].name, want["Bindings"][i].get<std::string>());
  }
}

TEST(CoreCorpus, MobilenetQatHandValues) {
  TRTLENS_REQUIRE_SHARED();
  Capture c = load({shared_dir() + "/corpus/trex/tests/inputs/mobilenet.qat.onnx.engine.graph.json"});
  ASSERT_EQ(c.builds.size(), 1u);
  const Build& b = c.builds[0];
  // python3: 73 layers, the last one the only NoOp; Bindings ["input1", "1179"].
  ASSERT_EQ(b.layers.size(), 73u);
  EXPECT_EQ(b.layers[72].type, "NoOp");
  EXPECT_EQ(b.layers[72].name, "copied_squeeze_after_(Unnamed Layer* 850) [ElementWise]");
  EXPECT_EQ(std::count_if(b.layers.begin(), b.layers.end(),
                          [](const Layer& l) { return l.type == "NoOp"; }),
            1);
  const Layer& conv = b.layers[1];
  EXPECT_EQ(conv.name, "features.0.0.weight + QuantizeLinear_8 + Conv_12 + PWN(Clip_16)");
  EXPECT_EQ(conv.tactic.value_or(""), "0x10d7116a3fad9b7a");
  EXPECT_EQ(conv.tactic_name, "volta_int8x4_icudnn_int8x4_128x32_relu_xregs_medium_c32_nn_v1");
  EXPECT_EQ(conv.outputs.at(0).dtype, "INT8");
  EXPECT_EQ(conv.outputs.at(0).vector_width, 32);
  EXPECT_EQ(conv.outputs.at(0).dims, (std::vector<int64_t>{1, 32, 112, 112}));
  // Graph edges: the engine's inputs and outputs are the bindings.
  EXPECT_EQ(b.graph.inputs, (std::vector<std::string>{"input1"}));
  EXPECT_EQ(b.graph.outputs, (std::vector<std::string>{"1179"}));
}

// The lines of `path` from `first` to `last` (1-based, inclusive) that start with "Layer(".
std::vector<std::string> layer_lines(const std::string& path, int first, int last) {
  std::ifstream f(path);
  std::string line;
  std::vector<std::string> out;
  for (int n = 1; std::getline(f, line); ++n)
    if (n >= first && n <= last && line.rfind("Layer(", 0) == 0) out.push_back(line);
  return out;
}

// For seed lines whose names hold no ", Tactic: " (true of all three seeds).
std::string seed_type(const std::string& l) { return l.substr(6, l.find("): ") - 6); }
std::string seed_name(const std::string& l) {
  size_t b = l.find("): ") + 3;
  return l.substr(b, l.find(", Tactic: ") - b);
}

std::string seed_file(const std::string& prefix) {
  DIR* d = opendir((shared_dir() + "/seeds").c_str());
  std::string found;
  while (dirent* e = readdir(d))
    if (std::string(e->d_name).rfind(prefix, 0) == 0) found = e->d_name;
  closedir(d);
  return shared_dir() + "/seeds/" + found;
}

TEST(CoreSeeds, Seed000Int8EngineLayerInformation) {
  TRTLENS_REQUIRE_SHARED();
  const std::string path = seed_file("000_");
  Capture c = load({path});
  // The block is lines 631 (header) .. 679; lines 692 and 732 quote layer lines in prose.
  ASSERT_EQ(c.builds.size(), 1u);
  const Build& b = c.builds[0];
  EXPECT_EQ(b.source.line, 631u);
  auto want = layer_lines(path, 632, 679);
  ASSERT_EQ(want.size(), 48u);  // grep -c over the block
  ASSERT_EQ(b.layers.size(), 48u);
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(b.layers[i].type, seed_type(want[i])) << i;
    EXPECT_EQ(b.layers[i].name, seed_name(want[i])) << i;
    EXPECT_EQ(b.layers[i].source.line, 632u + i);
  }
  // Types counted with: sed -n 632,679p | grep -o '^Layer([A-Za-z0-9]*)' | sort | uniq -c
  std::map<std::string, int> types;
  for (const auto& l : b.layers) ++types[l.type];
  EXPECT_EQ(types, (std::map<std::string, int>{{"CaskConvolution", 33},
                                               {"CudaDepthwiseConvolution", 13},
                                               {"PointWiseV2", 1},
                                               {"Reformat", 1}}));
  const Layer& first = b.layers[0];  // line 632
  EXPECT_EQ(first.name, "Reformatting CopyNode for Input Tensor 0 to Conv_0 + PWN(Clip_3)");
  EXPECT_EQ(first.tactic.value_or(""), "0x0000000000000000");
  ASSERT_EQ(first.inputs.size(), 1u);
  EXPECT_EQ(first.inputs[0].name, "inputs");
  EXPECT_EQ(first.inputs[0].dtype, "FP32");
  EXPECT_EQ(first.inputs[0].dims, (std::vector<int64_t>{1, 3, 512, 768}));
  ASSERT_EQ(first.outputs.size(), 1u);
  EXPECT_EQ(first.outputs[0].name, "Reformatted Input Tensor 0 to Conv_0 + PWN(Clip_3)");
  EXPECT_EQ(first.outputs[0].dtype, "INT8");
  const Layer& add = b.layers[9];  // line 641: two inputs
  EXPECT_EQ(add.name, "Conv_26 + Add_27");
  ASSERT_EQ(add.inputs.size(), 2u);
  EXPECT_EQ(add.inputs[0].name, "424");
  EXPECT_EQ(add.inputs[1].name, "675");
  EXPECT_EQ(add.inputs[1].dims, (std::vector<int64_t>{1, 24, 128, 192}));
  EXPECT_EQ(b.layers[2].tactic.value_or(""), "0xfffffffffffffffd");
  EXPECT_EQ(b.layers[45].name, "PWN(Add_133)");
  EXPECT_EQ(b.layers[45].tactic.value_or(""), "0x0000000000000003");
  const Layer& last = b.layers[47];  // line 679: the only float output
  EXPECT_EQ(last.tactic.value_or(""), "0xb48bd7ec82c8e9b0");
  EXPECT_EQ(last.outputs.at(0).name, "574");
  EXPECT_EQ(last.outputs.at(0).dtype, "FP32");
  EXPECT_EQ(b.graph.inputs, (std::vector<std::string>{"inputs"}));
  EXPECT_EQ(b.graph.outputs, (std::vector<std::string>{"574"}));
  EXPECT_EQ(c.inputs[0].unrecognized, 0u);
}

TEST(CoreSeeds, Seed001Trt86TensorSyntax) {
  TRTLENS_REQUIRE_SHARED();
  const std::string path = seed_file("001_");
  Capture c = load({path});
  ASSERT_EQ(c.builds.size(), 1u);
  const Build& b = c.builds[0];
  EXPECT_EQ(b.source.line, 552u);  // header; layers on 554 and 556 with blank lines between
  ASSERT_EQ(b.layers.size(), 2u);
  const Layer& r = b.layers[0];
  EXPECT_EQ(r.type, "Reformat");
  EXPECT_EQ(r.name, "Reformatting CopyNode for Input Tensor 0 to Conv_0 + Relu_1");
  EXPECT_EQ(r.tactic.value_or(""), "0x00000000000003e8");
  ASSERT_EQ(r.inputs.size(), 1u);
  EXPECT_EQ(r.inputs[0].name, "input");
  EXPECT_EQ(r.inputs[0].vector_width, 0);
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].name, "Reformatted Input Tensor 0 to Conv_0 + Relu_1");
  EXPECT_EQ(r.outputs[0].dims, (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_EQ(r.outputs[0].vector_axis, 1);
  EXPECT_EQ(r.outputs[0].vector_width, 4);
  const Layer& conv = b.layers[1];
  EXPECT_EQ(conv.type, "CaskConvolution");
  EXPECT_EQ(conv.name, "Conv_0 + Relu_1");
  EXPECT_EQ(conv.tactic.value_or(""), "0x9cb304e2edbc1221");
  ASSERT_EQ(conv.outputs.size(), 1u);
  EXPECT_EQ(conv.outputs[0].name, "onnx::MaxPool_323");
  EXPECT_EQ(conv.outputs[0].dtype, "FP32");
  EXPECT_EQ(conv.outputs[0].dims, (std::vector<int64_t>{1, 64, 112, 112}));
  EXPECT_EQ(conv.outputs[0].vector_width, 4);
}

TEST(CoreSeeds, Seed002QatDecimalTactics) {
  TRTLENS_REQUIRE_SHARED();
  const std::string path = seed_file("002_");
  Capture c = load({path});
  ASSERT_EQ(c.builds.size(), 1u);
  const Build& b = c.builds[0];
  auto want = layer_lines(path, 59, 112);  // header on line 58
  ASSERT_EQ(want.size(), 54u);
  ASSERT_EQ(b.layers.size(), 54u);
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(b.layers[i].type, seed_type(want[i])) << i;
    EXPECT_EQ(b.layers[i].name, seed_name(want[i])) << i;
  }
  std::map<std::string, int> types;
  for (const auto& l : b.layers) ++types[l.type];
  EXPECT_EQ(types, (std::map<std::string, int>{{"CaskConvolution", 45},
                                               {"CaskDeconvolution", 3},
                                               {"CudaPooling", 1},
                                               {"Reformat", 4},
                                               {"Scale", 1}}));
  // Decimal tactics, converted with python3: hex(v & (2**64-1)).
  EXPECT_EQ(b.layers[0].tactic.value_or(""), "0x0000000000000000");  // "Tactic: 0"
  EXPECT_EQ(b.layers[1].tactic.value_or(""), "0x3d981974ad8803b3");  // 4438325421691896755
  EXPECT_EQ(b.layers[2].tactic.value_or(""), "0xfffffffffffffffd");  // -3
  const Layer& l69 = b.layers[69 - 59];  // line 69
  EXPECT_EQ(l69.name,
            "layer2.0.conv1.weight + QuantizeLinear_113_quantize_scale_node + Conv_115 + Relu_117");
  EXPECT_EQ(l69.tactic.value_or(""), "0xe67106309822d6c3");  // -1841683966837205309
  EXPECT_EQ(l69.inputs.at(0).dims, (std::vector<int64_t>{1, 64, -21, -24}));
  EXPECT_EQ(l69.outputs.at(0).dims, (std::vector<int64_t>{1, 128, -52, -37}));
  EXPECT_EQ(b.layers[111 - 59].tactic.value_or(""), "0x9c47e0f47bbe844d");  // -7185527339793611699
  EXPECT_EQ(b.layers[0].inputs.at(0).dims, (std::vector<int64_t>{1, 3, -17, -18}));
  EXPECT_EQ(b.graph.outputs, (std::vector<std::string>{"hm", "wh", "reg"}));
}

TEST(CoreSeeds, Seed003And004WithoutListings) {
  TRTLENS_REQUIRE_SHARED();
  // 003 is a blog post quoting two TensorRT error lines (2002 "[TensorRT] ERROR: ...", 2006
  // "[TRT] [E] ..."): TensorRT output without a layer listing is valid input, with no build.
  RunResult r = run_trtlens("summary " + shell_quote(seed_file("003_")));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("no layer listing found"), std::string::npos);
  // 004 is a blog post about TREx with no TensorRT output in it (grep finds no [V]/[I]/[TRT]).
  r = run_trtlens("summary " + shell_quote(seed_file("004_")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "trtlens: " + seed_file("004_") + ": no TensorRT output recognised\n");
}

}  // namespace
}  // namespace trtlens::test
