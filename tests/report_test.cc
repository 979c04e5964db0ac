// The report's figures: TREx's convolution report card reproduced on the corpus (expected values
// from TREx's published formulas applied by independent code here, and one worked by hand), the
// headline from a ResNet layer JSON + profile + exportTimes trace, and the shared units.
#include "analysis/report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "analysis/analyze.h"
#include "io/units.h"
#include "render/escape.h"
#include "render/markdown_report.h"
#include "test_support.h"

namespace trtlens {
namespace {

std::string shared_dir_path(const std::string& variant) {
  return test::shared_dir() + "/corpus/trex/examples/pytorch/resnet/A100/" + variant +
         "/resnet.onnx.engine.graph.json";
}

std::string resnet_dir() {
  return test::shared_dir() + "/corpus/trex/examples/pytorch/resnet/A100/fp16/";
}

Capture load_analyzed(const std::vector<std::string>& paths) {
  Capture c = test::load(paths);
  analyze(c, AnalysisOptions{});
  return c;
}

const ConvCard* card_of(const Build& b, const ReportFigures& f, const std::string& name) {
  for (const auto& cc : f.cards)
    if (b.layers[cc.layer].name == name) return &cc;
  return nullptr;
}

TEST(ReportCard, FirstResnetConvolutionWorkedByHand) {
  TRTLENS_REQUIRE_SHARED();
  Capture c = load_analyzed({resnet_dir() + "resnet.onnx.engine.graph.json"});
  const Build& b = c.builds.front();
  ReportFigures f = report_figures(c, b);
  const ConvCard* cc = card_of(b, f, "Conv_0 + Relu_1");
  ASSERT_NE(cc, nullptr);
  // Input [32,3,224,224] FP16, output [32,64,112,112] FP16, kernel 7x7, one group.
  EXPECT_DOUBLE_EQ(cc->macs, 32.0 * 64 * 112 * 112 * 3 * 7 * 7);  // 3,776,446,464
  EXPECT_DOUBLE_EQ(cc->input_bytes, 32.0 * 3 * 224 * 224 * 2);
  EXPECT_DOUBLE_EQ(cc->output_bytes, 32.0 * 64 * 112 * 112 * 2);
  EXPECT_DOUBLE_EQ(cc->weight_bytes, 64.0 * 3 * 7 * 7 * 2);
  EXPECT_DOUBLE_EQ(cc->bytes, 61032832.0);
  EXPECT_NEAR(cc->intensity, 3776446464.0 / 61032832.0, 1e-9);
  EXPECT_EQ(cc->gemm_m, 32 * 112 * 112);
  EXPECT_EQ(cc->gemm_n, 64);
  EXPECT_EQ(cc->gemm_k, 3 * 7 * 7);
}

// TREx's element size from a format string (activations.py maps the format to a precision).
double trex_elem_size(const std::string& format) {
  if (format.find("FP32") != std::string::npos || format.find("Float") != std::string::npos)
    return 4;
  if (format.find("FP16") != std::string::npos || format.find("Half") != std::string::npos)
    return 2;
  if (format.find("Int8") != std::string::npos || format.find("INT8") != std::string::npos)
    return 1;
  return 0;
}

// TREx's convolution figures, from the layer JSON alone: MACs, bytes moved (input, weights,
// output) and the implicit-GEMM M, N, K.
struct TrexConv {
  double macs, bytes, m, n, k;
};
TrexConv trex_conv(const nlohmann::json& l) {
  const auto& i = l["Inputs"][0];
  const auto& o = l["Outputs"][0];
  double N = i["Dimensions"][0], C = i["Dimensions"][1], H = i["Dimensions"][2],
         W = i["Dimensions"][3];
  double K = o["Dimensions"][1], P = o["Dimensions"][2], Q = o["Dimensions"][3];
  double R = l["Kernel"][0], S = l["Kernel"][1], G = l.value("Groups", 1);
  double in_size = trex_elem_size(i.value("Format/Datatype", ""));
  double out_size = trex_elem_size(o.value("Format/Datatype", ""));
  return {N * K * P * Q * C * R * S / G,
          N * C * H * W * in_size + K * C * R * S / G * in_size + N * K * P * Q * out_size,
          N * P * Q, K, C * R * S};
}

TEST(ReportCard, EveryCorpusConvolutionMatchesTrexFormulas) {
  TRTLENS_REQUIRE_SHARED();
  size_t engines = 0, convs = 0;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(test::shared_dir() + "/corpus/trex")) {
    std::string p = e.path().string();
    if (p.size() < 11 || p.compare(p.size() - 11, 11, ".graph.json") != 0) continue;
    std::ifstream in(p);
    nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    if (doc.is_discarded() || !doc.contains("Layers")) continue;
    Capture c = load_analyzed({p});
    ASSERT_FALSE(c.builds.empty()) << p;
    const Build& b = c.builds.front();
    ReportFigures f = report_figures(c, b);
    ++engines;
    for (const auto& l : doc["Layers"]) {
      if (!l.is_object() || l.value("ParameterType", "") != "Convolution") continue;
      const auto& i = l["Inputs"][0];
      const auto& o = l["Outputs"][0];
      if (i["Dimensions"].size() != 4 || o["Dimensions"].size() != 4) continue;
      const TrexConv t = trex_conv(l);
      const double bytes = t.bytes, macs = t.macs;
      const ConvCard* cc = card_of(b, f, l["Name"]);
      ASSERT_NE(cc, nullptr) << p << ": " << l["Name"];
      EXPECT_DOUBLE_EQ(cc->macs, macs) << l["Name"];
      EXPECT_DOUBLE_EQ(cc->bytes, bytes) << l["Name"];
      EXPECT_NEAR(cc->intensity, bytes > 0 ? macs / bytes : 0, 1e-9) << l["Name"];
      EXPECT_EQ(cc->gemm_m, int64_t(t.m));
      EXPECT_EQ(cc->gemm_n, int64_t(t.n));
      EXPECT_EQ(cc->gemm_k, int64_t(t.k));
      ++convs;
    }
  }
  EXPECT_GE(engines, 10u);
  EXPECT_GT(convs, 100u);
}

TEST(ReportHeadline, ResnetProfileAndTrace) {
  TRTLENS_REQUIRE_SHARED();
  std::string d = resnet_dir();
  Capture c =
      load_analyzed({d + "resnet.onnx.engine.graph.json", d + "resnet.onnx.engine.profile.json",
                     d + "resnet.onnx.engine.timing.json"});
  const Build& b = c.builds.front();
  ReportFigures f = report_figures(c, b);

  // Independently: the profile's rows (the first is {"count": N}) and the trace's latencies.
  std::ifstream pin(d + "resnet.onnx.engine.profile.json");
  nlohmann::json prof = nlohmann::json::parse(pin);
  double sum = 0, top = 0;
  std::string top_name;
  for (const auto& r : prof)
    if (r.contains("averageMs")) {
      sum += r["averageMs"].get<double>();
      if (r["averageMs"].get<double>() > top) top = r["averageMs"], top_name = r["name"];
    }
  ASSERT_EQ(f.top.size(), 3u);
  EXPECT_EQ(b.layers[f.top[0].layer].name, top_name);
  EXPECT_NEAR(f.top[0].ms, top, 1e-9);
  EXPECT_NEAR(f.top[0].share_percent, top / sum * 100, 1e-6);
  EXPECT_GE(f.top[0].ms, f.top[1].ms);
  EXPECT_GE(f.top[1].ms, f.top[2].ms);

  std::ifstream tin(d + "resnet.onnx.engine.timing.json");
  nlohmann::json trace = nlohmann::json::parse(tin);
  std::vector<double> lat;
  for (const auto& r : trace) lat.push_back(r["latencyMs"]);
  ASSERT_TRUE(f.latency_series);
  EXPECT_EQ(f.latency_series->ms.size(), lat.size());
  std::sort(lat.begin(), lat.end());
  size_t n = lat.size();
  double median = n % 2 ? lat[n / 2] : (lat[n / 2 - 1] + lat[n / 2]) / 2;
  EXPECT_NEAR(f.latency_series->p50, median, 1e-9);
  ASSERT_TRUE(b.latency.median_ms);
  EXPECT_NEAR(*b.latency.median_ms, median, 1e-9);

  // Precision by count over running layers: every non-NoOp row of the JSON.
  std::ifstream gin(d + "resnet.onnx.engine.graph.json");
  nlohmann::json g = nlohmann::json::parse(gin);
  // Running: not a NoOp and not measured at exactly 0 ms (a layer TensorRT folded away).
  std::set<std::string> zero;
  for (const auto& r : prof)
    if (r.contains("averageMs") && r["averageMs"].get<double>() == 0) zero.insert(r["name"]);
  size_t running = 0, counted = 0;
  for (const auto& l : g["Layers"])
    if (l.value("LayerType", "") != "NoOp" && !zero.count(l.value("Name", ""))) ++running;
  for (const auto& p : f.precision) counted += p.count;
  EXPECT_EQ(counted, running);

  // The Markdown carries the headline; no Environment heading without an environment.
  std::ostringstream md;
  write_markdown_report(c, b, f, {}, md);
  EXPECT_NE(md.str().find("| latency | median " + human_ms(median)), std::string::npos) << md.str();
  EXPECT_NE(md.str().find("### Time by layer type and precision"), std::string::npos);
  EXPECT_NE(md.str().find("### Convolution and GEMM report card"), std::string::npos);
  EXPECT_EQ(md.str().find("### Environment"), std::string::npos);
}

TEST(ReportFindings, SliceThatChangesDtype) {
  Capture c;
  Build b;
  b.final = true;
  for (auto [name, from, to] :
       {std::tuple{"slice_convert", "FP32", "FP16"}, std::tuple{"slice_same", "FP16", "FP16"}}) {
    Layer l;
    l.name = name;
    l.type = "Slice";
    l.inputs = {test::tensor(std::string(name) + "_in", from, {1, 8, 4, 4})};
    l.outputs = {test::tensor(std::string(name) + "_out", to, {1, 4, 4, 4})};
    b.layers.push_back(l);
  }
  c.builds.push_back(b);
  analyze(c, AnalysisOptions{});
  std::vector<std::string> flagged;
  for (const auto& f : c.findings)
    if (f.id == "slice-dtype") flagged.insert(flagged.end(), f.layers.begin(), f.layers.end());
  EXPECT_EQ(flagged, std::vector<std::string>{"slice_convert"});
}

TEST(ReportDiffPage, HeadlineGatesUnitsAndColoursPerKind) {
  TRTLENS_REQUIRE_SHARED();
  std::string a = shared_dir_path("fp32"), b = shared_dir_path("fp16");
  auto r = test::run_trtlens("diff --base " + test::shell_quote(a) + " " +
                             test::shell_quote(a.substr(0, a.size() - 10) + "profile.json") +
                             " --head " + test::shell_quote(b) + " " +
                             test::shell_quote(b.substr(0, b.size() - 10) + "profile.json") +
                             " --fail-on reformats:+1 --format html");
  EXPECT_EQ(r.exit_code, 1) << r.err;  // fp32 runs 1 reformat, fp16 2: the gate fails
  EXPECT_NE(r.out.find("id=\"headline\""), std::string::npos);
  EXPECT_NE(r.out.find("FAIL reformats:+1"), std::string::npos);
  EXPECT_NE(r.out.find("class=\"pair\""), std::string::npos);
  // Numbers carry units and three digits, never a raw double such as 0.08806399999999999.
  EXPECT_FALSE(std::regex_search(r.out, std::regex(R"(>[0-9]+\.[0-9]{7,}<)")));
  // More than one colour in the head's graph: the change kinds are told apart.
  size_t graph_b = r.out.find("id=\"graph-b\"");
  ASSERT_NE(graph_b, std::string::npos);
  std::set<std::string> fills;
  std::string g = r.out.substr(graph_b);
  std::regex fill(R"re(<polygon fill="(#[0-9a-f]{6})")re");
  for (auto it = std::sregex_iterator(g.begin(), g.end(), fill); it != std::sregex_iterator(); ++it)
    fills.insert((*it)[1]);
  EXPECT_GE(fills.size(), 3u);
}

// One final build of one 3x3 FP16 convolution [1,64,56,56] -> [1,64,56,56] profiled at 0.01 ms.
Capture one_fp16_convolution() {
  Capture c;
  Build b;
  b.final = true;
  Layer l;
  l.name = "conv";
  l.type = "CaskConvolution";
  l.inputs = {test::tensor("x", "FP16", {1, 64, 56, 56})};
  l.outputs = {test::tensor("y", "FP16", {1, 64, 56, 56})};
  l.attributes =
      Attributes::from_text(R"({"ParameterType":"Convolution","Kernel":[3,3],"Groups":1})");
  l.time.average_ms = 0.01;
  b.layers.push_back(l);
  c.builds.push_back(b);
  return c;
}

TEST(ReportCard, AchievedAgainstTheDevicesPeakBandwidth) {
  // The convolution on the device of the RTX 3060 seed (trtexec: 7.001 GHz memory clock,
  // 192-bit bus).
  Capture c = one_fp16_convolution();
  RunInfo r;
  r.device = {{"Application Memory Clock Rate", "7.001 GHz"},
              {"Memory Bus Width", "192 bits (ECC disabled)"}};
  c.runs.push_back(r);
  ReportFigures f = report_figures(c, c.builds.front());
  ASSERT_TRUE(f.device.gbps);
  EXPECT_NEAR(*f.device.gbps, 2 * 7.001 * 192 / 8, 1e-9);  // 336.048 GB/s
  ASSERT_EQ(f.cards.size(), 1u);
  const ConvCard& cc = f.cards.front();
  double macs = 64.0 * 56 * 56 * 64 * 9;
  double bytes = 2 * (64.0 * 56 * 56) * 2 + 64.0 * 64 * 9 * 2;
  EXPECT_DOUBLE_EQ(cc.macs, macs);
  EXPECT_DOUBLE_EQ(cc.bytes, bytes);
  ASSERT_TRUE(cc.tflops && cc.gbps && cc.bandwidth_percent);
  EXPECT_NEAR(*cc.tflops, 2 * macs / 1e-5 / 1e12, 1e-9);
  EXPECT_NEAR(*cc.gbps, bytes / 1e-5 / 1e9, 1e-9);
  EXPECT_NEAR(*cc.bandwidth_percent, bytes / 1e-5 / 1e9 / 336.048 * 100, 1e-9);
}

// --- Compute roofline ----------------------------------------------------------------------

// Published dense peaks (NVIDIA datasheets and whitepapers) of the corpus's three devices, in
// TFLOPS (TOPS for INT8), independent of trtlens's per-SM table: A100 80GB PCIe, GeForce RTX
// 3090 (GA102 whitepaper, FP16 with FP16 accumulation), TITAN RTX (Turing whitepaper).
const std::map<std::string, std::map<std::string, double>>& published_peaks() {
  static const std::map<std::string, std::map<std::string, double>> k = {
      {"NVIDIA A100 80GB PCIe",
       {{"FP32", 19.5}, {"TF32", 156}, {"FP16", 312}, {"BF16", 312}, {"INT8", 624}}},
      {"NVIDIA GeForce RTX 3090",
       {{"FP32", 35.6}, {"TF32", 35.6}, {"FP16", 142}, {"BF16", 71}, {"INT8", 284}}},
      {"NVIDIA TITAN RTX", {{"FP32", 16.3}, {"FP16", 130.5}, {"INT8", 261}}},
  };
  return k;
}

std::string strip(const std::string& p, const std::string& suffix) {
  return p.substr(0, p.size() - suffix.size());
}

TEST(ReportRoofline, DevicePeaksEqualThePublishedFigures) {
  TRTLENS_REQUIRE_SHARED();
  size_t devices = 0;
  for (const char* meta :
       {"/corpus/trex/examples/pytorch/resnet/A100/fp16/"
        "resnet.onnx.engine.profile.metadata.json",
        "/corpus/trex/examples/tensorflow/resnet/RTX-3090/fp16/"
        "resnet.onnx.engine.profile.metadata.json",
        "/corpus/trex/tests/inputs/mobilenet.qat.onnx.engine.profile.metadata.json"}) {
    std::string m = test::shared_dir() + meta;
    std::string graph = strip(m, "profile.metadata.json") + "graph.json";
    Capture c = load_analyzed({graph, m});
    ASSERT_FALSE(c.builds.empty());
    DevicePeaks d = device_peaks(c, c.builds.front());
    ASSERT_TRUE(published_peaks().count(d.name)) << d.name;
    const auto& want = published_peaks().at(d.name);
    EXPECT_EQ(d.tflops.size(), want.size()) << d.name;
    for (const auto& [math, tflops] : want) {
      ASSERT_TRUE(d.tflops.count(math)) << d.name << " " << math;
      EXPECT_NEAR(d.tflops.at(math) / tflops, 1.0, 0.01) << d.name << " " << math;
    }
    EXPECT_TRUE(d.note.empty()) << d.note;
    ++devices;
  }
  EXPECT_EQ(devices, 3u);
}

// The math precision of a corpus convolution from its JSON: the input's format, FP32 run by a
// tf32 kernel being TF32.
std::string json_math(const nlohmann::json& l) {
  std::string f = l["Inputs"][0].value("Format/Datatype", "");
  if (f.find("Int8") != std::string::npos || f.find("INT8") != std::string::npos) return "INT8";
  if (f.find("FP16") != std::string::npos || f.find("Half") != std::string::npos) return "FP16";
  std::string tactic = l.value("TacticName", "");
  std::transform(tactic.begin(), tactic.end(), tactic.begin(), ::tolower);
  return tactic.find("tf32") != std::string::npos ? "TF32" : "FP32";
}

TEST(ReportRoofline, EveryProfiledCorpusConvolutionAgainstItsDevice) {
  TRTLENS_REQUIRE_SHARED();
  size_t engines = 0, convs = 0, compute = 0, memory = 0;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(test::shared_dir() + "/corpus/trex")) {
    std::string p = e.path().string();
    const std::string suffix = "profile.metadata.json";
    if (p.size() < suffix.size() || p.compare(p.size() - suffix.size(), suffix.size(), suffix))
      continue;
    std::string base = strip(p, suffix);
    std::ifstream gin(base + "graph.json"), pin(base + "profile.json"), min(p);
    if (!gin || !pin) continue;
    nlohmann::json graph = nlohmann::json::parse(gin), prof = nlohmann::json::parse(pin),
                   meta = nlohmann::json::parse(min);
    const auto& dev = meta["device_information"];
    const auto& peaks = published_peaks().at(dev["Selected Device"].get<std::string>());
    double gbps =
        2 * dev["Memory Clock Rate"].get<double>() * dev["Memory Bus Width"].get<double>() / 8;
    std::map<std::string, double> avg_ms;
    for (const auto& r : prof)
      if (r.contains("averageMs")) avg_ms[r["name"]] = r["averageMs"];

    Capture c = load_analyzed({base + "graph.json", base + "profile.json", p});
    ASSERT_FALSE(c.builds.empty()) << p;
    const Build& b = c.builds.front();
    ReportFigures f = report_figures(c, b);
    ++engines;
    for (const auto& l : graph["Layers"]) {
      if (l.value("ParameterType", "") != "Convolution") continue;
      const TrexConv t = trex_conv(l);
      const double bytes = t.bytes, macs = t.macs;
      const ConvCard* cc = card_of(b, f, l["Name"]);
      ASSERT_NE(cc, nullptr) << l["Name"];
      std::string math = json_math(l);
      EXPECT_EQ(cc->math, math) << l["Name"];
      auto ms = avg_ms.find(l["Name"]);
      if (ms == avg_ms.end() || ms->second <= 0 || !peaks.count(math)) continue;
      double tflops = 2 * macs / (ms->second / 1e3) / 1e12;
      // TREx's compute_efficiency = MACs / ms and memory_efficiency = bytes / ms, in other units.
      double compute_efficiency = macs / ms->second, memory_efficiency = bytes / ms->second;
      ASSERT_TRUE(cc->tflops && cc->gbps);
      EXPECT_NEAR(*cc->tflops / (2 * compute_efficiency * 1e3 / 1e12), 1.0, 1e-9);
      EXPECT_NEAR(*cc->gbps / (memory_efficiency * 1e3 / 1e9), 1.0, 1e-9);
      ASSERT_TRUE(cc->tflops_percent) << l["Name"];
      EXPECT_NEAR(*cc->tflops_percent / (tflops / peaks.at(math) * 100), 1.0, 0.01) << l["Name"];
      EXPECT_NEAR(*cc->bandwidth_percent, bytes / (ms->second / 1e3) / 1e9 / gbps * 100, 1e-6);
      // Compute-bound where MACs per byte reach the ridge; undecided within the table's 1%.
      double ridge = peaks.at(math) * 1e12 / 2 / (gbps * 1e9);
      double ai = macs / bytes;
      if (std::fabs(ai / ridge - 1) > 0.02) {
        EXPECT_EQ(cc->bound, ai >= ridge ? "compute" : "memory") << l["Name"];
        (ai >= ridge ? compute : memory)++;
      }
      ++convs;
    }
  }
  EXPECT_EQ(engines, 10u);
  EXPECT_GT(convs, 300u);
  EXPECT_GT(compute, 0u);  // both roofs occur in the corpus
  EXPECT_GT(memory, 0u);
}

TEST(ReportRoofline, DeviceLinesOfATrtexecLog) {
  TRTLENS_REQUIRE_SHARED();
  // Seed 001 pastes trtexec's device lines of an RTX 3060 Laptop GPU (8.6, 30 SMs, 1.702 GHz,
  // 192-bit bus at 7.001 GHz); its text gives the card's 3840 CUDA cores, so FP32 peak =
  // 3840 x 2 FLOP x 1.702 GHz.
  Capture c = load_analyzed({test::shared_dir() + "/seeds/001_73038f12cc2a768c.txt"});
  ASSERT_FALSE(c.builds.empty());
  DevicePeaks d = device_peaks(c, c.builds.front());
  EXPECT_EQ(d.name, "NVIDIA GeForce RTX 3060 Laptop GPU");
  EXPECT_EQ(d.compute_capability, "8.6");
  ASSERT_TRUE(d.gbps);
  EXPECT_NEAR(*d.gbps, 2 * 7.001 * 192 / 8, 1e-9);
  ASSERT_TRUE(d.tflops.count("FP32"));
  EXPECT_NEAR(d.tflops.at("FP32"), 3840 * 2 * 1.702 / 1000, 1e-9);
  // GeForce: TF32 at half the GA10x rate, a quarter of FP16's.
  EXPECT_NEAR(d.tflops.at("TF32"), d.tflops.at("FP16") / 4, 1e-9);
}

TEST(ReportRoofline, UnknownDeviceSaysSoWithoutNumbers) {
  Capture c = one_fp16_convolution();
  ReportFigures none = report_figures(c, c.builds.front());
  EXPECT_TRUE(none.device.tflops.empty());
  EXPECT_NE(none.device.note.find("no device information"), std::string::npos);
  ASSERT_EQ(none.cards.size(), 1u);
  EXPECT_FALSE(none.cards[0].tflops_percent);
  EXPECT_EQ(none.cards[0].bound, "");

  RunInfo r;  // a compute capability trtlens has no public figures for
  r.device = {{"Selected Device", "Future GPU"},
              {"Compute Capability", "12.0"},
              {"SMs", "100"},
              {"Compute Clock Rate", "2.0 GHz"}};
  c.runs.push_back(r);
  ReportFigures future = report_figures(c, c.builds.front());
  EXPECT_TRUE(future.device.tflops.empty());
  EXPECT_NE(future.device.note.find("compute capability 12.0 is not in"), std::string::npos);
  EXPECT_FALSE(future.cards[0].peak_tflops);
  std::ostringstream md;
  write_markdown_report(c, c.builds.front(), future, {}, md);
  EXPECT_NE(md.str().find("no compute roofline"), std::string::npos);
  EXPECT_EQ(md.str().find("% of peak TFLOPS"), std::string::npos);
}

// --- Pointwise layers ----------------------------------------------------------------------

TEST(ReportPointwise, CorpusEnginesListExactlyTheirPointwiseLayers) {
  TRTLENS_REQUIRE_SHARED();
  // By hand (grep '"ParameterType": "PointWise' over the ten graph files): no engine of the
  // corpus has a PointWise layer; its activations are fused into the convolutions.
  size_t engines = 0;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(test::shared_dir() + "/corpus/trex")) {
    std::string p = e.path().string();
    if (p.size() < 11 || p.compare(p.size() - 11, 11, ".graph.json") != 0) continue;
    Capture c = load_analyzed({p});
    ReportFigures f = report_figures(c, c.builds.front());
    EXPECT_TRUE(f.pointwise.empty()) << p;
    ++engines;
  }
  EXPECT_EQ(engines, 10u);
}

TEST(ReportPointwise, SeedLogListsItsPointwiseLayerWithTheFusedNodes) {
  // fixtures/seed000_int8.log (the INT8 listing of seed 000): one PointWiseV2 layer,
  // "PWN(Add_133)" on line 69.
  Capture c = load_analyzed({test::fixture("seed000_int8.log")});
  const Build& b = *c.final_build();
  ReportFigures f = report_figures(c, b);
  ASSERT_EQ(f.pointwise.size(), 1u);
  EXPECT_EQ(b.layers[f.pointwise[0].layer].name, "PWN(Add_133)");
  EXPECT_EQ(f.pointwise[0].from, "ONNX nodes");
  EXPECT_EQ(f.pointwise[0].ops, std::vector<std::string>{"Add_133"});
  std::ostringstream md;
  write_markdown_report(c, b, f, {}, md);
  EXPECT_NE(md.str().find("| PWN(Add\\_133) | ONNX nodes: Add\\_133 |"), std::string::npos)
      << md.str();
}

TEST(ReportPointwise, LayerJsonOperationsInOrder) {
  // fixtures/render/pointwise.json: a detailed TRT 8.6 listing with two pointwise layers, one
  // with "Operations" (3 entries) and one with "Instructions" (2 entries).
  Capture c = load_analyzed({test::fixture("render/pointwise.json")});
  const Build& b = c.builds.front();
  ReportFigures f = report_figures(c, b);
  ASSERT_EQ(f.pointwise.size(), 2u);
  EXPECT_EQ(b.layers[f.pointwise[0].layer].name, "PWN(PWN(Sigmoid_3), Mul_4)");
  EXPECT_EQ(f.pointwise[0].ops.size(), 3u);
  EXPECT_EQ(f.pointwise[0].ops[1], "const auto T3 = pwgen::iExp(T2);");
  EXPECT_EQ(f.pointwise[1].ops.size(), 2u);
  EXPECT_EQ(f.pointwise[0].from, "operations");
}

// --- Missed optimisations in the report ----------------------------------------------------

TEST(ReportMissed, OneEntryPerScopeFallbacksFirstWithEvidence) {
  // fixtures/formats/dla_info_10x.log by hand: three DLA fallbacks. /model.22/Slice_1 (lines 9
  // and its reason line 10) and /model.22/Concat_3 (line 13, no reason) share the scope
  // /model.22; /model.22/dfl/Softmax (lines 11, 12) is /model.22/dfl.
  const std::string in = test::fixture("formats/dla_info_10x.log");
  Capture c = load_analyzed({in});
  ASSERT_FALSE(c.builds.empty());
  std::ostringstream md;
  write_markdown_report(c, *c.final_build(), report_figures(c, *c.final_build()), {}, md);
  const std::string s = md.str();
  size_t at = s.find("### Missed optimisations");
  ASSERT_NE(at, std::string::npos) << s;
  std::string section = s.substr(at, s.find("\n### ", at + 1) - at);
  std::vector<std::string> scopes;
  std::regex scope(R"(\n- \*\*([^*]+)\*\*)");
  for (auto it = std::sregex_iterator(section.begin(), section.end(), scope);
       it != std::sregex_iterator(); ++it)
    scopes.push_back((*it)[1]);
  EXPECT_EQ(scopes, (std::vector<std::string>{"/model.22", "/model.22/dfl"}));
  EXPECT_NE(section.find("slicing 4 dimensional tensors (" + escape_markdown(in) + ":9, " +
                         escape_markdown(in) + ":10)"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find(escape_markdown(in) + ":13"), std::string::npos);
  EXPECT_NE(section.find(escape_markdown(in) + ":11, " + escape_markdown(in) + ":12"),
            std::string::npos);

  auto html = test::run_trtlens("report --format html " + test::shell_quote(in));
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_NE(html.out.find("<section id=\"missed\">"), std::string::npos);
  EXPECT_NE(html.out.find("href=\"#missed\""), std::string::npos);
}

TEST(ReportMissed, LeftOutWhenNothingWasMissed) {
  TRTLENS_REQUIRE_SHARED();
  // On every corpus engine the section is there exactly when a missed remark is; TREx's RTX 3090
  // FP32 ResNet (no log, no Q/DQ, every activation fused) has none.
  size_t without = 0;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(test::shared_dir() + "/corpus/trex")) {
    std::string p = e.path().string();
    if (p.size() < 11 || p.compare(p.size() - 11, 11, ".graph.json") != 0) continue;
    Capture c = load_analyzed({p});
    size_t missed = 0;
    for (const auto& r : c.remarks) missed += r.kind == "missed";
    std::ostringstream md;
    write_markdown_report(c, c.builds.front(), report_figures(c, c.builds.front()), {}, md);
    EXPECT_EQ(md.str().find("### Missed optimisations") != std::string::npos, missed > 0) << p;
    if (p.find("RTX-3090/fp32") != std::string::npos) EXPECT_EQ(missed, 0u);
    without += missed == 0;
  }
  EXPECT_GE(without, 1u);
}

// --- Done when: every corpus engine's report ------------------------------------------------

TEST(ReportDoneWhen, EveryCorpusEngineShowsLatencyUnitsLegendChartsAndRoofline) {
  TRTLENS_REQUIRE_SHARED();
  size_t engines = 0;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(test::shared_dir() + "/corpus/trex")) {
    std::string p = e.path().string();
    if (p.size() < 11 || p.compare(p.size() - 11, 11, ".graph.json") != 0) continue;
    std::string base = strip(p, "graph.json");
    std::string args;
    for (const char* part : {"graph.json", "profile.json", "timing.json", "profile.metadata.json"})
      args += " " + test::shell_quote(base + part);
    auto r = test::run_trtlens("report --format html -q" + args);
    ASSERT_EQ(r.exit_code, 0) << p << r.err;
    const std::string& h = r.out;
    // Latency: the trace's median, computed here, in the headline.
    std::ifstream tin(base + "timing.json");
    std::vector<double> lat;
    for (const auto& q : nlohmann::json::parse(tin)) lat.push_back(q["latencyMs"]);
    std::sort(lat.begin(), lat.end());
    size_t n = lat.size();
    double median = n % 2 ? lat[n / 2] : (lat[n / 2 - 1] + lat[n / 2]) / 2;
    size_t headline = h.find("id=\"headline\"");
    ASSERT_NE(headline, std::string::npos) << p;
    size_t latency = h.find("latency (median)", headline);
    ASSERT_NE(latency, std::string::npos) << p;
    EXPECT_NE(h.find(">" + human_ms(median) + "<", latency), std::string::npos) << p;
    EXPECT_NE(h.find(" MiB"), std::string::npos) << p;  // units
    size_t graph = h.find("id=\"graph\"");  // the graph with its legend node inside the SVG
    ASSERT_NE(graph, std::string::npos) << p;
    EXPECT_NE(h.find("id=\"legend\"", graph), std::string::npos) << p;
    size_t charts = h.find("id=\"charts\"");
    ASSERT_NE(charts, std::string::npos) << p;
    EXPECT_NE(h.find("<svg", charts), std::string::npos) << p;
    EXPECT_NE(h.find("<th>% of peak TFLOPS"), std::string::npos) << p;
    EXPECT_NE(h.find("<th>bound"), std::string::npos) << p;
    EXPECT_LT(h.size(), 25u << 20);
    ++engines;
  }
  EXPECT_EQ(engines, 10u);
}

TEST(ReportUnits, OneFormatterForBytesAndTimes) {
  EXPECT_EQ(human_bytes(51380224), "49.0 MiB");
  EXPECT_EQ(human_bytes(4608), "4.50 KiB");
  EXPECT_EQ(human_bytes(0), "0 B");
  EXPECT_EQ(human_bytes(std::nullopt), "?");
  EXPECT_EQ(human_ms(0.08806399999999999), "0.0881 ms");
  EXPECT_EQ(human_ms(2.5), "2.50 ms");
  EXPECT_EQ(human_ms(1520), "1.52 s");
  EXPECT_EQ(human_count(3776446464.0), "3.78 G");
}

}  // namespace
}  // namespace trtlens
