// trtlens diff: alignment, change list and CI gates. Expected values were read off the input
// files by hand (python3 over the JSON, or the fixture text), never from trtlens's output.
#include "analysis/diff.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "analysis/classify.h"
#include "render/diff.h"
#include "test_support.h"

namespace trtlens {
namespace {

using test::fixture;
using test::run_trtlens;
using test::shared_dir;
using test::shell_quote;
using test::tensor;

// The layer roles and build totals the diff reads (the rest of the analysis is left out so
// the alignment is the one of the names alone).
Capture load(const std::vector<std::string>& paths) {
  Capture c = test::load(paths);
  classify_layers(c);
  compute_totals(c);
  return c;
}

std::string a100(const std::string& variant) {
  std::string stem = variant == "fp32" || variant == "fp16" ? "resnet" : "resnet-" + variant;
  return shared_dir() + "/corpus/trex/examples/pytorch/resnet/A100/" + variant + "/" + stem +
         ".onnx.engine.graph.json";
}

const Layer* by_name(const Build& b, const std::string& name) {
  for (const auto& l : b.layers)
    if (l.name == name) return &l;
  return nullptr;
}

std::vector<const DiffChange*> changes(const DiffResult& d, const std::string& kind) {
  std::vector<const DiffChange*> v;
  for (const auto& c : d.changes)
    if (c.kind == kind) v.push_back(&c);
  return v;
}

const DiffChange* change_on(const DiffResult& d, const std::string& kind,
                            const std::string& layer) {
  for (const auto& c : d.changes)
    if (c.kind == kind && !c.base_layers.empty() && c.base_layers.front() == layer) return &c;
  return nullptr;
}

// The test's stand-in for provenance: ONNX node names from a TRT 8.x fused name
// ("Conv_5 + Add_6", "PWN(Add_6, Relu_7)") and from TRT 10 Metadata ("[ONNX Layer: X]\x1E...").
std::vector<std::string> nodes_from_name(const std::string& name) {
  std::vector<std::string> out;
  if (name.rfind("Reformatting CopyNode", 0) == 0) return out;
  std::string cur;
  for (char ch : name) {
    if (ch == '+' || ch == ',' || ch == '(' || ch == ')' || ch == ' ') {
      if (!cur.empty() && cur != "PWN") out.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}
std::vector<std::string> nodes_from_metadata(const std::string& md) {
  std::vector<std::string> out;
  const std::string tag = "[ONNX Layer: ";
  for (size_t p = md.find(tag); p != std::string::npos; p = md.find(tag, p)) {
    p += tag.size();
    size_t e = md.find(']', p);
    out.push_back(md.substr(p, e - p));
  }
  return out;
}

std::string dump_changes(const DiffResult& d) {
  std::string s;
  for (const auto& c : d.changes)
    s += c.kind + " " + c.what + " " + c.base.dump() + " -> " + c.head.dump() + "\n";
  return s;
}

// ---------- the fixture pair: one small model built by TRT 8.2 and TRT 10.3 ----------

struct SmallPair {
  Capture base = load({fixture("diff/trt82_small.log")});
  Capture head = load({fixture("diff/trt10_small.log")});
  SmallPair() {
    for (auto& l : base.builds.at(0).layers) l.onnx_nodes = nodes_from_name(l.name);
    for (auto& l : head.builds.at(0).layers) l.onnx_nodes = nodes_from_metadata(l.metadata);
  }
  DiffResult diff() const {
    return diff_builds(base, *base.final_build(), head, *head.final_build());
  }
};

TEST(DiffFixture, AlignsLayerForLayerThroughOnnxNodes) {
  SmallPair p;
  ASSERT_EQ(p.base.final_build()->layers.size(), 7u);  // 7 Layer( lines in the 8.2 block
  ASSERT_EQ(p.head.final_build()->layers.size(), 6u);  // 6 in the TRT 10 block
  DiffResult d = p.diff();
  std::vector<std::tuple<std::string, std::string, AlignedBy>> want = {
      {"Reformatting CopyNode for Input Tensor 0 to Conv_0 + Relu_1",
       "Reformatting CopyNode for Input Tensor 0 to Conv_0 + Relu_1", AlignedBy::Name},
      {"Conv_0 + Relu_1", "Conv_0 + Relu_1", AlignedBy::Onnx},
      {"MaxPool_2", "MaxPool_2", AlignedBy::Onnx},
      {"Conv_3 + Relu_4", "Conv_3 + Relu_4", AlignedBy::Onnx},
      {"Conv_5", "Conv_5 + Add_6 + Relu_7", AlignedBy::Onnx},
      {"PWN(Add_6, Relu_7)", "", AlignedBy::Onnx},
      {"Reformatting CopyNode for Output Tensor 0 to PWN(Add_6, Relu_7)",
       "Reformatting CopyNode for Output Tensor 0 to Conv_5 + Add_6 + Relu_7",
       AlignedBy::Signature},
  };
  ASSERT_EQ(d.alignment.pairs.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const auto& pr = d.alignment.pairs[i];
    ASSERT_GE(pr.base, 0);
    EXPECT_EQ(d.base->layers[size_t(pr.base)].name, std::get<0>(want[i])) << i;
    EXPECT_EQ(pr.head >= 0 ? d.head->layers[size_t(pr.head)].name : "", std::get<1>(want[i])) << i;
    EXPECT_EQ(pr.by, std::get<2>(want[i])) << i;
  }
}

TEST(DiffFixture, ReportsOnlyTheRealDifferences) {
  SmallPair p;
  DiffResult d = p.diff();
  // By construction of the fixture: Conv_5 and PWN(Add_6, Relu_7) merged into one layer, the
  // Conv_3 + Relu_4 kernel changed, and the TensorRT version. Conv_0 + Relu_1 (decimal
  // -7280715700257352151 == 0x9af5b3a53f8d1629) and MaxPool_2 (-3 == 0xff..fd) are unchanged.
  ASSERT_EQ(d.changes.size(), 3u) << dump_changes(d);
  const auto& f = d.changes[0];
  EXPECT_EQ(f.kind, "fusion");
  EXPECT_EQ(f.what, "merged");
  EXPECT_EQ(f.base_layers, (std::vector<std::string>{"Conv_5", "PWN(Add_6, Relu_7)"}));
  EXPECT_EQ(f.head_layers, (std::vector<std::string>{"Conv_5 + Add_6 + Relu_7"}));
  EXPECT_EQ(f.onnx_nodes, (std::vector<std::string>{"Conv_5", "Add_6", "Relu_7"}));
  auto t = changes(d, "tactic");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0]->base_layers.front(), "Conv_3 + Relu_4");
  EXPECT_EQ(t[0]->base, "0x0866777b7cbac7a6");  // 605302572185208742 in hex
  EXPECT_EQ(t[0]->head, "0x0866ddee325d07a6");
  auto v = changes(d, "version");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0]->base, "8.2.3");
  EXPECT_EQ(v[0]->head, "10.3.0");
}

TEST(DiffFixture, EndToEndThroughTheBinary) {
  // The binary fills onnx_nodes only when the provenance analysis is in the build (it is on
  // another branch); without it, the regrouped block can only show as layers added and removed.
  // Either way the facts asserted below are the fixture's, not the output's.
  auto r = run_trtlens("diff " + shell_quote(fixture("diff/trt82_small.log")) + " " +
                       shell_quote(fixture("diff/trt10_small.log")) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "trtlens-diff/1");
  std::set<std::string> added, removed, kinds;
  for (const auto& c : j["changes"]) {
    kinds.insert(c["kind"].get<std::string>());
    if (c["kind"] == "added") added.insert(c["head"].get<std::string>());
    if (c["kind"] == "removed") removed.insert(c["base"].get<std::string>());
  }
  bool provenance = j["summary"]["aligned"]["onnx"].get<int>() > 0;
  if (provenance) {
    EXPECT_EQ(kinds, (std::set<std::string>{"fusion", "tactic", "version"}));
    EXPECT_EQ(j["changes"].size(), 3u);
    // Conv_0 + Relu_1, MaxPool_2, Conv_3 + Relu_4 and Conv_5 (-> Conv_5 + Add_6 + Relu_7).
    EXPECT_EQ(j["summary"]["aligned"]["onnx"], 4);
  } else {
    EXPECT_EQ(added, (std::set<std::string>{"Conv_5 + Add_6 + Relu_7"}));
    EXPECT_EQ(removed, (std::set<std::string>{"Conv_5", "PWN(Add_6, Relu_7)"}));
  }
  for (const auto& p : j["pairs"]) {
    std::string by = p["aligned_by"];
    EXPECT_TRUE(by == "onnx" || by == "name" || by == "signature" || by == "none") << by;
  }
}

// ---------- real pairs from TREx's corpus ----------

TEST(DiffCorpus, MobilenetPairMatchesTrexExpectedAlignment) {
  TRTLENS_REQUIRE_SHARED();
  std::string dir = shared_dir() + "/corpus/trex/tests/inputs/";
  Capture a = load({dir + "mobilenet.qat.onnx.engine.graph.json"});
  Capture b = load({dir + "mobilenet_v2_residuals.qat.onnx.engine.graph.json"});
  DiffResult d = diff_builds(a, *a.final_build(), b, *b.final_build());
  // TREx tests/test_compare_engines.py: (0,0)...(6,6), (7,None), (8,7), (9,8).
  std::vector<std::pair<int, int>> want = {{0, 0}, {1, 1}, {2, 2},  {3, 3}, {4, 4},
                                           {5, 5}, {6, 6}, {7, -1}, {8, 7}, {9, 8}};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(d.alignment.pairs[i].base, want[i].first) << i;
    EXPECT_EQ(d.alignment.pairs[i].head, want[i].second) << i;
  }
  // Layer 0 is QuantizeLinear_2 in both files: same name. The rest have renumbered names.
  EXPECT_EQ(d.alignment.pairs[0].by, AlignedBy::Name);
  EXPECT_EQ(d.alignment.pairs[1].by, AlignedBy::Signature);
  // 73 layers vs 58: the 15 extra base layers are the Reformat (QuantizeLinear) layers that
  // the residual model fused away; nothing is only in head.
  int only_base = 0, only_head = 0;
  for (const auto& p : d.alignment.pairs) {
    if (p.head < 0) {
      ++only_base;
      EXPECT_EQ(d.base->layers[size_t(p.base)].type, "Reformat");
    }
    if (p.base < 0) ++only_head;
  }
  EXPECT_EQ(only_base, 15);
  EXPECT_EQ(only_head, 0);
  auto r = changes(d, "reformat");
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r[0]->what, "count");
  EXPECT_EQ(*r[0]->delta, -15);
}

TEST(DiffCorpus, ResnetFp32VsFp16) {
  TRTLENS_REQUIRE_SHARED();
  Capture a = load({a100("fp32")}), b = load({a100("fp16")});
  DiffResult d = diff_builds(a, *a.final_build(), b, *b.final_build());
  // 32 and 36 layers; 26 names are common to both files and pair by name.
  EXPECT_EQ(d.base_side.layers, 32u);
  EXPECT_EQ(d.head_side.layers, 36u);
  int by_name = 0;
  for (const auto& p : d.alignment.pairs) by_name += p.by == AlignedBy::Name;
  EXPECT_EQ(by_name, 26);
  // MaxPool_2: TiledPooling -> CudaPooling; Conv_0 + Relu_1 tactic and precision.
  const DiffChange* type = change_on(d, "type", "MaxPool_2");
  ASSERT_NE(type, nullptr);
  EXPECT_EQ(type->base, "TiledPooling");
  EXPECT_EQ(type->head, "CudaPooling");
  const DiffChange* tac = change_on(d, "tactic", "Conv_0 + Relu_1");
  ASSERT_NE(tac, nullptr);
  EXPECT_EQ(tac->base, "0x5deb29b7a8e275f7");
  EXPECT_EQ(tac->head, "0xe2222883a6602489");
  const DiffChange* prec = change_on(d, "precision", "Conv_0 + Relu_1");
  ASSERT_NE(prec, nullptr);
  EXPECT_EQ(prec->base, "FP32");
  EXPECT_EQ(prec->head, "FP16");
  // Reformat layers that run (LayerType Reformat; the NoOp "Reformatting CopyNode"s are
  // elided): 1 -> 2 (python3: LayerType counts of the two files).
  EXPECT_EQ(d.base_side.reformats, 1u);
  EXPECT_EQ(d.head_side.reformats, 2u);
}

TEST(DiffCorpus, ResnetQatVsQatResidual) {
  TRTLENS_REQUIRE_SHARED();
  Capture a = load({a100("qat")}), b = load({a100("qat-residual")});
  DiffResult d = diff_builds(a, *a.final_build(), b, *b.final_build());
  EXPECT_EQ(d.base_side.reformats, 12u);  // LayerType Reformat; plus 2 NoOps
  EXPECT_EQ(d.head_side.reformats, 3u);
  // QuantizeLinear_2 is layer 0 of both; its tactic went 0x0 -> 0x3ea.
  const DiffChange* tac = change_on(d, "tactic", "QuantizeLinear_2");
  ASSERT_NE(tac, nullptr);
  EXPECT_EQ(tac->head, "0x00000000000003ea");
  // The residual build fuses MaxPool_12 into the first conv (ConvActPool): a layer only in head.
  bool convactpool_added = false;
  for (const auto* c : changes(d, "added"))
    convactpool_added |= c->head == "conv1.weight + QuantizeLinear_7 + Conv_9 + MaxPool_12";
  EXPECT_TRUE(convactpool_added);
}

TEST(DiffCorpus, ResnetFp16VsQatAndTensorflowPair) {
  TRTLENS_REQUIRE_SHARED();
  Capture a = load({a100("fp16")}), b = load({a100("qat")});
  DiffResult d = diff_builds(a, *a.final_build(), b, *b.final_build());
  EXPECT_EQ(d.base_side.reformats, 2u);
  EXPECT_EQ(d.head_side.reformats, 12u);

  std::string tf = shared_dir() + "/corpus/trex/examples/tensorflow/resnet/RTX-3090/";
  Capture x = load({tf + "fp16/resnet.onnx.engine.graph.json"});
  Capture y = load({tf + "qat/resnet-qat.onnx.engine.graph.json"});
  DiffResult e = diff_builds(x, *x.final_build(), y, *y.final_build());
  EXPECT_EQ(e.base_side.layers, 86u);
  EXPECT_EQ(e.head_side.layers, 63u);
  EXPECT_EQ(e.base_side.reformats, 2u);  // and 25 elided NoOps
  EXPECT_EQ(e.head_side.reformats, 2u);
  // The two names the files share: the pool pad and the max pool.
  const DiffChange* type = change_on(e, "type", "resnet50/pool1_pool/MaxPool");
  ASSERT_NE(type, nullptr);
  EXPECT_EQ(type->base, "CudnnPooling");
  EXPECT_EQ(type->head, "CudaPooling");
  const DiffChange* tac = change_on(e, "tactic", "resnet50/pool1_pool/MaxPool");
  ASSERT_NE(tac, nullptr);
  EXPECT_EQ(tac->base, "0xffffffffffffffff");
  EXPECT_EQ(tac->head, "0xfffffffffffffffc");
  const DiffChange* prec = change_on(e, "precision", "resnet50/pool1_pad/Pad");
  ASSERT_NE(prec, nullptr);
  EXPECT_EQ(prec->base, "FP16");
  EXPECT_EQ(prec->head, "INT8");
  // Input layout: "Channel major FP16 ... % 8" -> "Thirty-two wide channel vectorized ... Int8".
  bool layout = false;
  for (const auto* c : changes(e, "format"))
    layout |= c->base_layers.front() == "resnet50/pool1_pad/Pad" && c->what == "input 0" &&
              c->head == "Thirty-two wide channel vectorized row major Int8 format";
  EXPECT_TRUE(layout);
}

// ---------- hand-filled captures: time, memory, options, device, perf ----------

Layer layer(const std::string& name, const std::string& type, const std::string& dtype,
            std::vector<std::string> nodes, std::optional<double> ms = std::nullopt) {
  Layer l;
  l.name = name;
  l.type = type;
  l.inputs = {tensor(name + ".in", dtype, {1, 8, 4, 4})};
  l.outputs = {tensor(name + ".out", dtype, {1, 8, 4, 4})};
  l.onnx_nodes = std::move(nodes);
  l.time.average_ms = ms;
  return l;
}

Capture capture(std::vector<Layer> layers, std::optional<double> latency = std::nullopt) {
  Capture c;
  Build b;
  b.final = true;
  b.layers = std::move(layers);
  c.builds.push_back(std::move(b));
  if (latency) {
    RunInfo r;
    r.perf.push_back({"Latency", "median", *latency, "ms"});
    r.perf.push_back({"Throughput", "", 1000 / *latency, "qps"});
    c.runs.push_back(r);
  }
  classify_layers(c);
  compute_totals(c);
  return c;
}

DiffResult diff(const Capture& a, const Capture& b) {
  return diff_builds(a, *a.final_build(), b, *b.final_build());
}

TEST(DiffHandMade, SplitFusionGroupAndItsTime) {
  Capture a =
      capture({layer("Conv_1 + Relu_2", "CaskConvolution", "FP16", {"Conv_1", "Relu_2"}, 1.0)});
  Capture b = capture({layer("Conv_1", "CaskConvolution", "FP16", {"Conv_1"}, 0.75),
                       layer("Relu_2", "PointWiseV2", "FP16", {"Relu_2"}, 0.5)});
  DiffResult d = diff(a, b);
  auto f = changes(d, "fusion");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->what, "split");
  EXPECT_TRUE(changes(d, "added").empty());  // a node moving is a fusion change, not an add
  auto tm = changes(d, "time");
  ASSERT_EQ(tm.size(), 1u);
  EXPECT_EQ(tm[0]->what, "fusion group");
  EXPECT_DOUBLE_EQ(*tm[0]->delta, 0.25);  // 0.75 + 0.5 - 1.0
}

TEST(DiffHandMade, PrecisionPerOnnxNode) {
  Capture a =
      capture({layer("Conv_17 + Relu_18", "CaskConvolution", "INT8", {"Conv_17", "Relu_18"})});
  Capture b =
      capture({layer("Conv_17 + Relu_18", "CaskConvolution", "FP16", {"Conv_17", "Relu_18"})});
  DiffResult d = diff(a, b);
  auto p = changes(d, "precision");
  ASSERT_EQ(p.size(), 2u);  // one per node
  EXPECT_EQ(p[0]->onnx_nodes, std::vector<std::string>{"Conv_17"});
  EXPECT_EQ(p[0]->base, "INT8");
  EXPECT_EQ(p[0]->head, "FP16");
}

TEST(DiffHandMade, MemoryOptionsDeviceAndPerf) {
  Capture a = capture({layer("A", "CaskConvolution", "FP16", {"A"})}, 2.0);
  Capture b = capture({layer("A", "CaskConvolution", "FP16", {"A"})}, 2.5);
  a.builds[0].layers[0].memory.scratch = 1024;
  b.builds[0].layers[0].memory.scratch = 4096;
  a.builds[0].memory.engine_size_mib = 10.5;
  b.builds[0].memory.engine_size_mib = 12.0;
  a.runs[0].build_options = {{"Precision", "FP32+FP16"}, {"Sparsity", "Disabled"}};
  b.runs[0].build_options = {{"Precision", "FP32+FP16+INT8"}, {"Sparsity", "Disabled"}};
  a.runs[0].device = {{"Selected Device", "NVIDIA A100"}};
  b.runs[0].device = {{"Selected Device", "NVIDIA H100"}};
  DiffResult d = diff(a, b);
  auto m = changes(d, "memory");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0]->what, "scratch");
  EXPECT_DOUBLE_EQ(*m[0]->delta, 3072);
  EXPECT_EQ(m[1]->what, "engine size");
  auto o = changes(d, "option");
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0]->what, "Precision");
  EXPECT_EQ(o[0]->head, "FP32+FP16+INT8");
  ASSERT_EQ(changes(d, "device").size(), 1u);
  auto perf = changes(d, "perf");
  ASSERT_EQ(perf.size(), 2u);
  EXPECT_EQ(perf[0]->what, "Latency median");
  EXPECT_DOUBLE_EQ(*perf[0]->delta, 0.5);
}

// ---------- CI gates: each rule trips on one input and not on another ----------

bool breached(const DiffResult& d, const std::string& rule) {
  auto g = evaluate_gates(d, {parse_gate_rule(rule)});
  EXPECT_TRUE(g.at(0).evaluated) << g[0].message;
  return g[0].breached;
}

TEST(DiffGates, Latency) {
  Capture a = capture({layer("A", "X", "FP16", {})}, 2.0);
  Capture slower = capture({layer("A", "X", "FP16", {})}, 2.2);    // +10%
  Capture similar = capture({layer("A", "X", "FP16", {})}, 2.06);  // +3%
  EXPECT_TRUE(breached(diff(a, slower), "latency:+5%"));
  EXPECT_FALSE(breached(diff(a, similar), "latency:+5%"));
  auto g = evaluate_gates(diff(capture({layer("A", "X", "FP16", {})}), slower),
                          {parse_gate_rule("latency:+5%")});
  EXPECT_FALSE(g[0].evaluated);  // no latency on the base side: an input error, not a pass
}

TEST(DiffGates, LayerTime) {
  Capture a = capture({layer("A", "X", "FP16", {}, 1.0), layer("B", "Y", "FP16", {}, 1.0)});
  Capture b = capture({layer("A", "X", "FP16", {}, 1.25), layer("B", "Y", "FP16", {}, 0.5)});
  Capture c = capture({layer("A", "X", "FP16", {}, 1.1), layer("B", "Y", "FP16", {}, 1.0)});
  EXPECT_TRUE(breached(diff(a, b), "layer-time:+20%"));   // A +25%
  EXPECT_FALSE(breached(diff(a, c), "layer-time:+20%"));  // A +10%
}

TEST(DiffGates, PrecisionDropAndNewFp32) {
  Capture int8 = capture({layer("C", "CaskConvolution", "INT8", {"Conv_1"})});
  Capture fp16 = capture({layer("C", "CaskConvolution", "FP16", {"Conv_1"})});
  Capture fp32 = capture({layer("C", "CaskConvolution", "FP32", {"Conv_1"})});
  EXPECT_TRUE(breached(diff(int8, fp16), "precision-drop"));
  EXPECT_FALSE(breached(diff(fp16, int8), "precision-drop"));
  EXPECT_FALSE(breached(diff(fp16, fp32), "precision-drop"));
  EXPECT_TRUE(breached(diff(fp16, fp32), "new-fp32"));
  EXPECT_FALSE(breached(diff(fp32, fp16), "new-fp32"));
  // A new layer computing in FP32 counts too.
  Capture more = capture({layer("C", "CaskConvolution", "FP16", {"Conv_1"}),
                          layer("Extra", "PointWiseV2", "FP32", {"Add_9"})});
  EXPECT_TRUE(breached(diff(fp16, more), "new-fp32"));
}

TEST(DiffGates, ReformatsThroughTheBinary) {
  TRTLENS_REQUIRE_SHARED();
  // fp32 runs 1 reformat layer, fp16 runs 2.
  auto up = run_trtlens("diff " + shell_quote(a100("fp32")) + " " + shell_quote(a100("fp16")) +
                        " --fail-on reformats:+1 --format json");
  EXPECT_EQ(up.exit_code, 1) << up.err;
  EXPECT_NE(up.err.find("reformats:+1"), std::string::npos);
  auto down = run_trtlens("diff --base " + shell_quote(a100("fp16")) + " --head " +
                          shell_quote(a100("fp32")) + " --fail-on reformats:+1");
  EXPECT_EQ(down.exit_code, 0) << down.err;
  EXPECT_NE(down.out.find("ok   reformats:+1"), std::string::npos);
  // fp32 -> fp16 drops no INT8 and adds no FP32 compute layer.
  auto clean = run_trtlens("diff " + shell_quote(a100("fp32")) + " " + shell_quote(a100("fp16")) +
                           " --fail-on precision-drop,new-fp32");
  EXPECT_EQ(clean.exit_code, 0) << clean.err;
  // A layer-only JSON has no latency: the latency rule cannot be judged -> input error.
  auto nolat = run_trtlens("diff " + shell_quote(a100("fp32")) + " " + shell_quote(a100("fp16")) +
                           " --fail-on latency:+5%");
  EXPECT_EQ(nolat.exit_code, 2);
}

TEST(DiffCli, UsageErrors) {
  auto f = shell_quote(fixture("diff/trt82_small.log"));
  EXPECT_EQ(run_trtlens("diff " + f + " " + f + " --fail-on latency:5").exit_code, 2);
  EXPECT_EQ(run_trtlens("diff " + f + " " + f + " --fail-on bogus").exit_code, 2);
  EXPECT_EQ(run_trtlens("diff " + f).exit_code, 2);
  auto missing = run_trtlens("diff " + f + " /nonexistent/x.log");
  EXPECT_EQ(missing.exit_code, 2);
  // Same capture on both sides: nothing changed.
  auto same = run_trtlens("diff " + f + " " + f + " --format csv");
  EXPECT_EQ(same.exit_code, 0);
  EXPECT_EQ(same.out, "kind,what,base,head,delta,layers,onnx nodes\n");
}

TEST(DiffAlign, SignatureDropsBatch) {
  Layer a = layer("x", "Reformat", "FP16", {});
  Layer b = layer("y", "Reformat", "INT8", {});
  b.inputs[0].dims[0] = 32;
  EXPECT_EQ(layer_signature(a), layer_signature(b));
  b.outputs[0].dims[1] = 16;
  EXPECT_NE(layer_signature(a), layer_signature(b));
}

}  // namespace
}  // namespace trtlens

namespace trtlens {
namespace {

TEST(DiffRender, TerminalSummaryFitsAScreenAndEscapesNames) {
  TRTLENS_REQUIRE_SHARED();
  auto r = run_trtlens("diff " + shell_quote(a100("fp32")) + " " + shell_quote(a100("fp16")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t details = r.out.find("\ndetails:\n");
  ASSERT_NE(details, std::string::npos);
  // 109 changes, but the part before the details is at most a 24-line screen.
  EXPECT_LE(std::count(r.out.begin(), r.out.begin() + long(details), '\n'), 24);

  Capture a = capture({layer("evil\x1b[31m", "X", "FP16", {})});
  Capture b = capture({layer("evil\x1b[31m", "Y", "FP16", {})});
  std::ostringstream os;
  write_diff_terminal(diff(a, b), {}, os);
  EXPECT_EQ(os.str().find('\x1b'), std::string::npos);
  EXPECT_NE(os.str().find("type type: X -> Y"), std::string::npos);
}

}  // namespace
TEST(DiffCli, HtmlPageHasBothGraphsAndTheChanges) {
  auto a = shell_quote(fixture("diff/trt82_small.log"));
  auto b = shell_quote(fixture("diff/trt10_small.log"));
  auto html = run_trtlens("diff " + a + " " + b + " --format html");
  ASSERT_EQ(html.exit_code, 0) << html.err;
  size_t svgs = 0;
  for (size_t p = html.out.find("<svg"); p != std::string::npos; p = html.out.find("<svg", p + 4))
    ++svgs;
  EXPECT_GE(svgs, 2u);
  // The version change 8.2.3 -> 10.3.0 is one of the rows (values read off the two fixtures).
  EXPECT_NE(html.out.find("8.2.3"), std::string::npos);
  EXPECT_NE(html.out.find("10.3.0"), std::string::npos);
  // Self-contained: nothing fetched (the SVG namespace URIs are names, not fetches).
  EXPECT_EQ(html.out.find("src=\"http"), std::string::npos);
  EXPECT_EQ(html.out.find("<link"), std::string::npos);
}

}  // namespace trtlens
