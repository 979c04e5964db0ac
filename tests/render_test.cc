// DOT/SVG graphs, the HTML and Markdown reports: escaping of hostile names, sections that
// appear only with their data, layout budget, and every seed/corpus input drawn by Graphviz.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "analysis/classify.h"
#include "analysis/report.h"
#include "ingest/load.h"
#include "io/input.h"
#include "render/dot.h"
#include "render/html.h"
#include "render/markdown_report.h"
#include "render/svg.h"
#include "test_support.h"

namespace trtlens {
namespace {

using test::fixture;
using test::tensor;

const std::string kQuote = "\"]; x [label=\"pwn";
const std::string kImg = "<img src=x onerror=alert(1)>";
const std::string kScript = "</script><script>alert(2)</script>";

using test::count;

Layer layer(const std::string& name, const std::string& type, std::vector<Tensor> in,
            std::vector<Tensor> out) {
  Layer l;
  l.name = name;
  l.type = type;
  l.inputs = std::move(in);
  l.outputs = std::move(out);
  return l;
}

// A hand-made capture: a 4-layer chain whose names are hostile.
Capture hostile_capture() {
  Capture c;
  Build b;
  b.final = true;
  b.trt_version = "8.6.1";
  b.layers.push_back(layer(kQuote, "CaskConvolution", {tensor("in" + kImg, "FP32", {1, 3, 8, 8})},
                           {tensor("t0</script>", "FP16", {1, 8, 8, 8})}));
  b.layers.push_back(layer(kImg, "Reformat", {tensor("t0</script>", "FP16", {1, 8, 8, 8})},
                           {tensor("t1", "INT8", {1, 8, 8, 8})}));
  b.layers.push_back(layer(kScript, "PointWiseV2", {tensor("t1", "INT8", {1, 8, 8, 8})},
                           {tensor("t2", "INT8", {1, 8, 8, 8})}));
  b.layers.push_back(layer("plain", "CaskConvolution", {tensor("t2", "INT8", {1, 8, 8, 8})},
                           {tensor("out", "FP32", {1, 8})}));
  b.graph = build_engine_graph(b.layers, b.bindings);
  c.builds.push_back(std::move(b));
  return c;
}

std::string html_of(const Capture& c, ReportOptions& o) {
  std::ostringstream os;
  write_html_report(c, c.builds.front(), report_figures(c, c.builds.front()), o, os);
  return os.str();
}

std::string md_of(const Capture& c) {
  std::ostringstream os;
  write_markdown_report(c, c.builds.front(), report_figures(c, c.builds.front()), {}, os);
  return os.str();
}

// ---- escaping ---------------------------------------------------------------------------------

TEST(RenderEscape, DotKeepsOneNodePerLayerWhateverTheNames) {
  Capture c = hostile_capture();
  DotGraph g = engine_dot(c.builds.front());
  std::string err;
  ASSERT_TRUE(graphviz_accepts(g.dot, &err)) << err;
  // 4 layers + 1 graph input + 1 graph output + the legend; an injected "x" node would make it 8.
  std::string svg = graphviz_render(g.dot, "svg");
  EXPECT_EQ(count(svg, "class=\"node\""), 7u);
  EXPECT_EQ(count(svg, "class=\"edge\""), 5u);
  EXPECT_EQ(svg.find("<img"), std::string::npos);
  EXPECT_EQ(svg.find("</script>"), std::string::npos);
  EXPECT_NE(svg.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_NE(svg.find("&quot;]; x [label=&quot;pwn"), std::string::npos);
  // The name comes out verbatim as the node's text and the first line of its tooltip.
  EXPECT_NE(svg.find(">&quot;]; x [label=&quot;pwn</text>"), std::string::npos);
  EXPECT_NE(svg.find("xlink:title=\"&quot;]; x [label=&quot;pwn&#10;CaskConvolution&#10;"),
            std::string::npos);
}

TEST(RenderEscape, DotEscapesBackslashesAndAmpersands) {
  Capture c;
  Build b;
  b.final = true;
  b.layers.push_back(layer("a\\N&lt;b", "Shuffle", {}, {tensor("t", "FP32", {1})}));
  b.graph = build_engine_graph(b.layers, b.bindings);
  c.builds.push_back(std::move(b));
  DotGraph g = engine_dot(c.builds.front());
  // \N would be Graphviz's "node name" escape; &lt; an entity Graphviz would decode.
  EXPECT_NE(g.dot.find("a\\\\N&amp;lt;b"), std::string::npos) << g.dot;
  std::string svg = graphviz_render(g.dot, "svg");
  EXPECT_NE(svg.find(">a\\N&amp;lt;b<"), std::string::npos) << svg;
}

TEST(RenderEscape, HtmlHasOnlyItsOwnScript) {
  ReportOptions o;
  std::string html = html_of(hostile_capture(), o);
  // The report's script and the graph's (pan, zoom, search): no third from a name.
  EXPECT_EQ(count(html, "<script"), 2u);
  EXPECT_EQ(count(html, "</script>"), 2u);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_NE(html.find("&quot;]; x [label=&quot;pwn"), std::string::npos);
  EXPECT_NE(html.find("&lt;/script&gt;&lt;script&gt;alert(2)"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  // Nothing fetched: no external sources or links (the SVG's xmlns URIs are names, not fetches).
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
}

TEST(RenderEscape, MarkdownEscapesTagsAndTableSyntax) {
  std::string md = md_of(hostile_capture());
  EXPECT_EQ(md.find("<img"), std::string::npos);
  EXPECT_EQ(md.find("</script>"), std::string::npos);
  EXPECT_NE(md.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_NE(md.find("\"\\]; x \\[label=\"pwn"), std::string::npos) << md;
}

TEST(RenderEscape, BinaryOutputsOfTheInjectionFixture) {
  std::string in = test::shell_quote(fixture("render/injection.json"));
  auto csv = test::run_trtlens("layers " + in + " --format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  // RFC 4180: the field is quoted and its quotes doubled.
  EXPECT_NE(csv.out.find("\"\"\"]; x [label=\"\"pwn\""), std::string::npos) << csv.out;

  auto dot = test::run_trtlens("dot " + in);
  ASSERT_EQ(dot.exit_code, 0) << dot.err;
  EXPECT_TRUE(graphviz_accepts(dot.out));
  EXPECT_NE(dot.out.find("label=\"\\\"]; x [label=\\\"pwn"), std::string::npos);

  auto svg = test::run_trtlens("dot " + in + " --format svg");
  ASSERT_EQ(svg.exit_code, 0) << svg.err;
  EXPECT_EQ(count(svg.out, "class=\"node\""), 6u);  // 3 layers, 1 input, 1 output, legend
  EXPECT_EQ(svg.out.find("<img"), std::string::npos);

  auto html = test::run_trtlens("report " + in);
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_EQ(count(html.out, "</script>"), 2u);  // the report's and the graph's
  EXPECT_EQ(html.out.find("<img"), std::string::npos);

  auto md = test::run_trtlens("report " + in + " --format md");
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_EQ(md.out.find("<img"), std::string::npos);
  EXPECT_EQ(md.out.find("</script>"), std::string::npos);
}

// ---- the graph --------------------------------------------------------------------------------

TEST(RenderDot, SeedGraphShapeAndTooltips) {
  Capture c = test::load({fixture("seed000_int8.log")});
  classify_layers(c);  // the dashed style is the role's
  const Build* b = c.final_build();
  ASSERT_NE(b, nullptr);
  DotGraph g = engine_dot(*b);
  // grep -c on the seed's layer block: one node statement per layer.
  const std::regex node_statement(R"(\n  L\d+ \[)");
  size_t layer_nodes = size_t(std::distance(
      std::sregex_iterator(g.dot.begin(), g.dot.end(), node_statement), std::sregex_iterator()));
  EXPECT_EQ(layer_nodes, b->layers.size());
  // Tensor 395 (Conv_0 + PWN(Clip_3) -> Conv_4 + PWN(Clip_7)) is Int8 1x32x256x384 in the log.
  EXPECT_NE(g.dot.find("L1 -> L2 [tooltip=\"395\\nINT8 1x32x256x384\"]"), std::string::npos);
  // Edge labels are off unless asked.
  EXPECT_EQ(g.dot.find("-> L2 [tooltip=\"395\\nINT8 1x32x256x384\", label="), std::string::npos);
  DotOptions o;
  o.edge_labels = true;
  EXPECT_NE(
      engine_dot(*b, o).dot.find("L1 -> L2 [tooltip=\"395\\nINT8 1x32x256x384\", label=\"395"),
      std::string::npos);
  // The first layer of the seed is "Reformatting CopyNode for Input Tensor 0 ...": dashed once
  // the analysis gives it the reformat role (the renderer reads the role, not the name).
  EXPECT_NE(g.dot.find("L0 [label=\"Reformatting CopyNode"), std::string::npos);
  Build with_role = *b;
  with_role.layers[0].role = LayerRole::Reformat;
  std::string d = engine_dot(with_role).dot;
  size_t l0 = d.find("L0 [");
  EXPECT_NE(d.substr(l0, d.find('\n', l0) - l0).find("dashed"), std::string::npos);
  EXPECT_TRUE(graphviz_accepts(g.dot));
}

TEST(RenderDot, FocusDrawsTheNeighbourhood) {
  Capture c = test::load({fixture("seed000_int8.log")});
  DotOptions o;
  o.focus = "^Conv_8$";
  o.radius = 1;
  DotGraph g = engine_dot(*c.final_build(), o);
  // In the seed, Conv_8 reads 400 (from Conv_4 + PWN(Clip_7)) and writes 666 (read by Conv_9 +...).
  EXPECT_EQ(g.nodes, 3u);
  EXPECT_NE(g.dot.find("Conv_4 + PWN(Clip_7)"), std::string::npos);
  EXPECT_NE(g.dot.find("Conv_9 + PWN(Clip_12)"), std::string::npos);
  EXPECT_EQ(g.dot.find("Conv_13"), std::string::npos);
  ASSERT_FALSE(g.notes.empty());
  o.focus = "(";
  EXPECT_THROW(engine_dot(*c.final_build(), o), std::invalid_argument);
}

TEST(RenderDot, ColourByTimeMemoryAndDiffUseTheData) {
  Capture c = hostile_capture();
  Build& b = c.builds.front();
  DotOptions o;
  o.color_by = "time";
  // No times: a note, and every layer the same colour.
  DotGraph none = engine_dot(b, o);
  EXPECT_FALSE(none.notes.empty());
  b.layers[2].time.average_ms = 2.0;
  b.layers[3].time.average_ms = 0.5;
  b.layers[3].time.percentage = 20.0;
  DotGraph g = engine_dot(b, o);
  // White -> red: the slowest layer is the reddest (#ff3737 = 255 - 200), a quarter of it lighter.
  EXPECT_NE(g.dot.find("fillcolor=\"#ff3737\""), std::string::npos) << g.dot;
  EXPECT_NE(g.dot.find("0.500 ms (20.0%)"), std::string::npos);
  EXPECT_NE(g.dot.find("fillcolor=\"#ffcdcd\""), std::string::npos);  // 255 - 0.25*200 = 205

  b.layers[1].memory.output_bytes = 512;
  b.layers[1].memory.weight_bytes = 512;
  b.layers[1].memory.footprint_floor_bytes = 1024;  // the input's bytes unknown: a lower bound
  o.color_by = "memory";
  EXPECT_NE(engine_dot(b, o).dot.find("footprint ≥ 1.0 KiB"), std::string::npos);

  o.color_by = "diff";
  o.diff_status = {{"plain", "added"}};
  std::string d = engine_dot(b, o).dot;
  size_t at = d.find("L3 [");
  EXPECT_NE(d.substr(at, d.find('\n', at) - at).find("#b2df8a"), std::string::npos);
  o.color_by = "nope";
  EXPECT_THROW(engine_dot(b, o), std::invalid_argument);
}

TEST(RenderDot, OnnxTooltipsExpansionAndScopeClusters) {
  Capture c = hostile_capture();
  Build& b = c.builds.front();
  b.layers[0].onnx_nodes = {"/model/backbone/conv1/Conv"};
  b.layers[1].onnx_nodes = {"/model/backbone/conv2/Conv", "/model/backbone/conv2/Relu"};
  b.layers[3].onnx_nodes = {"/model/head/fc/Gemm"};
  EXPECT_EQ(layer_scope(b.layers[1]), "/model/backbone/conv2");
  DotGraph plain = engine_dot(b);
  EXPECT_NE(plain.dot.find("ONNX:\\n  /model/backbone/conv2/Conv\\n  /model/backbone/conv2/Relu"),
            std::string::npos);
  EXPECT_EQ(plain.dot.find("subgraph cluster_"), std::string::npos);
  DotOptions o;
  o.cluster_by_scope = true;
  o.expand_onnx = true;
  DotGraph g = engine_dot(b, o);
  // model, backbone, conv1, conv2, head, fc.
  EXPECT_EQ(count(g.dot, "subgraph cluster_"), 6u);
  EXPECT_NE(g.dot.find("label=\"/model/backbone/conv2\""), std::string::npos);
  EXPECT_NE(g.dot.find("ONNX (2):"), std::string::npos);
  EXPECT_TRUE(graphviz_accepts(g.dot));
  EXPECT_NE(graphviz_render(g.dot, "svg").find("class=\"cluster\""), std::string::npos);
}

TEST(RenderDot, BudgetStubsFanOutAndDropsEdgeLabels) {
  // A 600-layer chain; layer 0's output "mask" is also read by every 20th layer (30 readers).
  Capture c;
  Build b;
  b.final = true;
  b.layers.push_back(layer("L0", "Shuffle", {tensor("x", "FP32", {1})},
                           {tensor("mask", "FP32", {1}), tensor("c0", "FP32", {1})}));
  for (int i = 1; i < 600; ++i) {
    std::vector<Tensor> in = {tensor("c" + std::to_string(i - 1), "FP32", {1})};
    if (i % 20 == 0) in.push_back(tensor("mask", "FP32", {1}));
    b.layers.push_back(layer("L" + std::to_string(i), "PointWise", in,
                             {tensor("c" + std::to_string(i), "FP32", {1})}));
  }
  b.graph = build_engine_graph(b.layers, b.bindings);
  DotOptions o;
  o.edge_labels = true;
  DotGraph g = engine_dot(b, o);
  EXPECT_NE(g.dot.find("mask -> 29 readers"), std::string::npos);  // i = 20, 40, ..., 580
  EXPECT_EQ(g.dot.find("label=\"c1"), std::string::npos);          // labels dropped
  EXPECT_GE(g.notes.size(), 2u);
  o.budget_nodes = 10000;  // under budget and stubs only above 100 readers: edges and labels
  o.stub_fanout = 100;
  DotGraph full = engine_dot(b, o);
  EXPECT_EQ(full.dot.find("readers"), std::string::npos);
  EXPECT_NE(full.dot.find("label=\"c1"), std::string::npos);
}

// ---- reports: sections appear with their data -------------------------------------------------

TEST(RenderReport, SectionsAppearOnlyWithData) {
  Capture c = hostile_capture();
  ReportOptions o;
  std::string bare = html_of(c, o);
  for (const char* id :
       {"id=\"findings\"", "id=\"memory\"", "id=\"time\"", "id=\"onnx\"", "id=\"environment\""})
    EXPECT_EQ(bare.find(id), std::string::npos) << id;
  std::string bare_md = md_of(c);
  EXPECT_EQ(bare_md.find("Top layers by time"), std::string::npos);
  EXPECT_EQ(bare_md.find("### Findings"), std::string::npos);

  Build& b = c.builds.front();
  b.layers[3].time.average_ms = 0.75;
  b.layers[1].time.average_ms = 0.25;
  b.layers[2].memory.output_bytes = 4096;
  b.layers[2].memory.footprint_floor_bytes = 4096;  // inputs and weights unknown
  b.layers[0].onnx_nodes = {"/m/Conv_0"};
  Finding f;
  f.id = "reformat-cost";
  f.severity = Severity::Warning;
  f.message = "reformat " + kImg;
  c.findings.push_back(f);
  RunInfo r;
  r.trt_version = "8.6.1";
  r.command_line = "trtexec --onnx=m.onnx --int8 `x`";
  r.device = {{"Selected Device", "Orin"}};
  c.runs.push_back(r);

  std::string full = html_of(c, o);
  for (const char* id :
       {"id=\"findings\"", "id=\"memory\"", "id=\"time\"", "id=\"onnx\"", "id=\"environment\""})
    EXPECT_NE(full.find(id), std::string::npos) << id;
  // Time table: slowest first ("plain" 0.75 ms before the <img> layer's 0.25 ms).
  size_t time_at = full.find("id=\"time\"");
  EXPECT_LT(full.find("<td>plain</td>", time_at), full.find("<td>&lt;img", time_at));
  EXPECT_NE(full.find("data-v=\"0.75\""), std::string::npos);
  EXPECT_NE(full.find("trtexec --onnx=m.onnx --int8"), std::string::npos);

  std::string md = md_of(c);
  EXPECT_NE(md.find("### Top layers by time"), std::string::npos);
  EXPECT_LT(md.find("| plain |"),
            md.find("&lt;img src=x onerror=alert(1)&gt; | Reformat | 0.25 ms"));
  EXPECT_NE(md.find("### Top layers by footprint"), std::string::npos);
  EXPECT_NE(md.find("| ≥ 4.00 KiB |"), std::string::npos);  // 4096 bytes, one formatter
  EXPECT_NE(md.find("### Findings"), std::string::npos);
  EXPECT_NE(md.find("- TensorRT: 8.6.1"), std::string::npos);
  EXPECT_NE(md.find("- command line: `` trtexec --onnx=m.onnx --int8 `x` ``"), std::string::npos);
  EXPECT_NE(md.find("<details><summary>All 4 layers</summary>"), std::string::npos);
}

TEST(RenderReport, LargeTablesAreCappedAndSaySo) {
  Capture c = hostile_capture();
  ReportOptions o;
  o.max_rows = 2;
  std::string html = html_of(c, o);
  EXPECT_NE(html.find("2 of 4 rows of table &#39;layers&#39; left out"), std::string::npos);
  ASSERT_FALSE(o.notes.empty());
  o = {};
  o.graph_max_nodes = 3;
  EXPECT_NE(html_of(c, o).find("graph of 6 nodes not drawn"), std::string::npos);
}

TEST(RenderReport, DiffPageShowsBothGraphsAndChanges) {
  Capture a = hostile_capture(), b = hostile_capture();
  std::vector<DiffRow> rows = {{"changed", "plain", "plain", "tactic " + kImg, "0x1", "0x2"},
                               {"removed", kScript, "", "layer gone", "", ""}};
  ReportOptions o;
  std::ostringstream os;
  write_html_diff(a, a.builds.front(), b, b.builds.front(), rows, o, os, "before", "after");
  std::string html = os.str();
  EXPECT_EQ(count(html, "<svg"), 2u);
  EXPECT_NE(html.find("id=\"changes\""), std::string::npos);
  EXPECT_NE(html.find("Changes (2)"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(count(html, "</script>"), 3u);  // the page's and one per graph
}

// ---- every real input draws -------------------------------------------------------------------

TEST(RenderCorpus, EverySeedAndCorpusInputRendersToDotAndSvg) {
  TRTLENS_REQUIRE_SHARED();
  namespace fs = std::filesystem;
  std::vector<std::string> paths;
  for (const char* sub : {"seeds", "corpus"})
    for (const auto& e : fs::recursive_directory_iterator(test::shared_dir() + "/" + sub))
      if (e.is_regular_file()) paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  size_t drawn = 0, graph_json = 0;
  for (const auto& p : paths) {
    Capture c;
    try {
      c = test::load({p});
    } catch (const std::exception&) {
      continue;  // not an input kind of this build (README, profile/timing JSON on this branch)
    }
    const Build* b = c.final_build();
    if (!b) continue;
    SCOPED_TRACE(p);
    DotGraph g = engine_dot(*b);
    std::string err;
    EXPECT_TRUE(graphviz_accepts(g.dot, &err)) << err;
    std::string svg = graphviz_render(g.dot, "svg", g.engine);
    EXPECT_NE(svg.find("<svg"), std::string::npos);
    EXPECT_EQ(count(svg, "class=\"node\""), g.nodes + count(g.dot, " [shape=note") +
                                                count(g.dot, " [shape=rarrow") + 1);  // legend
    ++drawn;
    if (p.ends_with(".graph.json")) ++graph_json;
  }
  // Seeds with a layer listing (grep "Layer Information"); one .graph.json per TREx engine.
  size_t seeds = 0, graphs = 0;
  for (const auto& p : paths) {
    if (p.find("/seeds/") != std::string::npos &&
        test::read_file(p).find("Layer Information") != std::string::npos)
      ++seeds;
    if (p.ends_with(".graph.json")) ++graphs;
  }
  EXPECT_EQ(graph_json, graphs);
  EXPECT_GE(drawn, seeds + graphs);
}

}  // namespace
}  // namespace trtlens

namespace trtlens {
namespace {

TEST(RenderCli, DotWritesPngAndSvgByExtensionAndRejectsBadRegex) {
  std::string dir = ::testing::TempDir();
  std::string in = test::shell_quote(fixture("seed000_int8.log"));
  auto png = test::run_trtlens("dot " + in + " -o " + test::shell_quote(dir + "/g.png"));
  ASSERT_EQ(png.exit_code, 0) << png.err;
  EXPECT_EQ(test::read_file(dir + "/g.png").substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  auto svg = test::run_trtlens("dot " + in + " -o " + test::shell_quote(dir + "/g.svg"));
  ASSERT_EQ(svg.exit_code, 0) << svg.err;
  // 48 layers (grep -c '^Layer(' in the fixture) + 1 input + 1 output + the legend.
  EXPECT_EQ(count(test::read_file(dir + "/g.svg"), "class=\"node\""), 51u);
  auto bad = test::run_trtlens("dot " + in + " --focus '('");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--focus"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace trtlens
