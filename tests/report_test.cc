// The report's figures: TREx's convolution report card reproduced on the corpus (expected values
// from TREx's published formulas applied by independent code here, and one worked by hand), the
// headline from a ResNet layer JSON + profile + exportTimes trace, and the shared units.
#include "analysis/report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "analysis/analyze.h"
#include "render/markdown_report.h"
#include "render/units.h"
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
      double N = i["Dimensions"][0], C = i["Dimensions"][1], H = i["Dimensions"][2],
             W = i["Dimensions"][3];
      double K = o["Dimensions"][1], P = o["Dimensions"][2], Q = o["Dimensions"][3];
      double R = l["Kernel"][0], S = l["Kernel"][1], G = l.value("Groups", 1);
      double in_size = trex_elem_size(i.value("Format/Datatype", ""));
      double out_size = trex_elem_size(o.value("Format/Datatype", ""));
      double bytes =
          N * C * H * W * in_size + K * C * R * S / G * in_size + N * K * P * Q * out_size;
      double macs = N * K * P * Q * C * R * S / G;
      const ConvCard* cc = card_of(b, f, l["Name"]);
      ASSERT_NE(cc, nullptr) << p << ": " << l["Name"];
      EXPECT_DOUBLE_EQ(cc->macs, macs) << l["Name"];
      EXPECT_DOUBLE_EQ(cc->bytes, bytes) << l["Name"];
      EXPECT_NEAR(cc->intensity, bytes > 0 ? macs / bytes : 0, 1e-9) << l["Name"];
      EXPECT_EQ(cc->gemm_m, int64_t(N * P * Q));
      EXPECT_EQ(cc->gemm_n, int64_t(K));
      EXPECT_EQ(cc->gemm_k, int64_t(C * R * S));
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

TEST(ReportCard, AchievedAgainstTheDevicesPeakBandwidth) {
  // A 3x3 FP16 convolution [1,64,56,56] -> [1,64,56,56] profiled at 0.01 ms, on the device of
  // the RTX 3060 seed (trtexec: 7.001 GHz memory clock, 192-bit bus).
  Capture c;
  Build b;
  b.final = true;
  Layer l;
  l.name = "conv";
  l.type = "CaskConvolution";
  l.inputs = {test::tensor("x", "FP16", {1, 64, 56, 56})};
  l.outputs = {test::tensor("y", "FP16", {1, 64, 56, 56})};
  l.attributes = {{"ParameterType", "Convolution"}, {"Kernel", {3, 3}}, {"Groups", 1}};
  l.time.average_ms = 0.01;
  b.layers.push_back(l);
  c.builds.push_back(b);
  RunInfo r;
  r.device = {{"Application Memory Clock Rate", "7.001 GHz"},
              {"Memory Bus Width", "192 bits (ECC disabled)"}};
  c.runs.push_back(r);
  ReportFigures f = report_figures(c, c.builds.front());
  ASSERT_TRUE(f.device_peak_gbps);
  EXPECT_NEAR(*f.device_peak_gbps, 2 * 7.001 * 192 / 8, 1e-9);  // 336.048 GB/s
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
