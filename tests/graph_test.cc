// Engine graphs at any size: bounded layouts that read top-down, collapsed overviews of large
// engines, legends, bitmap limits and the error cases of `trtlens dot`.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "render/dot.h"
#include "render/graph_view.h"
#include "render/svg.h"
#include "test_support.h"

namespace trtlens {
namespace {

using test::fixture;
using test::tensor;

using test::count;

Layer layer(const std::string& name, const std::string& type, std::vector<std::string> ins,
            const std::string& out, const std::string& dtype = "FP16") {
  Layer l;
  l.name = name;
  l.type = type;
  for (const auto& i : ins) l.inputs.push_back(tensor(i, dtype, {1, 64}));
  l.outputs.push_back(tensor(out, dtype, {1, 64}));
  return l;
}

// A decoder-only transformer as TensorRT lists it: the mask and the RoPE cos/sin tables are
// read by every block (the shape that made dot run for minutes), 15 layers a block.
Build transformer(size_t n_layers) {
  Build b;
  b.final = true;
  b.layers.push_back(layer("/model/mask/Expand", "PointWiseV2", {"attention_mask"}, "mask"));
  b.layers.push_back(layer("/model/rotary/Cos", "PointWiseV2", {"position_ids"}, "cos"));
  b.layers.push_back(layer("/model/rotary/Sin", "PointWiseV2", {"position_ids"}, "sin"));
  std::string h = "mask";
  for (int blk = 0; b.layers.size() < n_layers; ++blk) {
    std::string p = "/model/layers." + std::to_string(blk);
    auto add = [&](const std::string& op, const std::string& type, std::vector<std::string> ins) {
      std::string out = p + op;
      b.layers.push_back(layer(p + op + "/op", type, std::move(ins), out));
      return out;
    };
    std::string ln = add("/ln1", "Normalization", {h});
    std::string q = add("/attn/q", "CaskGemm", {ln}), k = add("/attn/k", "CaskGemm", {ln});
    std::string v = add("/attn/v", "CaskGemm", {ln});
    std::string qr = add("/attn/rope_q", "PointWiseV2", {q, "cos", "sin"});
    std::string kr = add("/attn/rope_k", "PointWiseV2", {k, "cos", "sin"});
    std::string a = add("/attn/fmha", "CaskFlashAttention", {qr, kr, v, "mask"});
    std::string o = add("/attn/o", "CaskGemm", {a});
    std::string r = add("/add", "PointWiseV2", {h, o});
    std::string ln2 = add("/ln2", "Normalization", {r});
    std::string up = add("/mlp/up", "CaskGemm", {ln2}), gate = add("/mlp/gate", "CaskGemm", {ln2});
    std::string act = add("/mlp/act", "PointWiseV2", {up, gate});
    h = add("/add_1", "PointWiseV2", {r, add("/mlp/down", "CaskGemm", {act})});
  }
  b.layers.resize(n_layers);
  b.graph = build_engine_graph(b.layers, b.bindings);
  return b;
}

// Node centres and edges of a laid-out graph, from Graphviz's "plain" output.
struct Plain {
  std::map<std::string, double> y;
  std::vector<std::pair<std::string, std::string>> edges;
};
Plain plain_layout(const DotGraph& g) {
  Plain p;
  std::istringstream in(graphviz_render(g.dot, "plain", g.engine));
  std::string kind;
  while (in >> kind) {
    if (kind == "node") {
      std::string name;
      double x, y;
      in >> name >> x >> y;
      p.y[name] = y;
    } else if (kind == "edge") {
      std::string a, b;
      in >> a >> b;
      p.edges.push_back({a, b});
    }
    std::string rest;
    std::getline(in, rest);
  }
  return p;
}

// Every drawn edge between layers points down the page: Graphviz's y grows upwards.
void expect_top_down(const Plain& p, size_t min_edges) {
  size_t checked = 0;
  for (const auto& [a, b] : p.edges) {
    if (a[0] != 'L' || b[0] != 'L') continue;
    ++checked;
    ASSERT_GT(p.y.at(a), p.y.at(b)) << a << " -> " << b;
  }
  EXPECT_GE(checked, min_edges);
}

// The graph keeps no names on its edges: each edge's tensor is read back from its producer's
// output, or from the graph input it leaves. Expected edges written out by hand.
TEST(GraphEdges, EachEdgeNamesTheTensorItCarries) {
  std::vector<Layer> layers;
  layers.push_back(layer("A", "CaskConvolution", {"images"}, "a"));
  layers.push_back(layer("B", "CaskConvolution", {"a"}, "b"));
  layers.push_back(layer("C", "ElementWise", {"a", "b"}, "logits"));
  const EngineGraph eg = build_engine_graph(layers, {});
  const EngineGraphImpl& g = eg.g();
  auto end_name = [&](EngineGraphImpl::vertex_descriptor v) {
    const GraphVertex& gv = g[v];
    if (gv.kind == VertexKind::Layer) return layers[size_t(gv.layer)].name;
    return std::string(gv.kind == VertexKind::Input ? "in:" : "out:") + eg.tensor_of(gv);
  };
  std::multiset<std::string> got;
  for (auto [e, end] = boost::edges(g); e != end; ++e)
    got.insert(end_name(boost::source(*e, g)) + " -" + eg.tensor_of(*e, layers) + "-> " +
               end_name(boost::target(*e, g)));
  const std::multiset<std::string> want = {"in:images -images-> A", "A -a-> B", "A -a-> C",
                                           "B -b-> C", "C -logits-> out:logits"};
  EXPECT_EQ(got, want);
}

TEST(GraphLayout, TransformerHubsAreStubsAndTheDrawingReadsTopDown) {
  Build b = transformer(300);
  DotGraph g = engine_dot(b);
  // 3 + 19 blocks of 15 + 12 layers of block 19 (up to its fmha): mask read by 20 fmha layers
  // and block 0's ln1 and add; cos and sin by 2 rope layers a block -> stubs.
  EXPECT_NE(g.dot.find("mask -> 22 readers"), std::string::npos);
  EXPECT_NE(g.dot.find("cos -> 40 readers"), std::string::npos);
  EXPECT_NE(g.dot.find("sin -> 40 readers"), std::string::npos);
  EXPECT_EQ(g.engine, "dot");
  EXPECT_NE(g.dot.find("nslimit="), std::string::npos);  // bounded at every size
  EXPECT_NE(g.dot.find("mclimit="), std::string::npos);
  Plain p = plain_layout(g);
  EXPECT_EQ(p.y.count("L299"), 1u);
  expect_top_down(p, 299);
}

TEST(GraphLayout, TwoThousandLayersAreDrawnOneByOneTopDown) {
  Build b = transformer(2000);
  DotGraph g = engine_dot(b);
  EXPECT_EQ(g.groups, 0u);
  const std::regex node_statement(R"(\n  L\d+ \[)");
  EXPECT_EQ(size_t(std::distance(std::sregex_iterator(g.dot.begin(), g.dot.end(), node_statement),
                                 std::sregex_iterator())),
            2000u);
  expect_top_down(plain_layout(g), 1999);
}

TEST(GraphLayout, LargeEnginesCollapseIntoScopeGroupsThatExpand) {
  Build b = transformer(5000);  // 3 + 333 blocks of 15 + 2 layers of block 333
  DotGraph g = engine_dot(b);
  // One box per block scope (/model/layers.N) plus the head's /model/mask and /model/rotary.
  EXPECT_EQ(g.groups, 2u + (5000 - 3 + 14) / 15);
  // Every layer is in exactly one box: the boxes' layer counts add up.
  size_t total = 0;
  const std::regex counts(R"(\\n(\d+) layers)");
  for (auto it = std::sregex_iterator(g.dot.begin(), g.dot.end(), counts);
       it != std::sregex_iterator(); ++it)
    total += std::stoul((*it)[1]);
  EXPECT_EQ(total, 5000u);
  EXPECT_NE(g.dot.find("label=\"/model/layers.7\\n15 layers\""), std::string::npos);
  EXPECT_EQ(g.layer_node_id[3 + 7 * 15], g.layer_node_id[3 + 7 * 15 + 14]);
  EXPECT_NE(g.layer_node_id[3 + 7 * 15], g.layer_node_id[3 + 8 * 15]);
  expect_top_down(plain_layout(g), 0);
  Plain p = plain_layout(g);
  for (const auto& [a, c] : p.edges)
    if (a[0] == 'G' && c[0] == 'G') ASSERT_GT(p.y.at(a), p.y.at(c)) << a << " -> " << c;

  DotOptions o;
  o.expand = {"^/model/layers\\.7$"};
  DotGraph open = engine_dot(b, o);
  EXPECT_EQ(open.groups, g.groups - 1);
  EXPECT_NE(open.dot.find("L108 [label=\"/model/layers.7/ln1/op"), std::string::npos);
  EXPECT_EQ(open.layer_node_id[108], "L108");
  o.expand = {"nothing-like-this"};
  EXPECT_THROW(engine_dot(b, o), std::invalid_argument);
}

TEST(GraphLayout, UnscopedNamesCollapseIntoRunsOfLayers) {
  Build b;
  b.final = true;
  for (int i = 0; i < 3000; ++i)
    b.layers.push_back(layer("conv" + std::to_string(i), "CaskConvolution",
                             {i ? "t" + std::to_string(i - 1) : "x"}, "t" + std::to_string(i)));
  b.graph = build_engine_graph(b.layers, b.bindings);
  DotOptions o;
  o.max_groups = 100;
  DotGraph g = engine_dot(b, o);
  EXPECT_LE(g.groups, 100u);
  EXPECT_GE(g.groups, 50u);
  EXPECT_NE(g.dot.find("label=\"layers 0-"), std::string::npos);
}

TEST(GraphLegend, ColoursAndStylesAreExplained) {
  Build b = transformer(40);
  b.layers[5].outputs[0].dtype = "INT8";
  b.layers[7].role = LayerRole::Reformat;
  b.layers[8].role = LayerRole::Elided;
  DotOptions o;
  o.color_by = "precision";
  o.stub_fanout = 4;  // the mask and cos/sin have 5 and 6 readers here
  std::string dot = engine_dot(b, o).dot;
  size_t at = dot.find("legend [");
  ASSERT_NE(at, std::string::npos);
  std::string legend = dot.substr(at, dot.find('\n', at) - at);
  // Outputs in this engine: FP16 everywhere but one INT8.
  EXPECT_NE(legend.find(">FP16<"), std::string::npos);
  EXPECT_NE(legend.find(">INT8<"), std::string::npos);
  EXPECT_EQ(legend.find(">FP32<"), std::string::npos);
  EXPECT_NE(legend.find("reformat: dashed"), std::string::npos);
  EXPECT_NE(legend.find("elided"), std::string::npos);
  EXPECT_NE(legend.find("stub"), std::string::npos);
  size_t l7 = dot.find("\n  L7 [");
  EXPECT_NE(dot.substr(l7, dot.find('\n', l7 + 1) - l7).find("dashed"), std::string::npos);
  size_t l8 = dot.find("\n  L8 [");
  EXPECT_NE(dot.substr(l8, dot.find('\n', l8 + 1) - l8).find("dotted"), std::string::npos);

  // Roles unknown: no reformat/elided styles, whatever the names say.
  Build plain = transformer(40);
  plain.layers[7].name = "Reformatting CopyNode for Input Tensor 0 to x";
  plain.layers[7].type = "Reformat";
  std::string d2 = engine_dot(plain).dot;
  EXPECT_EQ(d2.find("reformat: dashed"), std::string::npos);

  // Time: the scale runs from 0 to the slowest layer (2 ms), with a "no data" swatch.
  b.layers[10].time.average_ms = 2.0;
  b.layers[11].time.average_ms = 0.5;
  o.color_by = "time";
  std::string t = engine_dot(b, o).dot;
  EXPECT_NE(t.find("0 to 2 ms"), std::string::npos);
  EXPECT_NE(t.find(">no data<"), std::string::npos);
  EXPECT_NE(t.find("bgcolor=\"#ff3737\""), std::string::npos);  // 255 - 200: the maximum
  // The legend survives Graphviz: it is in the SVG.
  std::string svg = graphviz_render(t, "svg");
  EXPECT_NE(svg.find("id=\"legend\""), std::string::npos);
  EXPECT_NE(svg.find("0 to 2 ms"), std::string::npos);
  o.legend = false;
  EXPECT_EQ(engine_dot(b, o).dot.find("legend ["), std::string::npos);
}

TEST(GraphLegend, TypeColoursAreDistinctForTheCommonTypes) {
  Build b = transformer(300);
  std::string dot = engine_dot(b).dot;
  std::map<std::string, std::string> colour_of_type;
  const std::regex node(
      R"re(\n  L\d+ \[label="[^"]*\\n(\w+) FP16[^"]*", tooltip="[^"]*", fillcolor="(#[0-9a-f]+)")re");
  for (auto it = std::sregex_iterator(dot.begin(), dot.end(), node); it != std::sregex_iterator();
       ++it) {
    auto [at, fresh] = colour_of_type.emplace((*it)[1], (*it)[2]);
    EXPECT_EQ(at->second, (*it)[2]) << "two colours for " << (*it)[1];
  }
  // Normalization, CaskGemm, PointWiseV2, CaskFlashAttention: four types, four colours.
  ASSERT_EQ(colour_of_type.size(), 4u);
  std::set<std::string> colours;
  for (const auto& [type, colour] : colour_of_type) colours.insert(colour);
  EXPECT_EQ(colours.size(), 4u);
}

TEST(GraphView, ReportFragmentHasTheSvgSearchAndItsScript) {
  Build b = transformer(120);
  std::vector<std::string> notes;
  std::string html = graph_view_html(b, {}, "graph", notes);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("id=\"graph_L10\""), std::string::npos);
  EXPECT_NE(html.find("class=\"gv-q\""), std::string::npos);
  EXPECT_EQ(count(html, "</script>"), 1u);
  EXPECT_EQ(html.find("http"), html.find("http://www.w3.org"));  // only SVG's namespaces
  EXPECT_FALSE(notes.empty());                                   // the stubs
  DotOptions bad;
  bad.focus = "no-such-layer";
  std::string none = graph_view_html(b, bad, "graph", notes);
  EXPECT_NE(none.find("graph not drawn: --focus"), std::string::npos);
}

// ---- the command ------------------------------------------------------------------------------

TEST(GraphCli, ErrorCasesExitTwoWithAMessage) {
  std::string dir = ::testing::TempDir() + "/graph_cli";
  std::filesystem::create_directories(dir);
  std::string in = test::shell_quote(fixture("seed000_int8.log"));
  auto jpg = test::run_trtlens("dot " + in + " -o " + test::shell_quote(dir + "/x.jpg"));
  EXPECT_EQ(jpg.exit_code, 2);
  EXPECT_NE(jpg.err.find("x.jpg: unknown output extension '.jpg'"), std::string::npos) << jpg.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/x.jpg"));
  auto focus = test::run_trtlens("dot " + in + " --focus NoSuchLayer -o " +
                                 test::shell_quote(dir + "/f.png"));
  EXPECT_EQ(focus.exit_code, 2);
  EXPECT_NE(focus.err.find("--focus 'NoSuchLayer' matches no layer"), std::string::npos)
      << focus.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/f.png"));
  auto expand =
      test::run_trtlens("dot " + in + " --expand x -o " + test::shell_quote(dir + "/e.svg"));
  EXPECT_EQ(expand.exit_code, 0) << expand.err;  // nothing collapsed: said, not an error
  EXPECT_NE(expand.err.find("--expand: nothing is collapsed"), std::string::npos);
  // PNG to a terminal: `script` gives the command a pseudo-terminal as stdout.
  if (std::system("command -v script >/dev/null 2>&1") == 0) {
    std::string cmd = std::string(TRTLENS_BINARY) + " dot " + in + " --format png";
    auto tty = test::run_trtlens("dot " + in + " --format png -o -");  // a pipe: allowed
    EXPECT_EQ(tty.exit_code, 0);
    EXPECT_EQ(tty.out.substr(0, 4), "\x89PNG");
    std::string log = dir + "/tty.txt";
    int rc = std::system(("script -qec " + test::shell_quote(cmd) + " " + test::shell_quote(log) +
                          " >/dev/null 2>&1")
                             .c_str());
    EXPECT_EQ(WEXITSTATUS(rc), 2);
    std::string seen = test::read_file(log);
    EXPECT_NE(seen.find("not writing it to a terminal"), std::string::npos) << seen;
    EXPECT_EQ(seen.find("PNG\r\n"), std::string::npos);
  }
}

uint32_t png_width(const std::string& png) {  // IHDR: big-endian width at byte 16
  const auto* p = reinterpret_cast<const unsigned char*>(png.data());
  return png.size() < 24 ? 0 : (uint32_t(p[16]) << 24 | p[17] << 16 | p[18] << 8 | p[19]);
}

TEST(GraphCli, PngHonoursDpiAndRefusesSlivers) {
  std::string dir = ::testing::TempDir() + "/graph_png";
  std::filesystem::create_directories(dir);
  std::string in = test::shell_quote(fixture("seed000_int8.log"));
  ASSERT_EQ(test::run_trtlens("dot " + in + " --dpi 72 -o " + dir + "/a.png").exit_code, 0);
  auto d = test::run_trtlens("dot " + in + " -o " + dir + "/b.png");  // default 144 dpi
  ASSERT_EQ(d.exit_code, 0) << d.err;
  uint32_t w72 = png_width(test::read_file(dir + "/a.png"));
  uint32_t w144 = png_width(test::read_file(dir + "/b.png"));
  ASSERT_GT(w72, 100u);
  EXPECT_NEAR(double(w144), 2.0 * w72, 3.0);

  // A 3000-layer chain drawn one by one is about 3000 x 52 pt tall: far over Cairo's 32767 px.
  std::string json = dir + "/chain.json";
  {
    std::ofstream f(json);
    f << "{\"Layers\": [";
    for (int i = 0; i < 3000; ++i)
      f << (i ? "," : "") << "{\"Name\": \"conv" << i << "\", \"LayerType\": \"CaskConvolution\", "
        << "\"Inputs\": [{\"Name\": \"t" << i << "\"}], \"Outputs\": [{\"Name\": \"t" << i + 1
        << "\"}]}";
    f << "]}";
  }
  auto big = test::run_trtlens("dot " + json + " --collapse 100000 -q -o " + dir + "/big.png");
  EXPECT_EQ(big.exit_code, 2);
  EXPECT_NE(big.err.find("the PNG would be"), std::string::npos) << big.err;
  EXPECT_NE(big.err.find("--focus"), std::string::npos);
  EXPECT_EQ(big.err.find("(null)"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir + "/big.png"));
  // The same engine collapsed (the default: 200 boxes of 15 layers) fits at 72 dpi.
  auto overview = test::run_trtlens("dot " + json + " -q --dpi 72 -o " + dir + "/overview.png");
  EXPECT_EQ(overview.exit_code, 0) << overview.err;
}

}  // namespace
}  // namespace trtlens
