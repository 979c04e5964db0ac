// trtlens diff: alignment, change list and CI gates. Expected values were read off the input
// files by hand (python3 over the JSON, or the fixture text), never from trtlens's output.
#include "analysis/diff.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
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
      {"Conv_0 + Relu_1", "Conv_0 + Relu_1", AlignedBy::Name},
      {"MaxPool_2", "MaxPool_2", AlignedBy::Name},
      {"Conv_3 + Relu_4", "Conv_3 + Relu_4", AlignedBy::Name},
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
  EXPECT_EQ(j["schema"], "trtlens-diff/2");
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
    // Conv_5 (-> Conv_5 + Add_6 + Relu_7); Conv_0 + Relu_1, MaxPool_2, Conv_3 + Relu_4 and the
    // input reformat have the same name on both sides.
    EXPECT_EQ(j["summary"]["aligned"]["onnx"], 1);
    EXPECT_EQ(j["summary"]["aligned"]["name"], 4);
  } else {
    EXPECT_EQ(added, (std::set<std::string>{"Conv_5 + Add_6 + Relu_7"}));
    EXPECT_EQ(removed, (std::set<std::string>{"Conv_5", "PWN(Add_6, Relu_7)"}));
  }
  for (const auto& p : j["pairs"]) {
    std::string by = p["aligned_by"];
    EXPECT_TRUE(by == "weights" || by == "onnx" || by == "name" || by == "signature" ||
                by == "none")
        << by;
    EXPECT_GE(p["confidence"].get<double>(), 0.0);
    EXPECT_LE(p["confidence"].get<double>(), 1.0);
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
  // Layer 0 is QuantizeLinear_2 in both files: same name. Layer 1 carries features.0.0.weight
  // on both sides under renumbered node names.
  EXPECT_EQ(d.alignment.pairs[0].by, AlignedBy::Name);
  EXPECT_EQ(d.alignment.pairs[1].by, AlignedBy::Weights);
  EXPECT_DOUBLE_EQ(d.alignment.pairs[1].confidence, 1.0);
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
  // Both builds hold Gemm_48 and reshape_after_Gemm_48: each pairs with its namesake, so
  // neither is a fusion change nor added.
  for (const auto& p : d.alignment.pairs)
    if (p.base >= 0 && p.head >= 0 && d.base->layers[size_t(p.base)].name == "Gemm_48")
      EXPECT_EQ(d.head->layers[size_t(p.head)].name, "Gemm_48");
  EXPECT_TRUE(changes(d, "fusion").empty()) << dump_changes(d);
  for (const auto* c : changes(d, "added")) EXPECT_NE(c->head, "reshape_after_Gemm_48");
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
  // The residual build fuses MaxPool_12 into the first conv (ConvActPool): the conv pairs with
  // it through conv1.weight, and the base MaxPool_12 has no partner.
  bool conv_paired = false;
  for (const auto& p : d.alignment.pairs) {
    if (p.base < 0) continue;
    const std::string& bn = d.base->layers[size_t(p.base)].name;
    if (bn == "conv1.weight + QuantizeLinear_7 + Conv_9") {
      ASSERT_GE(p.head, 0);
      EXPECT_EQ(d.head->layers[size_t(p.head)].name,
                "conv1.weight + QuantizeLinear_7 + Conv_9 + MaxPool_12");
      EXPECT_EQ(p.by, AlignedBy::Weights);
      conv_paired = true;
    }
    if (bn == "MaxPool_12") EXPECT_EQ(p.head, -1);
  }
  EXPECT_TRUE(conv_paired);
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
    c.builds[0].latency.source = Latency::Source::PerfSummary;
    c.builds[0].latency.median_ms = *latency;
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

TEST(DiffHandMade, PrecisionPerLayerAndPerOnnxNode) {
  Capture a =
      capture({layer("Conv_17 + Relu_18", "CaskConvolution", "INT8", {"Conv_17", "Relu_18"})});
  Capture b =
      capture({layer("Conv_17 + Relu_18", "CaskConvolution", "FP16", {"Conv_17", "Relu_18"})});
  DiffResult d = diff(a, b);
  std::vector<std::string> whats;
  for (const auto* c : changes(d, "precision")) {
    whats.push_back(c->what);
    EXPECT_EQ(c->base, "INT8");
    EXPECT_EQ(c->head, "FP16");
  }
  // The layer's input and output, and each of its two nodes.
  EXPECT_EQ(whats, (std::vector<std::string>{"layer", "layer output", "node", "node"}));
  ASSERT_EQ(d.transitions.size(), 1u);
  EXPECT_EQ(d.transitions[0].from, "INT8");
  EXPECT_EQ(d.transitions[0].to, "FP16");
  EXPECT_EQ(d.transitions[0].layers, 1u);
  EXPECT_EQ(d.transitions[0].nodes, 2u);
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
  EXPECT_EQ(same.out.find("\nchange,"), std::string::npos) << same.out;
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

// ---------- release-gate diff: weights, precision transitions, self-diff, latency, formats ----

namespace trtlens {
namespace {

using test::fixture;
using test::run_trtlens;
using test::shared_dir;
using test::shell_quote;

std::string engine(const std::string& rel) { return shared_dir() + "/corpus/trex/" + rel; }

// The test's own reading of the parameter names in a layer name: " + "-separated parts that end
// in .weight / .bias (PyTorch exports) or ReadVariableOp:0 (TensorFlow exports).
std::set<std::string> weights_in(const std::string& name) {
  std::set<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t end = name.find(" + ", start);
    std::string part = name.substr(start, end == std::string::npos ? end : end - start);
    for (const std::string suf : {".weight", ".bias", "ReadVariableOp:0"})
      if (part.size() > suf.size() && part.compare(part.size() - suf.size(), suf.size(), suf) == 0)
        out.insert(part);
    if (end == std::string::npos) break;
    start = end + 3;
  }
  return out;
}

// Families of builds of one model in the corpus; every ordered pair of a family is diffed.
std::vector<std::vector<std::string>> corpus_families() {
  std::string a = "examples/pytorch/resnet/A100/", t = "examples/tensorflow/resnet/RTX-3090/";
  return {
      {a + "fp32/resnet.onnx.engine.graph.json", a + "fp16/resnet.onnx.engine.graph.json",
       a + "qat/resnet-qat.onnx.engine.graph.json",
       a + "qat-residual/resnet-qat-residual.onnx.engine.graph.json",
       a + "qat-residual-qgap/resnet-qat-residual-qgap.onnx.engine.graph.json"},
      {t + "fp32/resnet.onnx.engine.graph.json", t + "fp16/resnet.onnx.engine.graph.json",
       t + "qat/resnet-qat.onnx.engine.graph.json"},
      {"tests/inputs/mobilenet.qat.onnx.engine.graph.json",
       "tests/inputs/mobilenet_v2_residuals.qat.onnx.engine.graph.json"},
  };
}

TEST(DiffAlignCorpus, NoPairContradictsTheWeightNamesOfBothLayers) {
  TRTLENS_REQUIRE_SHARED();
  size_t checked = 0;
  for (const auto& family : corpus_families())
    for (const auto& x : family)
      for (const auto& y : family) {
        if (x == y) continue;
        Capture a = load({engine(x)}), b = load({engine(y)});
        DiffResult d = diff_builds(a, *a.final_build(), b, *b.final_build());
        for (const auto& p : d.alignment.pairs) {
          if (p.base < 0 || p.head < 0) continue;
          auto wb = weights_in(d.base->layers[size_t(p.base)].name);
          auto wh = weights_in(d.head->layers[size_t(p.head)].name);
          if (wb.empty() || wh.empty()) continue;
          ++checked;
          bool common = false;
          for (const auto& w : wb) common |= wh.count(w) > 0;
          EXPECT_TRUE(common) << x << " -> " << y << ": " << d.base->layers[size_t(p.base)].name
                              << " paired with " << d.head->layers[size_t(p.head)].name;
        }
      }
  EXPECT_GT(checked, 100u);  // the QAT pairs carry weights on both sides
}

TEST(DiffAlignCorpus, SeparateExportsPairByWeightNotByNodeNumber) {
  TRTLENS_REQUIRE_SHARED();
  // The two mobilenet exports number their nodes differently: Conv_532 is features.11.conv.2 in
  // one and features.13.conv.0.0 in the other. Every base layer that names a weight present in
  // exactly one head layer must pair with that layer.
  Capture a = load({engine("tests/inputs/mobilenet.qat.onnx.engine.graph.json")});
  Capture b = load({engine("tests/inputs/mobilenet_v2_residuals.qat.onnx.engine.graph.json")});
  DiffResult d = diff_builds(a, *a.final_build(), b, *b.final_build());
  std::map<std::string, std::vector<int>> head_of;
  for (size_t h = 0; h < d.head->layers.size(); ++h)
    for (const auto& w : weights_in(d.head->layers[h].name)) head_of[w].push_back(int(h));
  size_t expected = 0;
  for (const auto& p : d.alignment.pairs) {
    if (p.base < 0) continue;
    for (const auto& w : weights_in(d.base->layers[size_t(p.base)].name)) {
      auto it = head_of.find(w);
      if (it == head_of.end() || it->second.size() != 1) continue;
      ++expected;
      EXPECT_EQ(p.head, it->second[0]) << w;
      EXPECT_EQ(p.by, AlignedBy::Weights) << w;
    }
  }
  EXPECT_GT(expected, 40u);
  auto j = nlohmann::json::parse(
      run_trtlens(
          "diff " + shell_quote(engine("tests/inputs/mobilenet.qat.onnx.engine.graph.json")) + " " +
          shell_quote(engine("tests/inputs/mobilenet_v2_residuals.qat.onnx.engine.graph.json")) +
          " --format json")
          .out);
  bool seen = false;
  for (const auto& p : j["pairs"])
    if (p["base"] == "features.11.conv.2.weight + QuantizeLinear_528 + Conv_532") {
      seen = true;
      EXPECT_NE(p["head"].get<std::string>().find("features.11.conv.2.weight"), std::string::npos);
      EXPECT_EQ(p["aligned_by"], "weights");
    }
  EXPECT_TRUE(seen);
}

// Compute layers (LayerType other than Reformat / NoOp) with the dtype their first input's
// format string names, read straight from the JSON file.
std::vector<std::string> compute_precisions(const std::string& path) {
  std::ifstream f(path);
  auto j = nlohmann::json::parse(f);
  std::vector<std::string> out;
  for (const auto& l : j["Layers"]) {
    std::string type = l["LayerType"];
    if (type == "Reformat" || type == "NoOp") continue;
    std::string fmt = l["Inputs"][0]["Format/Datatype"];
    out.push_back(fmt.find("Int8") != std::string::npos   ? "INT8"
                  : fmt.find("FP16") != std::string::npos ? "FP16"
                  : fmt.find("FP32") != std::string::npos ? "FP32"
                                                          : fmt);
  }
  return out;
}

TEST(DiffPrecision, Fp16ToQatTransitionsAndGates) {
  TRTLENS_REQUIRE_SHARED();
  std::string x = a100("fp16"), y = a100("qat");
  // Both builds hold the same compute layers in the same order (23 each): zip them.
  auto px = compute_precisions(x), py = compute_precisions(y);
  ASSERT_EQ(px.size(), py.size());
  std::map<std::pair<std::string, std::string>, size_t> want;
  for (size_t i = 0; i < px.size(); ++i)
    if (px[i] != py[i]) ++want[{px[i], py[i]}];
  Capture a = load({x}), b = load({y});
  DiffResult d = diff_builds(a, *a.final_build(), b, *b.final_build());
  std::map<std::pair<std::string, std::string>, size_t> got;
  for (const auto& t : d.transitions) got[{t.from, t.to}] = t.layers;
  EXPECT_EQ(got, want);  // FP16->INT8: 21, FP16->FP32: 1 (MaxPool)
  EXPECT_EQ(want.size(), 2u);

  auto gate = [&](const std::string& rule) {
    return run_trtlens("diff " + shell_quote(x) + " " + shell_quote(y) + " --fail-on " + rule +
                       " --format json");
  };
  auto fp32 = gate("new-fp32");
  EXPECT_EQ(fp32.exit_code, 1) << fp32.err;
  auto j = nlohmann::json::parse(fp32.out);
  EXPECT_EQ(j["gates"][0]["status"], "FAIL");
  EXPECT_EQ(j["precision_transitions"].size(), 2u);
  EXPECT_EQ(gate("precision-drop").exit_code, 0);
  // The other way round, INT8 layers go back to FP16: a precision drop.
  auto back =
      run_trtlens("diff " + shell_quote(y) + " " + shell_quote(x) + " --fail-on precision-drop");
  EXPECT_EQ(back.exit_code, 1) << back.out;
}

TEST(DiffSelf, EveryCorpusEngineAndDuplicateNamesGiveNoChanges) {
  // Two layers named Conv_1, and Gemm_48 next to reshape_after_Gemm_48 (one node, two layers).
  auto f = shell_quote(fixture("diff/duplicate_names.json"));
  auto r = run_trtlens("diff " + f + " " + f + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["changes"].size(), 0u) << j["changes"].dump();
  ASSERT_EQ(j["pairs"].size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(j["pairs"][i]["base_index"], i);
    EXPECT_EQ(j["pairs"][i]["head_index"], i);
  }
  if (shared_dir().empty()) return;
  for (const auto& family : corpus_families())
    for (const auto& x : family) {
      Capture a = load({engine(x)});
      DiffResult d = diff_builds(a, *a.final_build(), a, *a.final_build());
      EXPECT_TRUE(d.changes.empty()) << x << "\n" << dump_changes(d);
      for (size_t i = 0; i < d.alignment.pairs.size(); ++i)
        EXPECT_EQ(d.alignment.pairs[i].head, d.alignment.pairs[i].base) << x;
    }
}

TEST(DiffAlign, SameNameNeverAddedOrRemoved) {
  // Signatures differ and both sides carry different ONNX nodes, yet the names are equal.
  Capture a = capture({layer("A", "CaskConvolution", "FP16", {"Conv_1"}),
                       layer("shared", "PointWiseV2", "FP16", {"Relu_2"})});
  Capture b = capture({layer("shared", "CaskConvolution", "INT8", {"Relu_9"}),
                       layer("B", "PointWiseV2", "FP32", {"Conv_7"})});
  b.builds[0].layers[0].outputs[0].dims = {1, 4, 2, 2};
  DiffResult d = diff(a, b);
  for (const auto& c : d.changes) {
    if (c.kind != "added" && c.kind != "removed") continue;
    EXPECT_NE(c.kind == "added" ? c.head : c.base, "shared") << dump_changes(d);
  }
}

TEST(DiffLatency, TraceMedianIsTheFigureAndTheGate) {
  TRTLENS_REQUIRE_SHARED();
  std::string dir = shared_dir() + "/corpus/trex/examples/pytorch/resnet/A100/";
  auto side = [&](const std::string& v, const std::string& stem) {
    std::string p = dir + v + "/" + stem + ".onnx.engine.";
    return shell_quote(p + "graph.json") + " " + shell_quote(p + "profile.json") + " " +
           shell_quote(p + "timing.json");
  };
  auto median = [&](const std::string& path) {
    std::ifstream f(path);
    auto j = nlohmann::json::parse(f);
    std::vector<double> v;
    for (const auto& r : j) v.push_back(r["latencyMs"].get<double>());
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  };
  double mb = median(dir + "fp16/resnet.onnx.engine.timing.json");
  double mh = median(dir + "qat/resnet-qat.onnx.engine.timing.json");
  double pct = (mh - mb) / mb * 100;  // about +2.4 %
  ASSERT_LT(pct, 5);
  std::string cmd = "diff --base " + side("fp16", "resnet") + " --head " +
                    side("qat", "resnet-qat") + " --format json --fail-on ";
  auto ok = run_trtlens(cmd + "latency:+5%");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  auto j = nlohmann::json::parse(ok.out);
  EXPECT_EQ(j["latency"]["source"], "times");
  EXPECT_NEAR(j["latency"]["base"]["median_ms"].get<double>(), mb, 1e-9);
  EXPECT_NEAR(j["headline"]["latency"]["head"].get<double>(), mh, 1e-9);
  EXPECT_EQ(j["latency"]["base"]["queries"], 3698);  // records in the fp16 trace
  EXPECT_EQ(j["gates"][0]["warning"], nullptr);
  // A threshold below the measured change trips.
  auto tight = run_trtlens(cmd + "latency:+1%");
  EXPECT_EQ(tight.exit_code, 1);

  // Profiles only: the gate compares the two sums and warns that they are not measurements.
  std::string p = "diff --base " + shell_quote(dir + "fp16/resnet.onnx.engine.graph.json") + " " +
                  shell_quote(dir + "fp16/resnet.onnx.engine.profile.json") + " --head " +
                  shell_quote(dir + "qat/resnet-qat.onnx.engine.graph.json") + " " +
                  shell_quote(dir + "qat/resnet-qat.onnx.engine.profile.json") +
                  " --fail-on latency:+50%";
  auto sums = run_trtlens(p);
  EXPECT_EQ(sums.exit_code, 0) << sums.err;
  EXPECT_NE(sums.err.find("not measured latency"), std::string::npos) << sums.err;
  // Measured on one side only: not like with like, an input error.
  auto mixed = run_trtlens("diff --base " + side("fp16", "resnet") + " --head " +
                           shell_quote(dir + "qat/resnet-qat.onnx.engine.graph.json") + " " +
                           shell_quote(dir + "qat/resnet-qat.onnx.engine.profile.json") +
                           " --fail-on latency:+5%");
  EXPECT_EQ(mixed.exit_code, 2) << mixed.err;
}

// Capture directories are read on two threads, small files one after the other, and
// `--threads 1` reads everything on one: each way gives the same diff, byte for byte.
TEST(DiffCli, OneThreadOrTwoReadTheSameDiff) {
  TRTLENS_REQUIRE_SHARED();
  const std::string dir = shared_dir() + "/corpus/trex/examples/pytorch/resnet/A100/";
  const std::string cmd =
      "diff " + shell_quote(dir + "fp32") + " " + shell_quote(dir + "qat") + " --format json";
  auto two = run_trtlens(cmd);
  auto one = run_trtlens(cmd + " --threads 1");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(two.out, one.out);
  // Both sides were read whole: the fp32 build's 32 layers (counted in its graph.json).
  EXPECT_EQ(nlohmann::json::parse(two.out)["base"]["layers"], 32);
}

TEST(DiffFormats, MarkdownAndCsvCarryHeadlineAndGates) {
  TRTLENS_REQUIRE_SHARED();
  std::string cmd = "diff " + shell_quote(a100("fp16")) + " " + shell_quote(a100("qat")) +
                    " --fail-on new-fp32,reformats:+11 --format ";
  auto md = run_trtlens(cmd + "md");
  EXPECT_EQ(md.exit_code, 1);
  EXPECT_NE(md.out.find("**Gates: FAIL**"), std::string::npos);
  EXPECT_NE(md.out.find("| new-fp32 | FAIL |"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| reformats:+11 | ok |"), std::string::npos);
  EXPECT_NE(md.out.find("precision transitions"), std::string::npos);
  EXPECT_NE(md.out.find("### Top changes"), std::string::npos);
  EXPECT_LT(md.out.find("### Gates"), md.out.find("<details>"));

  auto csv = run_trtlens(cmd + "csv");
  std::istringstream in(csv.out);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("section,kind,what,base,head,delta,unit,delta_percent,", 0), 0u) << line;
  size_t numeric = 0, gates = 0;
  while (std::getline(in, line)) {
    gates += line.rfind("gate,", 0) == 0;
    // A change row with a unit: its delta column parses as a plain number.
    if (line.rfind("change,reformat,count,", 0) == 0) {
      std::vector<std::string> cells;
      std::stringstream ss(line);
      for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
      ASSERT_GE(cells.size(), 7u);
      EXPECT_EQ(cells[6], "layers");
      EXPECT_EQ(std::stod(cells[5]), 10.0);  // LayerType Reformat: 2 -> 12
      ++numeric;
    }
  }
  EXPECT_EQ(gates, 2u);
  EXPECT_EQ(numeric, 1u);
}

TEST(Compare, ThreeBuildsAlignedToTheFirst) {
  TRTLENS_REQUIRE_SHARED();
  std::string dir = shared_dir() + "/corpus/trex/examples/pytorch/resnet/A100/";
  std::string fp32 = dir + "fp32/resnet.onnx.engine.graph.json";
  std::string fp16 = dir + "fp16/resnet.onnx.engine.graph.json";
  std::string qat = dir + "qat/resnet-qat.onnx.engine.graph.json";
  auto r = run_trtlens(
      "compare " + shell_quote(fp32) + " " + shell_quote(fp16) + " " + shell_quote(qat) + "+" +
      shell_quote(dir + "qat/resnet-qat.onnx.engine.profile.json") + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "trtlens-compare/1");
  ASSERT_EQ(j["builds"].size(), 3u);
  EXPECT_EQ(j["builds"][0]["layers"], 32);  // "Layers" entries in each file
  EXPECT_EQ(j["builds"][1]["layers"], 36);
  EXPECT_EQ(j["builds"][2]["layers"], 37);
  EXPECT_EQ(j["builds"][2]["latency"]["source"], "profile-sum");
  // Every layer of every build is on exactly one row.
  std::vector<std::set<int>> seen(3);
  for (const auto& row : j["rows"])
    for (size_t k = 0; k < 3; ++k)
      if (!row["builds"][k].is_null())
        EXPECT_TRUE(seen[k].insert(row["builds"][k]["index"].get<int>()).second);
  EXPECT_EQ(seen[0].size(), 32u);
  EXPECT_EQ(seen[1].size(), 36u);
  EXPECT_EQ(seen[2].size(), 37u);
  // The first conv's precision across the three builds, read off the files: FP32, FP16, INT8.
  for (const auto& row : j["rows"])
    if (row["name"] == "Conv_0 + Relu_1") {
      EXPECT_EQ(row["builds"][0]["precision"], "FP32");
      EXPECT_EQ(row["builds"][1]["precision"], "FP16");
      EXPECT_EQ(row["builds"][2]["precision"], "INT8");
    }
  for (const char* fmt : {"table", "csv", "md", "html"}) {
    auto o =
        run_trtlens("compare " + shell_quote(fp32) + " " + shell_quote(fp16) + " --format " + fmt);
    EXPECT_EQ(o.exit_code, 0) << fmt << o.err;
    EXPECT_NE(o.out.find("TiledPooling"), std::string::npos) << fmt;  // fp32's MaxPool_2
  }
  EXPECT_EQ(run_trtlens("compare " + shell_quote(fp32)).exit_code, 2);
  EXPECT_EQ(run_trtlens("compare " + shell_quote(fp32) + " /nonexistent+/x.json").exit_code, 2);
}

}  // namespace
}  // namespace trtlens
