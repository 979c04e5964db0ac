// Every syntax and hazard of the layer listings, on hand-written fixtures (fixtures/core/).
// Expected values are read off the fixture lines; decimal tactics were converted with python3
// (hex(v & (2**64-1))).
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "test_support.h"

namespace trtlens::test {
namespace {

using Ints = std::vector<int64_t>;

std::string core(const std::string& name) { return fixture("core/" + name); }

std::vector<std::string> names(const std::vector<Tensor>& ts) {
  std::vector<std::string> out;
  for (const auto& t : ts) out.push_back(t.name);
  return out;
}

// hazards_8x.log and its 10.x twin, and the same bytes with CRLF / CR / gzip / ANSI.
void expect_hazard_engine(const Capture& c, const std::string& odd_name = "pos_table") {
  ASSERT_EQ(c.builds.size(), 1u);
  const Build& b = c.builds[0];
  EXPECT_EQ(b.source.line, 2u);
  ASSERT_EQ(b.layers.size(), 6u);
  EXPECT_EQ(c.inputs.at(0).unrecognized, 0u);
  EXPECT_EQ(c.inputs.at(0).lines, 11u);

  const Layer& r = b.layers[0];
  EXPECT_EQ(r.type, "Reformat");
  EXPECT_EQ(r.name,
            "Reformatting CopyNode for Input Tensor 0 to {ForeignNode[318...(Unnamed Layer* 4183) "
            "[Shuffle]]}");
  EXPECT_EQ(r.tactic.value_or(""), "0x0000000000000000");
  EXPECT_EQ(names(r.inputs), (std::vector<std::string>{"input_ids"}));
  EXPECT_EQ(r.inputs[0].dtype, "INT32");
  EXPECT_EQ(r.inputs[0].dims, (Ints{-1, 128}));
  EXPECT_EQ(names(r.outputs),
            (std::vector<std::string>{"Reformatted Input Tensor 0 to {ForeignNode[318...(Unnamed "
                                      "Layer* 4183) [Shuffle]]}"}));

  // Line 5 (after a blank line): two inputs, two outputs, names with brackets and spaces.
  const Layer& m = b.layers[1];
  EXPECT_EQ(m.type, "Myelin");
  EXPECT_EQ(m.name, "{ForeignNode[318...(Unnamed Layer* 4183) [Shuffle]]}");
  EXPECT_EQ(m.source.line, 5u);
  EXPECT_EQ(names(m.inputs), (std::vector<std::string>{r.outputs[0].name, "attention_mask"}));
  EXPECT_EQ(names(m.outputs),
            (std::vector<std::string>{"(Unnamed Layer* 4179) [Fully Connected]_output",
                                      "(Unnamed Layer* 4183) [Shuffle]_output"}));
  EXPECT_EQ(m.outputs[0].dtype, "FP16");
  EXPECT_EQ(m.outputs[0].dims, (Ints{128, 1000, 1, 1}));
  EXPECT_EQ(m.outputs[1].dims, (Ints{-8, 1000}));

  // "Tactic: 0,  -> out[...]": no inputs.
  const Layer& k = b.layers[2];
  EXPECT_EQ(k.name, odd_name);
  EXPECT_TRUE(k.inputs.empty());
  EXPECT_EQ(names(k.outputs), (std::vector<std::string>{"out"}));
  EXPECT_EQ(k.outputs[0].dims, (Ints{1, 4864, 256}));

  // Decimal tactic; names with "||", "'", ", " and ":"; vectorised dims "72:32".
  const Layer& conv = b.layers[3];
  EXPECT_EQ(conv.name, "conv1.weight + QuantizeLinear_7 + Conv_9 || Conv_10 'left'");
  EXPECT_EQ(conv.tactic.value_or(""), "0xe67db95e0c20b618");  // -1838109259315759592
  EXPECT_EQ(names(conv.inputs), (std::vector<std::string>{"x:0, y"}));
  EXPECT_EQ(conv.inputs[0].dtype, "INT8");
  EXPECT_EQ(conv.inputs[0].dims, (Ints{4, 72, 128, 192}));
  EXPECT_EQ(conv.inputs[0].vector_axis, 1);
  EXPECT_EQ(conv.inputs[0].vector_width, 32);
  EXPECT_EQ(names(conv.outputs), (std::vector<std::string>{"a, b", "c: d"}));
  EXPECT_EQ(conv.outputs[1].dtype, "FP32");
  EXPECT_EQ(conv.outputs[1].vector_width, 0);

  const Layer& pw = b.layers[4];
  EXPECT_EQ(pw.name, "PWN(PWN(Sigmoid_12), Mul_13) + Add_14 ...");
  EXPECT_EQ(pw.tactic.value_or(""), "0x0000000000000018");
  EXPECT_EQ(names(pw.outputs), (std::vector<std::string>{"sum (fused)"}));
  EXPECT_TRUE(pw.outputs[0].has_dims);
  EXPECT_TRUE(pw.outputs[0].dims.empty());  // a scalar: "Half()" / "Half[]"

  // An indented continuation line, then a blank line, then a prefixed line ends the block.
  const Layer& noop = b.layers[5];
  EXPECT_EQ(noop.type, "NoOp");
  EXPECT_EQ(noop.name, "reshape_before_MatMul_20");
  EXPECT_EQ(noop.tactic.value_or(""), "0x00000000000003e8");
  EXPECT_EQ(noop.source.line, 9u);

  // The engine graph wires producers to consumers by tensor name.
  EXPECT_EQ(b.graph.inputs, (std::vector<std::string>{"input_ids", "attention_mask", "x:0, y"}));
}

TEST(CoreFixtures, EngineLayerInformation8xSyntax) { expect_hazard_engine(load({core("hazards_8x.log")})); }
TEST(CoreFixtures, EngineLayerInformation10xSyntax) {
  expect_hazard_engine(load({core("hazards_10x.log")}));
}
TEST(CoreFixtures, CrlfLineEnds) { expect_hazard_engine(load({core("crlf.log")})); }
TEST(CoreFixtures, LoneCrLineEnds) { expect_hazard_engine(load({core("cr.log")})); }
TEST(CoreFixtures, GzipFoundByMagicNotName) {
  Capture c = load({core("compressed_log")});
  EXPECT_TRUE(c.inputs.at(0).gzip);
  expect_hazard_engine(c);
}
TEST(CoreFixtures, AnsiEscapesAndInvalidUtf8) {
  // Progress-bar redraws and colours around [V]/[I]; a name with bytes FF FE E9 kept verbatim.
  expect_hazard_engine(load({core("ansi_utf8.log")}), "pos_table_\xff\xfe_latin1_\xe9");
  auto r = run_trtlens("json " + shell_quote(core("ansi_utf8.log")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);  // valid UTF-8 JSON despite the bytes
  EXPECT_EQ(doc["builds"][0]["layers"][2]["name"].get<std::string>().substr(0, 10), "pos_table_");
}

TEST(CoreFixtures, EveryPrefixStyle) {
  Capture c = load({core("prefixes.log")});
  // One block per prefix style; each becomes a build, the last one final.
  const std::vector<std::string> want{"trtexec_conv",    "python_conv",     "python_old_conv",
                                      "bare_v_reformat", "bare_i_reformat", "indented_pool",
                                      "app_logger_softmax"};
  ASSERT_EQ(c.builds.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(c.builds[i].layers.at(0).name, want[i]);
    EXPECT_EQ(c.builds[i].final, i + 1 == want.size());
    EXPECT_EQ(c.builds[i].trt_version, "8.6.1");
  }
  EXPECT_EQ(c.builds[2].layers[0].tactic.value_or(""), "0xfffffffffffffffe");  // "Tactic: -2"
  EXPECT_EQ(c.builds[4].layers[0].tactic.value_or(""), "0x00000000000003e8");  // "0x3e8"
  // The indented block keeps its tab-indented continuation line.
  ASSERT_EQ(c.builds[5].layers.size(), 2u);
  EXPECT_EQ(c.builds[5].layers[1].name, "tab_indented_noop");
  EXPECT_EQ(c.builds[5].layers[1].outputs.at(0).dims, (Ints{1, 200704}));
  EXPECT_EQ(c.inputs[0].unrecognized, 0u);
}

TEST(CoreFixtures, DumpLayerInfoDetailedOneLine) {
  Capture c = load({core("engine_dump.log")});
  ASSERT_EQ(c.builds.size(), 1u);
  const Build& b = c.builds[0];
  EXPECT_EQ(b.kind, ListingKind::LayerInfoDump);
  EXPECT_FALSE(b.names_only);
  ASSERT_EQ(b.layers.size(), 4u);
  const Layer& conv = b.layers[1];
  EXPECT_EQ(conv.name, "/conv1/Conv + /relu/Relu");
  EXPECT_EQ(conv.type, "CaskConvolution");
  EXPECT_EQ(conv.tactic.value_or(""), "0x9cb304e2edbc1221");
  EXPECT_EQ(conv.metadata, "[ONNX Layer: /conv1/Conv]\x1e[ONNX Layer: /relu/Relu]");
  EXPECT_EQ(conv.inputs.at(0).format, "Channel major FP16 format where channel % 8 == 0");
  EXPECT_EQ(conv.inputs.at(0).dtype, "FP16");
  EXPECT_EQ(conv.attributes.get("Kernel"), nlohmann::ordered_json({7, 7}));
  EXPECT_EQ(conv.attributes.get("Weights")->at("Count"), 9408);
  EXPECT_EQ(conv.attributes.string("Activation"), "RELU");
  // Myelin gemm: TacticName, no TacticValue; a tensor name with ", ".
  const Layer& gemm = b.layers[2];
  EXPECT_EQ(gemm.type, "gemm");
  EXPECT_FALSE(gemm.tactic);
  EXPECT_EQ(gemm.tactic_name,
            "sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize32x32x64_stage3_warpsize2x1x2_tensor16x8x16");
  EXPECT_EQ(names(gemm.inputs), (std::vector<std::string>{"/relu/Relu_output_0", "weight1, transposed"}));
  EXPECT_EQ(gemm.inputs[1].dims, (Ints{112, 128}));
  EXPECT_EQ(b.layers[3].stream_id.value_or(-1), 1);
  ASSERT_EQ(b.bindings.size(), 2u);
  EXPECT_EQ(b.bindings[0].name, "input");
  EXPECT_EQ(b.bindings[1].name, "probs");
}

TEST(CoreFixtures, DumpLayerInfoNamesOnlyThenBanner) {
  Capture c = load({core("names_only.log")});
  ASSERT_EQ(c.builds.size(), 1u);
  const Build& b = c.builds[0];
  EXPECT_TRUE(b.names_only);
  ASSERT_EQ(b.layers.size(), 4u);
  EXPECT_EQ(b.layers[2].name, "(Unnamed Layer* 52) [Shuffle]");
  EXPECT_EQ(b.layers[3].name, "{ForeignNode[/blk.0/attn/MatMul.../blk.0/Add_1]}");
  EXPECT_TRUE(b.layers[3].type.empty());
  // The "&&&& PASSED" banner right after the bindings is not a binding; it dates the build.
  ASSERT_EQ(b.bindings.size(), 2u);
  EXPECT_EQ(b.bindings[1].name, "probs");
  EXPECT_EQ(b.trt_version, "10.3.0");
}

TEST(CoreFixtures, LayerJsonNamesOnly) {
  Capture c = load({core("names_only.json")});
  ASSERT_EQ(c.builds.size(), 1u);
  EXPECT_TRUE(c.builds[0].names_only);
  ASSERT_EQ(c.builds[0].layers.size(), 5u);
  EXPECT_EQ(c.builds[0].layers[4].name, "(Unnamed Layer* 52) [Shuffle]");
  ASSERT_EQ(c.builds[0].bindings.size(), 2u);
  EXPECT_EQ(c.builds[0].bindings[0].name, "x:0");
}

TEST(CoreFixtures, LayerJsonTrt11SplitKeys) {
  Capture c = load({core("trt11.json")});
  ASSERT_EQ(c.builds.size(), 1u);
  const Build& b = c.builds[0];
  ASSERT_EQ(b.layers.size(), 2u);
  const Tensor& in = b.layers[0].inputs.at(0);
  EXPECT_EQ(in.dtype, "FP16");
  EXPECT_EQ(in.dims, (Ints{-1, 3, 224, 224}));
  EXPECT_EQ(in.vector_width, 8);
  EXPECT_EQ(b.layers[1].outputs.at(0).dtype, "BF16");
  EXPECT_FALSE(b.layers[1].tactic);
  EXPECT_EQ(b.layers[1].tactic_name, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_stage4");
  ASSERT_EQ(b.bindings.size(), 2u);
  EXPECT_EQ(b.bindings[0].io_mode, "Input");
  EXPECT_EQ(b.bindings[1].name, "logits");
  EXPECT_EQ(b.bindings[1].io_mode, "Output");
  EXPECT_EQ(b.graph.inputs, (std::vector<std::string>{"images"}));
  EXPECT_EQ(b.graph.outputs, (std::vector<std::string>{"logits"}));
}

TEST(CoreFixtures, LayerJsonBareListRoot) {
  Capture c = load({core("bare_list.json")});
  ASSERT_EQ(c.builds.size(), 1u);
  ASSERT_EQ(c.builds[0].layers.size(), 2u);
  EXPECT_EQ(c.builds[0].layers[0].outputs.at(0).vector_width, 4);
  EXPECT_EQ(c.builds[0].layers[1].type, "NoOp");
  EXPECT_EQ(c.builds[0].layers[1].attributes.size(), 0u);
  EXPECT_EQ(c.builds[0].layers[0].attributes.string("Origin"), "QDQ");
}

TEST(CoreFixtures, TwoRunsAndAnEnrichingDump) {
  Capture c = load({core("two_builds.log")});
  // Two trtexec runs: two builds in file order; the second run's --dumpLayerInfo text names
  // the same layers as its Engine Layer Information block and enriches it.
  ASSERT_EQ(c.builds.size(), 2u);
  EXPECT_FALSE(c.builds[0].final);
  EXPECT_TRUE(c.builds[1].final);
  EXPECT_EQ(c.builds[0].trt_version, "8.6.1");
  EXPECT_EQ(c.builds[1].trt_version, "10.3.0");
  EXPECT_EQ(c.builds[0].source.line, 3u);
  EXPECT_EQ(c.builds[1].source.line, 10u);
  EXPECT_EQ(c.builds[0].layers[0].inputs.at(0).dtype, "FP32");
  const Layer& conv = c.builds[1].layers[0];
  EXPECT_EQ(conv.inputs.at(0).dtype, "FP16");
  EXPECT_EQ(conv.tactic_name, "sm80_xmma_fprop_implicit_gemm_f16f16_f16f16_f16_nhwckrsc_nhwc");
  EXPECT_EQ(conv.metadata, "[ONNX Layer: Conv_0]");
  EXPECT_EQ(conv.inputs[0].format, "Channel major FP16 format where channel % 8 == 0");
  EXPECT_EQ(c.builds[1].layers[1].attributes.string("PoolingType"), "MAX");
  EXPECT_EQ(c.builds[1].enriched_by, (std::vector<std::string>{core("two_builds.log") + ":14"}));
  EXPECT_TRUE(c.builds[0].layers[0].tactic_name.empty());
}

TEST(CoreFixtures, UnsplittableLinesAreReportedAndTheBlockGoesOn) {
  Capture c = load({core("bad_line.log")});
  ASSERT_EQ(c.builds.size(), 1u);
  ASSERT_EQ(c.builds[0].layers.size(), 2u);
  EXPECT_EQ(c.builds[0].layers[0].name, "Conv_0 + Relu_1");
  EXPECT_EQ(c.builds[0].layers[1].name, "Flatten_10");  // line 6, after three bad lines
  EXPECT_EQ(c.inputs[0].unrecognized, 3u);
  ASSERT_EQ(c.diagnostics.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(c.diagnostics[i].where.path, core("bad_line.log"));
    EXPECT_EQ(c.diagnostics[i].where.line, 3u + i);
  }
}

TEST(CoreFixtures, Trt10VerboseBlockWithLayersDumpAndACutHeader) {
  Capture c = load({core("trt10_verbose_block.log")});
  // "Engine Layer Information:" then "Layers:" and one-line entries, then "Bindings:". The
  // second header (line 11) has nothing under it: a warning, not an empty final build.
  ASSERT_EQ(c.builds.size(), 1u);
  const Build& b = c.builds[0];
  EXPECT_TRUE(b.final);
  EXPECT_EQ(b.kind, ListingKind::EngineLayerInfo);
  ASSERT_EQ(b.layers.size(), 2u);
  EXPECT_EQ(b.layers[0].inputs.at(0).dims, (Ints{-1, 3, 224, 224}));
  EXPECT_EQ(b.layers[1].name, "{ForeignNode[/fc/MatMul.../softmax/Softmax]}");
  EXPECT_EQ(b.layers[1].type, "Myelin");
  EXPECT_EQ(b.layers[1].tactic_name, "myelin_graph_0");
  EXPECT_FALSE(b.layers[1].tactic);
  EXPECT_EQ(b.bindings.size(), 2u);
  ASSERT_EQ(c.diagnostics.size(), 1u);
  EXPECT_EQ(c.diagnostics[0].where.line, 11u);
  EXPECT_EQ(c.inputs[0].unrecognized, 0u);
}

TEST(CoreFixtures, LayerJsonOfAnotherInputEnrichesTheSameEngine) {
  // The --dumpLayerInfo text and the --exportLayerInfo JSON of one engine, given together:
  // one build (the text's), enriched by the JSON, not two.
  Capture c = load({core("engine_dump.log"), core("engine_detailed.json")});
  ASSERT_EQ(c.inputs.size(), 2u);
  ASSERT_EQ(c.builds.size(), 1u);
  EXPECT_EQ(c.builds[0].kind, ListingKind::LayerInfoDump);
  EXPECT_EQ(c.builds[0].enriched_by, (std::vector<std::string>{core("engine_detailed.json") + ":1"}));
  // Different engines stay apart.
  Capture two = load({core("engine_dump.log"), core("bare_list.json")});
  EXPECT_EQ(two.builds.size(), 2u);
  EXPECT_TRUE(two.builds[1].final);
}

}  // namespace
}  // namespace trtlens::test
