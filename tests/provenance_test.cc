// Provenance: layer names and Metadata -> ONNX nodes, node fates, the fusion lines of the log,
// the .onnx reader and the `provenance` command. Expected values are written by hand from the
// inputs (seed 002's layer list, seed 000's parse lines, the fixtures in fixtures/provenance).
#include "analysis/provenance.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <tuple>

#include "analysis/analyze.h"
#include "analysis/layer_names.h"
#include "ingest/onnx_model.h"
#include "io/input.h"
#include "test_support.h"

namespace trtlens {
namespace {

using test::fixture;
using test::run_trtlens;
using test::shared_dir;
using test::shell_quote;
using Names = std::vector<std::string>;

std::string seed(const std::string& prefix) {
  for (const char* name :
       {"000_9fb31eec5d86dcda.txt", "001_73038f12cc2a768c.txt", "002_4e1b64db6c7b7a92.txt"})
    if (std::string(name).rfind(prefix, 0) == 0) return shared_dir() + "/seeds/" + name;
  return "";
}

// Loads and analyses, as the commands do.
Capture load(const std::vector<std::string>& paths) {
  Capture c = test::load(paths);
  analyze(c, AnalysisOptions{});
  return c;
}

const OnnxNode& node(const Capture& c, const std::string& name) {
  const OnnxNode* n = c.onnx.find(name);
  if (!n) throw std::runtime_error("no node " + name);
  return *n;
}

// --- layer names ---------------------------------------------------------------------------

// The model's name index, against names made here: every node and initializer is found by its
// name and no absent name is, the first of two nodes of one name wins, a node renamed in place
// is no longer found by its old name, and a node added later is found (the index is rebuilt).
TEST(OnnxModelIndex, FindsEachNameAndNoOther) {
  OnnxModel m;
  const int n = 50000;
  for (int i = 0; i < n; ++i) {
    OnnxNode node;
    node.name = "block" + std::to_string(i / 10) + "/conv" + std::to_string(i);
    node.op = "Conv";
    node.index = i;
    m.nodes.push_back(std::move(node));
    m.initializers.push_back(OnnxValue{"w" + std::to_string(i), "", {}, false});
  }
  OnnxNode twin;
  twin.name = "block0/conv3";
  twin.op = "Relu";
  m.nodes.push_back(twin);
  for (int i = 0; i < n; ++i) {
    const std::string name = "block" + std::to_string(i / 10) + "/conv" + std::to_string(i);
    const OnnxNode* found = m.find(name);
    ASSERT_TRUE(found) << name;
    EXPECT_EQ(found->index, i);
    EXPECT_EQ(found->op, "Conv");
    EXPECT_TRUE(m.is_initializer("w" + std::to_string(i)));
    EXPECT_FALSE(m.find("block" + std::to_string(i / 10) + "/conv" + std::to_string(i + n)));
    EXPECT_FALSE(m.is_initializer("w" + std::to_string(i) + "x"));
  }
  EXPECT_FALSE(m.find(""));
  m.nodes[5].name = "renamed";
  EXPECT_FALSE(m.find("block0/conv5"));
  OnnxNode late;
  late.name = "late";
  late.index = n + 1;
  m.nodes.push_back(late);
  ASSERT_TRUE(m.find("late"));
  EXPECT_EQ(m.find("late")->index, n + 1);
  ASSERT_TRUE(m.find("renamed"));
  EXPECT_EQ(m.find("renamed")->index, 5);
}

TEST(LayerNames, SplitsVerticalAndHorizontalFusionAtDepthZero) {
  EXPECT_EQ(fused_node_names("Conv_0 + Relu_1"), (Names{"Conv_0", "Relu_1"}));
  EXPECT_EQ(fused_node_names("Conv_2 || Conv_3"), (Names{"Conv_2", "Conv_3"}));
  EXPECT_EQ(fused_node_names("Conv_0 + PWN(Clip_3)"), (Names{"Conv_0", "Clip_3"}));
  // Brackets that balance keep a separator inside them; a name whose brackets do not balance
  // is split at every separator.
  EXPECT_EQ(fused_node_names("f(a + b) + c"), (Names{"f(a + b)", "c"}));
  EXPECT_EQ(fused_node_names("f(a + b + c"), (Names{"f(a", "b", "c"}));
  EXPECT_EQ(fused_node_names("a) + (b"), (Names{"a)", "(b"}));
  EXPECT_EQ(fused_node_names("g(x) + f(a + b"), (Names{"g(x)", "f(a", "b"}));
  EXPECT_EQ(fused_node_names("PWN(a, b) + c)"), (Names{"a", "b", "c)"}));  // PWN(...) unwrapped
}

TEST(LayerNames, UnwrapsNestedPwnWithCommasAndDropsInternalPieces) {
  EXPECT_EQ(fused_node_names("PWN(PWN(a + (Unnamed Layer* 567) [Shuffle], b), c)"),
            (Names{"a", "b", "c"}));
  ParsedLayerName p = parse_layer_name("PWN(PWN(a + (Unnamed Layer* 567) [Shuffle], b), c)");
  EXPECT_EQ(p.parts, (Names{"a", "(Unnamed Layer* 567) [Shuffle]", "b", "c"}));
}

TEST(LayerNames, StripsTensorRTAdditions) {
  EXPECT_EQ(strip_trt_additions("QuantizeLinear_7_quantize_scale_node"), "QuantizeLinear_7");
  EXPECT_EQ(strip_trt_additions("DequantizeLinear_8_dequantize_scale_node"), "DequantizeLinear_8");
  EXPECT_EQ(strip_trt_additions("copied_squeeze_after_Conv_5"), "Conv_5");
  EXPECT_EQ(strip_trt_additions("reshape_before_MatMul_3"), "MatMul_3");
  EXPECT_EQ(strip_trt_additions("reshape_after_MatMul_3"), "MatMul_3");
  EXPECT_EQ(fused_node_names("Conv_0 + Relu_1 [profile 1]"), (Names{"Conv_0", "Relu_1"}));
  EXPECT_EQ(parse_layer_name("Conv_0 + Relu_1 [profile 1]").profile, 1);
}

TEST(LayerNames, RecognisesLayersTensorRTAdds) {
  ParsedLayerName r =
      parse_layer_name("Reformatting CopyNode for Input Tensor 1 to Conv_113 + Add_114");
  EXPECT_EQ(r.kind, LayerNameKind::Reformat);
  EXPECT_EQ(r.attached_to, "Conv_113 + Add_114");
  ParsedLayerName c = parse_layer_name("639 copy");
  EXPECT_EQ(c.kind, LayerNameKind::Copy);
  EXPECT_EQ(c.attached_to, "639");
  EXPECT_EQ(parse_layer_name("(Unnamed Layer* 13) [Shuffle]").kind, LayerNameKind::Internal);
  ParsedLayerName f = parse_layer_name("{ForeignNode[Conv_0...Concat_198]}");
  EXPECT_EQ(f.kind, LayerNameKind::Foreign);
  EXPECT_EQ(f.range_first, "Conv_0");
  EXPECT_EQ(f.range_last, "Concat_198");
  EXPECT_TRUE(fused_node_names("{ForeignNode[Conv_0...Concat_198]}").empty());
  EXPECT_TRUE(fused_node_names("Reformatting CopyNode for Output Tensor 0 to MaxPool_12").empty());
}

// The views the memory analysis looks names up by are pieces of the name itself, and the same
// names as the parsed form gives (parse_layer_name's parts, stripped one by one): on names of
// every kind, and on every layer name of the corpus's engine graphs.
void expect_views_agree(const std::string& name) {
  std::vector<std::string_view> views{"left over from a previous layer"};
  fused_node_views(name, views);
  Names parsed = fused_node_names(parse_layer_name(name));
  ASSERT_EQ(views.size(), parsed.size()) << name;
  for (size_t i = 0; i < views.size(); ++i) {
    EXPECT_EQ(views[i], parsed[i]) << name;
    EXPECT_TRUE(views[i].data() >= name.data() &&
                views[i].data() + views[i].size() <= name.data() + name.size())
        << name << ": '" << views[i] << "' is not a piece of the name";
  }
}

TEST(LayerNames, ViewsArePiecesOfTheNameAndAgreeWithTheParsedForm) {
  for (const char* name : {"Conv_0 + Relu_1",
                           "Conv_2 || Conv_3",
                           "Conv_0 + PWN(Clip_3)",
                           "PWN(PWN(a + (Unnamed Layer* 567) [Shuffle], b), c)",
                           "A || B [profile 1]",
                           "x_quantize_scale_node + Conv_1",
                           "reshape_before_MatMul_3 + reshape_after_MatMul_3",
                           "f(a + b) + c",
                           "f(a + b + c",
                           "a) + (b",
                           "  padded  +  names  ",
                           "PWN(",
                           " + ",
                           "(Unnamed Layer* 13) [Shuffle]",
                           "(Unnamed Layer* 13) [Shuffle] + Relu_2",
                           "639 copy",
                           "{ForeignNode[Conv_0...Concat_198]}",
                           "__myl_MulAdd_0",
                           "matMul1_myl0_0",
                           "Reformatting CopyNode for Input Tensor 1 to Conv_113 + Add_114",
                           "Reformatting CopyNode for Input Tensor",
                           "",
                           "QuantizeLinear_7_quantize_scale_node"})
    expect_views_agree(name);
}

TEST(LayerNames, ViewsAgreeOnEveryCorpusLayerName) {
  TRTLENS_REQUIRE_SHARED();
  size_t names = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(shared_dir() + "/corpus")) {
    const std::string p = e.path().string();
    if (p.size() < 11 || p.compare(p.size() - 11, 11, ".graph.json") != 0) continue;
    std::ifstream in(p);
    const auto j = nlohmann::json::parse(in, nullptr, false);
    if (!j.is_object() || !j.contains("Layers")) continue;
    for (const auto& l : j["Layers"])
      if (l.is_object() && l.contains("Name") && l["Name"].is_string()) {
        expect_views_agree(l["Name"].get<std::string>());
        ++names;
      }
  }
  // The corpus's 10 engine graphs name 538 layers (counted with python3's json module).
  EXPECT_EQ(names, 538u);
}

TEST(LayerNames, MetadataEntriesWithControlCharacterSeparators) {
  EXPECT_EQ(metadata_node_names("[ONNX Layer: /conv1/Conv]\x1e[ONNX Layer: /relu/Relu]"),
            (Names{"/conv1/Conv", "/relu/Relu"}));
  EXPECT_EQ(
      metadata_node_names("[ONNX Layer: /a/MatMul]\x1f[ONNX Layer: /a/Add]\x1e[ONNX Layer: /S]"),
      (Names{"/a/MatMul", "/a/Add", "/S"}));
  EXPECT_EQ(metadata_node_names("[ONNX Layer: /features/features.0/Conv][ONNX Layer: /x[0]/Relu]"),
            (Names{"/features/features.0/Conv", "/x[0]/Relu"}));
  EXPECT_TRUE(metadata_node_names("").empty());
  EXPECT_TRUE(metadata_node_names("some other note").empty());
  EXPECT_EQ(op_from_node_name("/conv1/Conv"), "Conv");
  EXPECT_EQ(op_from_node_name("QuantizeLinear_7"), "QuantizeLinear");
  EXPECT_EQ(op_from_node_name("fc.bias"), "");
}

// --- seed 002: the QAT layer list (read in place) -----------------------------------------

struct Expected {
  std::string layer;
  Names nodes;
  Names initializers;
};

// Written from the layer list of seed 002: " + " splits, "_quantize_scale_node" is TensorRT's
// suffix on the QuantizeLinear node, "<module>.weight" is an initializer, reformats name none.
const std::vector<Expected> kSeed002 = {
    {"QuantizeLinear_2_quantize_scale_node", {"QuantizeLinear_2"}, {}},
    {"conv1.weight + QuantizeLinear_7_quantize_scale_node + Conv_9 + Relu_11",
     {"QuantizeLinear_7", "Conv_9", "Relu_11"},
     {"conv1.weight"}},
    {"MaxPool_12", {"MaxPool_12"}, {}},
    {"Reformatting CopyNode for Output Tensor 0 to MaxPool_12", {}, {}},
    {"layer1.0.conv1.weight + QuantizeLinear_20_quantize_scale_node + Conv_22 + Relu_24",
     {"QuantizeLinear_20", "Conv_22", "Relu_24"},
     {"layer1.0.conv1.weight"}},
    {"layer1.0.conv2.weight + QuantizeLinear_32_quantize_scale_node + Conv_34 + Add_42 + Relu_43",
     {"QuantizeLinear_32", "Conv_34", "Add_42", "Relu_43"},
     {"layer1.0.conv2.weight"}},
    {"layer1.1.conv1.weight + QuantizeLinear_51_quantize_scale_node + Conv_53 + Relu_55",
     {"QuantizeLinear_51", "Conv_53", "Relu_55"},
     {"layer1.1.conv1.weight"}},
    {"layer1.1.conv2.weight + QuantizeLinear_63_quantize_scale_node + Conv_65 + Add_73 + Relu_74",
     {"QuantizeLinear_63", "Conv_65", "Add_73", "Relu_74"},
     {"layer1.1.conv2.weight"}},
    {"layer1.2.conv1.weight + QuantizeLinear_82_quantize_scale_node + Conv_84 + Relu_86",
     {"QuantizeLinear_82", "Conv_84", "Relu_86"},
     {"layer1.2.conv1.weight"}},
    {"layer1.2.conv2.weight + QuantizeLinear_94_quantize_scale_node + Conv_96 + Add_104 + Relu_105",
     {"QuantizeLinear_94", "Conv_96", "Add_104", "Relu_105"},
     {"layer1.2.conv2.weight"}},
    {"layer2.0.conv1.weight + QuantizeLinear_113_quantize_scale_node + Conv_115 + Relu_117",
     {"QuantizeLinear_113", "Conv_115", "Relu_117"},
     {"layer2.0.conv1.weight"}},
    {"layer2.0.downsample.0.weight + QuantizeLinear_136_quantize_scale_node + Conv_138",
     {"QuantizeLinear_136", "Conv_138"},
     {"layer2.0.downsample.0.weight"}},
    {"layer2.0.conv2.weight + QuantizeLinear_125_quantize_scale_node + Conv_127 + Add_146 + "
     "Relu_147",
     {"QuantizeLinear_125", "Conv_127", "Add_146", "Relu_147"},
     {"layer2.0.conv2.weight"}},
    {"layer2.1.conv1.weight + QuantizeLinear_155_quantize_scale_node + Conv_157 + Relu_159",
     {"QuantizeLinear_155", "Conv_157", "Relu_159"},
     {"layer2.1.conv1.weight"}},
    {"layer2.1.conv2.weight + QuantizeLinear_167_quantize_scale_node + Conv_169 + Add_177 + "
     "Relu_178",
     {"QuantizeLinear_167", "Conv_169", "Add_177", "Relu_178"},
     {"layer2.1.conv2.weight"}},
    {"layer2.2.conv1.weight + QuantizeLinear_186_quantize_scale_node + Conv_188 + Relu_190",
     {"QuantizeLinear_186", "Conv_188", "Relu_190"},
     {"layer2.2.conv1.weight"}},
    {"layer2.2.conv2.weight + QuantizeLinear_198_quantize_scale_node + Conv_200 + Add_208 + "
     "Relu_209",
     {"QuantizeLinear_198", "Conv_200", "Add_208", "Relu_209"},
     {"layer2.2.conv2.weight"}},
    {"layer2.3.conv1.weight + QuantizeLinear_217_quantize_scale_node + Conv_219 + Relu_221",
     {"QuantizeLinear_217", "Conv_219", "Relu_221"},
     {"layer2.3.conv1.weight"}},
    {"layer2.3.conv2.weight + QuantizeLinear_229_quantize_scale_node + Conv_231 + Add_239 + "
     "Relu_240",
     {"QuantizeLinear_229", "Conv_231", "Add_239", "Relu_240"},
     {"layer2.3.conv2.weight"}},
    {"layer3.0.conv1.weight + QuantizeLinear_248_quantize_scale_node + Conv_250 + Relu_252",
     {"QuantizeLinear_248", "Conv_250", "Relu_252"},
     {"layer3.0.conv1.weight"}},
    {"layer3.0.downsample.0.weight + QuantizeLinear_271_quantize_scale_node + Conv_273",
     {"QuantizeLinear_271", "Conv_273"},
     {"layer3.0.downsample.0.weight"}},
    {"layer3.0.conv2.weight + QuantizeLinear_260_quantize_scale_node + Conv_262 + Add_281 + "
     "Relu_282",
     {"QuantizeLinear_260", "Conv_262", "Add_281", "Relu_282"},
     {"layer3.0.conv2.weight"}},
    {"layer3.1.conv1.weight + QuantizeLinear_290_quantize_scale_node + Conv_292 + Relu_294",
     {"QuantizeLinear_290", "Conv_292", "Relu_294"},
     {"layer3.1.conv1.weight"}},
    {"layer3.1.conv2.weight + QuantizeLinear_302_quantize_scale_node + Conv_304 + Add_312 + "
     "Relu_313",
     {"QuantizeLinear_302", "Conv_304", "Add_312", "Relu_313"},
     {"layer3.1.conv2.weight"}},
    {"layer3.2.conv1.weight + QuantizeLinear_321_quantize_scale_node + Conv_323 + Relu_325",
     {"QuantizeLinear_321", "Conv_323", "Relu_325"},
     {"layer3.2.conv1.weight"}},
    {"layer3.2.conv2.weight + QuantizeLinear_333_quantize_scale_node + Conv_335 + Add_343 + "
     "Relu_344",
     {"QuantizeLinear_333", "Conv_335", "Add_343", "Relu_344"},
     {"layer3.2.conv2.weight"}},
    {"layer3.3.conv1.weight + QuantizeLinear_352_quantize_scale_node + Conv_354 + Relu_356",
     {"QuantizeLinear_352", "Conv_354", "Relu_356"},
     {"layer3.3.conv1.weight"}},
    {"layer3.3.conv2.weight + QuantizeLinear_364_quantize_scale_node + Conv_366 + Add_374 + "
     "Relu_375",
     {"QuantizeLinear_364", "Conv_366", "Add_374", "Relu_375"},
     {"layer3.3.conv2.weight"}},
    {"layer3.4.conv1.weight + QuantizeLinear_383_quantize_scale_node + Conv_385 + Relu_387",
     {"QuantizeLinear_383", "Conv_385", "Relu_387"},
     {"layer3.4.conv1.weight"}},
    {"layer3.4.conv2.weight + QuantizeLinear_395_quantize_scale_node + Conv_397 + Add_405 + "
     "Relu_406",
     {"QuantizeLinear_395", "Conv_397", "Add_405", "Relu_406"},
     {"layer3.4.conv2.weight"}},
    {"layer3.5.conv1.weight + QuantizeLinear_414_quantize_scale_node + Conv_416 + Relu_418",
     {"QuantizeLinear_414", "Conv_416", "Relu_418"},
     {"layer3.5.conv1.weight"}},
    {"layer3.5.conv2.weight + QuantizeLinear_426_quantize_scale_node + Conv_428 + Add_436 + "
     "Relu_437",
     {"QuantizeLinear_426", "Conv_428", "Add_436", "Relu_437"},
     {"layer3.5.conv2.weight"}},
    {"layer4.0.conv1.weight + QuantizeLinear_445_quantize_scale_node + Conv_447 + Relu_449",
     {"QuantizeLinear_445", "Conv_447", "Relu_449"},
     {"layer4.0.conv1.weight"}},
    {"layer4.0.downsample.0.weight + QuantizeLinear_468_quantize_scale_node + Conv_470",
     {"QuantizeLinear_468", "Conv_470"},
     {"layer4.0.downsample.0.weight"}},
    {"layer4.0.conv2.weight + QuantizeLinear_457_quantize_scale_node + Conv_459 + Add_478 + "
     "Relu_479",
     {"QuantizeLinear_457", "Conv_459", "Add_478", "Relu_479"},
     {"layer4.0.conv2.weight"}},
    {"layer4.1.conv1.weight + QuantizeLinear_487_quantize_scale_node + Conv_489 + Relu_491",
     {"QuantizeLinear_487", "Conv_489", "Relu_491"},
     {"layer4.1.conv1.weight"}},
    {"layer4.1.conv2.weight + QuantizeLinear_499_quantize_scale_node + Conv_501 + Add_509 + "
     "Relu_510",
     {"QuantizeLinear_499", "Conv_501", "Add_509", "Relu_510"},
     {"layer4.1.conv2.weight"}},
    {"layer4.2.conv1.weight + QuantizeLinear_518_quantize_scale_node + Conv_520 + Relu_522",
     {"QuantizeLinear_518", "Conv_520", "Relu_522"},
     {"layer4.2.conv1.weight"}},
    {"layer4.2.conv2.weight + QuantizeLinear_530_quantize_scale_node + Conv_532 + Add_540 + "
     "Relu_541",
     {"QuantizeLinear_530", "Conv_532", "Add_540", "Relu_541"},
     {"layer4.2.conv2.weight"}},
    {"deconv_layers.0.weight + QuantizeLinear_549_quantize_scale_node + ConvTranspose_551",
     {"QuantizeLinear_549", "ConvTranspose_551"},
     {"deconv_layers.0.weight"}},
    {"deconv_layers.1.weight + QuantizeLinear_559_quantize_scale_node + Conv_561 + Relu_563",
     {"QuantizeLinear_559", "Conv_561", "Relu_563"},
     {"deconv_layers.1.weight"}},
    {"deconv_layers.4.weight + QuantizeLinear_571_quantize_scale_node + ConvTranspose_573",
     {"QuantizeLinear_571", "ConvTranspose_573"},
     {"deconv_layers.4.weight"}},
    {"deconv_layers.5.weight + QuantizeLinear_581_quantize_scale_node + Conv_583 + Relu_585",
     {"QuantizeLinear_581", "Conv_583", "Relu_585"},
     {"deconv_layers.5.weight"}},
    {"deconv_layers.8.weight + QuantizeLinear_593_quantize_scale_node + ConvTranspose_595",
     {"QuantizeLinear_593", "ConvTranspose_595"},
     {"deconv_layers.8.weight"}},
    {"deconv_layers.9.weight + QuantizeLinear_603_quantize_scale_node + Conv_605 + Relu_607",
     {"QuantizeLinear_603", "Conv_605", "Relu_607"},
     {"deconv_layers.9.weight"}},
    {"hm.0.weight + QuantizeLinear_615_quantize_scale_node + Conv_617 + Relu_618",
     {"QuantizeLinear_615", "Conv_617", "Relu_618"},
     {"hm.0.weight"}},
    {"wh.0.weight + QuantizeLinear_636_quantize_scale_node + Conv_638 + Relu_639",
     {"QuantizeLinear_636", "Conv_638", "Relu_639"},
     {"wh.0.weight"}},
    {"reg.0.weight + QuantizeLinear_657_quantize_scale_node + Conv_659 + Relu_660",
     {"QuantizeLinear_657", "Conv_659", "Relu_660"},
     {"reg.0.weight"}},
    {"hm.2.weight + QuantizeLinear_626_quantize_scale_node + Conv_628",
     {"QuantizeLinear_626", "Conv_628"},
     {"hm.2.weight"}},
    {"Reformatting CopyNode for Output Tensor 0 to hm.2.weight + "
     "QuantizeLinear_626_quantize_scale_node + Conv_628",
     {},
     {}},
    {"wh.2.weight + QuantizeLinear_647_quantize_scale_node + Conv_649",
     {"QuantizeLinear_647", "Conv_649"},
     {"wh.2.weight"}},
    {"Reformatting CopyNode for Output Tensor 0 to wh.2.weight + "
     "QuantizeLinear_647_quantize_scale_node + Conv_649",
     {},
     {}},
    {"reg.2.weight + QuantizeLinear_668_quantize_scale_node + Conv_670",
     {"QuantizeLinear_668", "Conv_670"},
     {"reg.2.weight"}},
    {"Reformatting CopyNode for Output Tensor 0 to reg.2.weight + "
     "QuantizeLinear_668_quantize_scale_node + Conv_670",
     {},
     {}},
};

TEST(ProvenanceSeed002, QatLayerListMapsToNodesAndInitializers) {
  TRTLENS_REQUIRE_SHARED();
  Capture c = load({seed("002")});
  ASSERT_NE(c.final_build(), nullptr);
  const Build& b = *c.final_build();
  ASSERT_EQ(b.layers.size(), kSeed002.size());
  ASSERT_EQ(c.onnx.layers.size(), kSeed002.size());
  for (size_t i = 0; i < kSeed002.size(); ++i) {
    SCOPED_TRACE(kSeed002[i].layer);
    EXPECT_EQ(b.layers[i].name, kSeed002[i].layer);
    EXPECT_EQ(b.layers[i].onnx_nodes, kSeed002[i].nodes);
    EXPECT_EQ(c.onnx.layers[i].initializers, kSeed002[i].initializers);
  }
  const OnnxNode& conv = node(c, "Conv_9");
  EXPECT_EQ(conv.fate, NodeFate::Fused);
  EXPECT_EQ(node_layer(c.final_build(), conv),
            "conv1.weight + QuantizeLinear_7_quantize_scale_node + Conv_9 + Relu_11");
  EXPECT_EQ(fused_with(c.final_build(), conv), (Names{"QuantizeLinear_7", "Relu_11"}));
  EXPECT_EQ(conv.precision, "INT8");
  EXPECT_EQ(node(c, "MaxPool_12").fate, NodeFate::Standalone);
  EXPECT_EQ(node(c, "QuantizeLinear_2").fate, NodeFate::Standalone);
  EXPECT_EQ(c.onnx.find("conv1.weight"), nullptr);  // an initializer, not a node
  EXPECT_TRUE(c.onnx.is_initializer("conv1.weight"));
  // The last three convolutions write FP32 through a reformat: their nodes compute in FP32.
  EXPECT_EQ(node(c, "Conv_628").precision, "FP32");
  EXPECT_EQ(c.onnx.layers[3].kind, "reformat");
  EXPECT_EQ(c.onnx.layers[3].attached_to, "MaxPool_12");
}

// --- seed 000: the INT8 excerpt -------------------------------------------------------------

TEST(ProvenanceSeed000, EveryNodeOfParseLinesAndLayerListGetsAFate) {
  Capture c = test::load({fixture("seed000_int8.log")});
  // The parse section (read by the memory area into Capture::onnx) names these four nodes
  // (grep "Parsing node:" fixtures/seed000_int8.log); filled by hand until that is merged.
  if (c.onnx.nodes.empty()) {
    int i = 0;
    for (auto [name, op] :
         std::vector<std::pair<std::string, std::string>>{{"Conv_0", "Conv"},
                                                          {"Constant_1", "Constant"},
                                                          {"Constant_2", "Constant"},
                                                          {"Clip_3", "Clip"}}) {
      OnnxNode n;
      n.name = name;
      n.op = op;
      n.index = i++;
      c.onnx.nodes.push_back(n);
    }
    c.onnx.sources.push_back("build-log:" + fixture("seed000_int8.log"));
  }
  compute_provenance(c);
  EXPECT_EQ(node(c, "Conv_0").fate, NodeFate::Fused);
  EXPECT_EQ(node_layer(c.final_build(), node(c, "Conv_0")), "Conv_0 + PWN(Clip_3)");
  EXPECT_EQ(node(c, "Clip_3").fate, NodeFate::Fused);
  EXPECT_EQ(node(c, "Constant_1").fate, NodeFate::Eliminated);
  EXPECT_EQ(node(c, "Constant_2").fate, NodeFate::Eliminated);
  EXPECT_EQ(node(c, "Conv_8").fate, NodeFate::Standalone);   // "Conv_8" alone in the list
  EXPECT_EQ(node(c, "Add_133").fate, NodeFate::Standalone);  // "PWN(Add_133)"
  EXPECT_EQ(node(c, "Conv_136").precision, "FP32");          // 574[Float(1,64,32,48)]
  // Every node named anywhere in the excerpt: grep -o '[A-Z][A-Za-z]*_[0-9]\+' | sort -u.
  std::ifstream in(fixture("seed000_int8.log"));
  std::string line;
  std::set<std::string> named;
  std::regex re("\\b(Conv|Clip|Add|Relu|Constant)_[0-9]+\\b");
  while (std::getline(in, line))
    for (std::sregex_iterator it(line.begin(), line.end(), re), end; it != end; ++it)
      named.insert(it->str());
  ASSERT_GT(named.size(), 40u);
  for (const auto& n : named) {
    const OnnxNode* on = c.onnx.find(n);
    ASSERT_NE(on, nullptr) << n;
    EXPECT_NE(on->fate, NodeFate::Unknown) << n;
  }
}

// --- seed 001: fusion lines and the counters users quote ------------------------------------

TEST(ProvenanceSeed001, LayerCountersAndFusionLines) {
  TRTLENS_REQUIRE_SHARED();
  Capture c = load({seed("001")});
  ProvenanceCounts k = provenance_counts(c);
  ASSERT_TRUE(k.network_layers && k.after_fusion && k.with_reformats);
  EXPECT_EQ(*k.network_layers, 126);
  EXPECT_EQ(*k.after_fusion, 57);
  EXPECT_EQ(*k.with_reformats, 82);
  EXPECT_NE(provenance_headline(k).find(
                "(126 network layers) -> 57 layers after fusion -> 82 with 25 reformat layers"),
            std::string::npos)
      << provenance_headline(k);
  bool fused = false;
  for (const auto& e : c.onnx.events)
    if (e.kind == "fuse" && e.pass == "ConstShuffleFusion" && e.subject == "fc.bias" &&
        e.other == "(Unnamed Layer* 129) [Shuffle]")
      fused = true;
  EXPECT_TRUE(fused);
}

// --- a model made here with the ONNX protobuf API, and a hand-written log for it -----------

void add_node(onnx::GraphProto& g, const std::string& name, const std::string& op, Names in,
              Names out) {
  auto* n = g.add_node();
  n->set_name(name);
  n->set_op_type(op);
  for (auto& s : in) n->add_input(s);
  for (auto& s : out) n->add_output(s);
}

std::string write_small_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto& g = *m.mutable_graph();
  g.set_name("small");
  auto* in = g.add_input();
  in->set_name("input");
  auto* tt = in->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto_DataType_FLOAT);
  for (int d : {1, 3, 8, 8}) tt->mutable_shape()->add_dim()->set_dim_value(d);
  g.add_output()->set_name("output");
  auto* w = g.add_initializer();
  w->set_name("conv0.weight");
  w->set_data_type(onnx::TensorProto_DataType_FLOAT16);
  for (int d : {4, 3, 3, 3}) w->add_dims(d);
  w->set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);  // data elsewhere: dims suffice
  add_node(g, "Conv_0", "Conv", {"input", "conv0.weight"}, {"c0"});
  add_node(g, "Relu_1", "Relu", {"c0"}, {"r1"});
  add_node(g, "Conv_2", "Conv", {"r1"}, {"c2"});
  add_node(g, "Conv_3", "Conv", {"r1"}, {"c3"});
  add_node(g, "Concat_4", "Concat", {"c2", "c3"}, {"cat"});
  add_node(g, "Identity_5", "Identity", {"cat"}, {"id"});
  add_node(g, "MatMul_6", "MatMul", {"id"}, {"m6"});
  add_node(g, "Add_7", "Add", {"m6"}, {"a7"});
  add_node(g, "Softmax_8", "Softmax", {"a7"}, {"output"});
  add_node(g, "", "Constant", {}, {"k9"});  // unnamed: becomes Constant_9
  std::string path = testing::TempDir() + "/provenance_small_" + std::to_string(getpid()) + ".onnx";
  std::ofstream f(path, std::ios::binary);
  m.SerializeToOstream(&f);
  return path;
}

TEST(OnnxModelReader, NodesInGraphOrderInitializersAndUnnamedNodes) {
  OnnxModel m = read_onnx_model(write_small_model());
  ASSERT_EQ(m.nodes.size(), 10u);
  EXPECT_EQ(m.nodes[0].name, "Conv_0");
  EXPECT_EQ(m.nodes[8].op, "Softmax");
  EXPECT_EQ(m.nodes[9].name, "Constant_9");
  EXPECT_TRUE(m.nodes[9].unnamed);
  EXPECT_FALSE(m.nodes[0].unnamed);
  ASSERT_EQ(m.initializers.size(), 1u);
  EXPECT_EQ(m.initializers[0].dtype, "FP16");
  EXPECT_EQ(m.initializers[0].dims, (std::vector<int64_t>{4, 3, 3, 3}));
  ASSERT_EQ(m.graph_inputs.size(), 1u);
  EXPECT_EQ(m.graph_inputs[0].dims, (std::vector<int64_t>{1, 3, 8, 8}));
}

TEST(OnnxModelReader, RefusesWhatIsNotAModel) {
  std::string path = testing::TempDir() + "/not_a_model_" + std::to_string(getpid()) + ".onnx";
  std::ofstream(path, std::ios::binary) << std::string("\x08\x07\x12\xff\xff\xff\x00garbage", 15);
  EXPECT_THROW(read_onnx_model(path), InputError);
  auto r = run_trtlens("provenance " + shell_quote(path));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not a readable ONNX model"), std::string::npos) << r.err;
}

TEST(OnnxModelReader, RefusesModelsOverTwoGigabytesClearly) {
  // A sparse file: 2 GB + 100 bytes on paper, a few bytes on disk.
  std::string path = testing::TempDir() + "/huge_model_" + std::to_string(getpid()) + ".onnx";
  {
    std::ofstream f(path, std::ios::binary);
    f << std::string("\x08\x07\x12\x00", 4);
  }
  std::filesystem::resize_file(path, (uint64_t(2) << 30) + 100);
  auto r = run_trtlens("provenance " + shell_quote(path));
  std::filesystem::remove(path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("larger than 2 GB"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("external data"), std::string::npos) << r.err;
}

TEST(ProvenanceSmallModel, FatesOfEveryNodeWrittenByHand) {
  std::string model = write_small_model();
  Capture c = load({model, fixture("provenance/small_build.log")});
  const std::map<std::string, std::tuple<NodeFate, std::string, std::string>> expected = {
      {"Conv_0", {NodeFate::Fused, "Conv_0 + Relu_1", "FP16"}},
      {"Relu_1", {NodeFate::Fused, "Conv_0 + Relu_1", "FP16"}},
      {"Conv_2", {NodeFate::Fused, "Conv_2 || Conv_3", "FP16"}},  // horizontal fusion
      {"Conv_3", {NodeFate::Fused, "Conv_2 || Conv_3", "FP16"}},
      {"Concat_4", {NodeFate::Eliminated, "", ""}},    // "Eliminating concatenation Concat_4"
      {"Identity_5", {NodeFate::Eliminated, "", ""}},  // "Removing Identity_5"
      {"MatMul_6", {NodeFate::InMyelin, "{ForeignNode[MatMul_6...Softmax_8]}", "FP32"}},
      {"Add_7", {NodeFate::InMyelin, "{ForeignNode[MatMul_6...Softmax_8]}", "FP32"}},
      {"Softmax_8", {NodeFate::InMyelin, "{ForeignNode[MatMul_6...Softmax_8]}", "FP32"}},
      {"Constant_9", {NodeFate::Eliminated, "", ""}},  // unnamed Constant, folded
  };
  ASSERT_EQ(c.onnx.nodes.size(), expected.size());
  for (const auto& [name, want] : expected) {
    SCOPED_TRACE(name);
    const OnnxNode& n = node(c, name);
    EXPECT_EQ(n.fate, std::get<0>(want));
    EXPECT_EQ(node_layer(c.final_build(), n), std::get<1>(want));
    EXPECT_EQ(n.precision, std::get<2>(want));
  }
  EXPECT_EQ(fused_with(c.final_build(), node(c, "Conv_2")), (Names{"Conv_3"}));
  EXPECT_NE(node(c, "Concat_4").reason.find("concatenation eliminated"), std::string::npos);
  EXPECT_NE(node(c, "Concat_4").reason.find("line 7"), std::string::npos);
  EXPECT_NE(node(c, "Identity_5").reason.find("removed by TensorRT (line 8)"), std::string::npos);
  EXPECT_TRUE(node(c, "Constant_9").unnamed);

  const Build& b = *c.final_build();
  ASSERT_EQ(b.layers.size(), 5u);
  EXPECT_EQ(c.onnx.layers[0].kind, "reformat");
  EXPECT_EQ(c.onnx.layers[0].attached_to, "Conv_0 + Relu_1");
  EXPECT_EQ(b.layers[0].onnx_nodes, Names{});
  EXPECT_EQ(b.layers[1].onnx_nodes, (Names{"Conv_0", "Relu_1"}));
  EXPECT_EQ(c.onnx.layers[3].kind, "myelin");
  EXPECT_EQ(b.layers[3].onnx_nodes, (Names{"MatMul_6", "Add_7", "Softmax_8"}));
  EXPECT_EQ(c.onnx.layers[4].kind, "internal");

  ProvenanceCounts k = provenance_counts(c);
  EXPECT_EQ(k.by_fate[NodeFate::Fused], 4u);
  EXPECT_EQ(k.by_fate[NodeFate::InMyelin], 3u);
  EXPECT_EQ(k.by_fate[NodeFate::Eliminated], 3u);
  EXPECT_EQ(k.by_fate[NodeFate::Unknown], 0u);
  EXPECT_EQ(
      provenance_headline(k),
      "10 ONNX nodes (10 network layers) -> 4 layers after fusion -> 5 with 1 reformat layers");
}

TEST(ProvenanceSmallModel, CommandFollowsOneNodeWithOnnxOption) {
  std::string model = write_small_model();
  auto r = run_trtlens("provenance " + shell_quote(fixture("provenance/small_build.log")) +
                       " --onnx " + shell_quote(model) + " --node '^Concat_4$' --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Concat_4,Concat,eliminated"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Conv_0"), std::string::npos) << r.out;  // filtered out

  auto j = run_trtlens("json " + shell_quote(fixture("provenance/small_build.log")) + " --onnx " +
                       shell_quote(model));
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["onnx"]["nodes"].size(), 10u);
  EXPECT_EQ(doc["onnx"]["nodes"][6]["fate"], "in-myelin");
  EXPECT_EQ(doc["builds"][0]["layers"][2]["onnx_nodes"], (Names{"Conv_2", "Conv_3"}));
}

TEST(ProvenanceSmallModel, ForeignNodeRangeByTensorNamesAndBackwardsRange) {
  Capture c;
  c.onnx = read_onnx_model(write_small_model());
  Build b;
  b.final = true;
  for (const char* name :
       {"Conv_0 + Relu_1", "{ForeignNode[r1...a7]}", "{ForeignNode[Softmax_8...MatMul_6]}"}) {
    Layer l;
    l.name = name;
    b.layers.push_back(l);
  }
  c.builds.push_back(b);
  compute_provenance(c);
  // r1 is Relu_1's output, a7 Add_7's: nodes 1..7 in graph order, less those Conv_0 + Relu_1 has.
  EXPECT_EQ(c.builds[0].layers[1].onnx_nodes,
            (Names{"Conv_2", "Conv_3", "Concat_4", "Identity_5", "MatMul_6", "Add_7"}));
  EXPECT_EQ(node(c, "Concat_4").fate, NodeFate::InMyelin);
  EXPECT_EQ(node(c, "Softmax_8").fate, NodeFate::Unknown);  // the backwards range is not expanded
  EXPECT_NE(c.onnx.layers[2].note.find("backwards"), std::string::npos);
  EXPECT_EQ(c.onnx.notes.size(), 1u);
}

// --- Names the log cut short ------------------------------------------------------------

// Nodes of a QAT-style model whose quantizer names a layer listing cuts short.
std::string write_quantizer_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto& g = *m.mutable_graph();
  g.set_name("quantizers");
  g.add_input()->set_name("input");
  g.add_output()->set_name("out");
  add_node(g, "/enc/layer0/_input_quantizer/QuantizeLinear", "QuantizeLinear", {"input"}, {"q0"});
  add_node(g, "/enc/layer0/_input_quantizer/DequantizeLinear", "DequantizeLinear", {"q0"}, {"dq0"});
  add_node(g, "/enc/layer0/Conv", "Conv", {"dq0"}, {"c0"});
  add_node(g, "/enc/layer1/_input_quantizer/QuantizeLinear", "QuantizeLinear", {"c0"}, {"q1"});
  add_node(g, "/enc/layer1/_input_quantizer/QuantizeLinear_1", "QuantizeLinear", {"c0"}, {"q1b"});
  add_node(g, "/enc/layer1/Conv", "Conv", {"q1"}, {"c1"});
  add_node(g, "/enc/layer2/_input_quantizer/QuantizeLinear", "QuantizeLinear", {"c1"}, {"q2"});
  add_node(g, "/enc/layer2/Conv", "Conv", {"q2"}, {"c2"});
  add_node(g, "/enc/layer2/Relu", "Relu", {"c2"}, {"out"});
  std::string path =
      testing::TempDir() + "/provenance_quantizers_" + std::to_string(getpid()) + ".onnx";
  std::ofstream f(path, std::ios::binary);
  m.SerializeToOstream(&f);
  return path;
}

// By hand: layer 0's ".../QuantizeLin" begins one node only (layer 0's QuantizeLinear); layer
// 1's begins two (QuantizeLinear and QuantizeLinear_1), so it stays unmatched; the ForeignNode's
// first endpoint begins layer 2's QuantizeLinear only, so the range is nodes 6..8.
TEST(ProvenanceCutNames, AUniquePrefixMatchesItsNodeAndAnAmbiguousOneDoesNot) {
  const std::string model = write_quantizer_model();
  Capture c = load({model, fixture("provenance/cut_names.log")});
  const Build& b = *c.final_build();
  ASSERT_EQ(b.layers.size(), 3u);
  EXPECT_EQ(b.layers[0].onnx_nodes,
            (Names{"/enc/layer0/_input_quantizer/QuantizeLinear", "/enc/layer0/Conv"}));
  ASSERT_EQ(c.onnx.layers[0].prefix_matches.size(), 1u);
  EXPECT_EQ(c.onnx.layers[0].prefix_matches[0].first, "/enc/layer0/_input_quantizer/QuantizeLin");
  EXPECT_EQ(b.layers[1].onnx_nodes, (Names{"/enc/layer1/Conv"}));
  EXPECT_TRUE(c.onnx.layers[1].prefix_matches.empty());
  EXPECT_NE(c.onnx.layers[1].note.find("match no ONNX node"), std::string::npos);
  EXPECT_EQ(b.layers[2].onnx_nodes, (Names{"/enc/layer2/_input_quantizer/QuantizeLinear",
                                           "/enc/layer2/Conv", "/enc/layer2/Relu"}));
  ASSERT_EQ(c.onnx.layers[2].prefix_matches.size(), 1u);
  size_t by_prefix = 0;
  for (const auto& n : c.onnx.nodes) by_prefix += n.matched_by == "prefix";
  EXPECT_EQ(by_prefix, 2u);
  EXPECT_EQ(node(c, "/enc/layer1/_input_quantizer/QuantizeLinear").fate, NodeFate::Unknown);
  std::remove(model.c_str());
}

// Without a model, the log's parse section lists the nodes: a name cut short that begins one
// listed node is that node, not a node inferred from the layer name; one that begins two is
// (by hand: five listed nodes, one inferred).
TEST(ProvenanceCutNames, AParseSectionsNodesAreMatchedByPrefixWithoutAModel) {
  Capture c = load({fixture("provenance/cut_names_parsed.log")});
  ASSERT_EQ(c.onnx.nodes.size(), 6u);
  size_t inferred = 0;
  for (const auto& n : c.onnx.nodes) inferred += n.inferred;
  EXPECT_EQ(inferred, 1u);
  EXPECT_TRUE(node(c, "/enc/layer1/_input_quantizer/QuantizeLin").inferred);
  EXPECT_EQ(node(c, "/enc/layer0/_input_quantizer/QuantizeLinear").matched_by, "prefix");
  EXPECT_EQ(c.final_build()->layers[0].onnx_nodes,
            (Names{"/enc/layer0/_input_quantizer/QuantizeLinear", "/enc/layer0/Conv"}));
}

TEST(ProvenanceCutNames, TextMarksAndJsonSaysMatchedByPrefix) {
  const std::string model = write_quantizer_model();
  const std::string args =
      shell_quote(fixture("provenance/cut_names.log")) + " --onnx " + shell_quote(model);
  auto t = run_trtlens("provenance " + args);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("name cut short: /enc/layer0/_input_quantizer/QuantizeLin... = "
                       "/enc/layer0/_input_quantizer/QuantizeLinear"),
            std::string::npos)
      << t.out;
  auto j = run_trtlens("json " + args);
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["onnx"]["nodes"][0]["matched_by"], "prefix");
  EXPECT_FALSE(doc["onnx"]["nodes"][2].contains("matched_by"));  // /enc/layer0/Conv: exact
  EXPECT_EQ(doc["onnx"]["layers"][0]["prefix_matches"][0]["matched_by"], "prefix");
  std::remove(model.c_str());
}

// --- The parse trace ----------------------------------------------------------------------

// A log that parses its model twice (two runs): one node per name, one initializer per name with
// the shape its node's inputs line gives, and each node's tensors (all read off the fixture).
TEST(ProvenanceParseTrace, AModelParsedTwiceKeepsOneNodeAndInitializerPerName) {
  Capture c = test::load({fixture("provenance/parse_twice.log")});
  ASSERT_EQ(c.onnx.nodes.size(), 2u);
  EXPECT_EQ(c.onnx.nodes[0].name, "/a/Conv");
  EXPECT_EQ(c.onnx.nodes[1].name, "/a/Relu");
  ASSERT_EQ(c.onnx.nodes[0].inputs.size(), 2u);
  EXPECT_EQ(c.onnx.nodes[0].inputs[1].name, "w0");
  ASSERT_EQ(c.onnx.nodes[1].outputs.size(), 1u);
  EXPECT_EQ(c.onnx.nodes[1].outputs[0].name, "z");
  EXPECT_EQ(c.onnx.nodes[1].outputs[0].dims, (std::vector<int64_t>{1, 4, 8, 8}));
  ASSERT_EQ(c.onnx.initializers.size(), 1u);
  EXPECT_EQ(c.onnx.initializers[0].name, "w0");
  EXPECT_EQ(c.onnx.initializers[0].dims, (std::vector<int64_t>{4, 3, 3, 3}));
}

// --- TRT 10 Metadata -----------------------------------------------------------------------

TEST(ProvenanceMetadata, Trt10MetadataWinsOverTheName) {
  Capture c = load({fixture("provenance/trt10_metadata.json")});
  const Build& b = *c.final_build();
  ASSERT_EQ(b.layers.size(), 4u);
  EXPECT_EQ(b.layers[0].onnx_nodes, (Names{"/conv1/Conv", "/relu/Relu"}));
  EXPECT_TRUE(c.onnx.layers[0].from_metadata);
  EXPECT_EQ(b.layers[1].onnx_nodes, Names{});
  EXPECT_EQ(c.onnx.layers[1].kind, "reformat");
  EXPECT_EQ(b.layers[2].onnx_nodes, (Names{"/fc/MatMul", "/fc/Add", "/Softmax"}));
  EXPECT_EQ(c.onnx.layers[2].kind, "myelin");
  // The name says nothing; Metadata names both nodes.
  EXPECT_EQ(b.layers[3].onnx_nodes, (Names{"/head/Conv", "/head/act/Sigmoid"}));
  EXPECT_EQ(node(c, "/fc/Add").fate, NodeFate::InMyelin);
  EXPECT_EQ(node(c, "/relu/Relu").fate, NodeFate::Fused);
  EXPECT_EQ(node(c, "/relu/Relu").precision, "FP16");
  EXPECT_EQ(node(c, "/head/Conv").op, "Conv");
  EXPECT_EQ(c.onnx.nodes.size(), 7u);
}

// --- names from inputs are escaped -----------------------------------------------------------

TEST(ProvenanceCommand, EscapesControlCharactersInNames) {
  std::string path = testing::TempDir() + "/provenance_evil_" + std::to_string(getpid()) + ".json";
  std::ofstream(path)
      << R"({"Layers": [{"Name": "Conv_0\u001b[31m + Relu_1", "LayerType": "CaskConvolution",
    "Inputs": [], "Outputs": [], "Metadata": ""}], "Bindings": []})";
  for (const char* format : {"table", "md"}) {
    auto r = run_trtlens(std::string("provenance --format ") + format + " " + shell_quote(path));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << format;
    EXPECT_NE(r.out.find("Relu"), std::string::npos) << format;
    EXPECT_NE(r.out.find("fused"), std::string::npos) << format;  // split despite the bracket
  }
}

}  // namespace
}  // namespace trtlens
