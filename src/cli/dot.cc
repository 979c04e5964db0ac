#include "render/dot.h"

#include <iostream>

#include "cli/common.h"
#include "render/escape.h"
#include "render/svg.h"

namespace trtlens {
namespace {

struct DotCliOptions {
  CommonOptions common;
  DotOptions dot;
};

// The -o extension decides the format; --format covers stdout.
std::string output_format(const CommonOptions& o) {
  const std::string& p = o.output;
  for (const char* ext : {"dot", "gv", "svg", "png"}) {
    std::string suffix = std::string(".") + ext;
    if (p.size() > suffix.size() && p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0)
      return ext == std::string("gv") ? "dot" : ext;
  }
  return o.format;
}

}  // namespace

void register_dot(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds) {
  auto opts = std::make_shared<DotCliOptions>();
  CLI::App* cmd = app.add_subcommand("dot", "The engine graph as DOT, SVG or PNG (Graphviz)");
  add_common_options(cmd, opts->common, {"dot", "svg", "png"});
  DotOptions& d = opts->dot;
  cmd->add_option("--color-by", d.color_by, "Node colour: type, precision, time, memory, diff")
      ->check(CLI::IsMember({"type", "precision", "time", "memory", "diff"}))
      ->default_val("type");
  cmd->add_flag("--edge-labels", d.edge_labels, "Tensor name, dtype and dims on edges (slower)");
  cmd->add_flag("--expand-onnx", d.expand_onnx, "List each layer's ONNX nodes in its box");
  cmd->add_flag("--cluster-by-scope", d.cluster_by_scope,
                "Group layers in boxes by ONNX scope (/model/backbone/...)");
  cmd->add_option("--focus", d.focus, "Draw only layers matching this regex (RE2) and neighbours");
  cmd->add_option("--radius", d.radius, "Neighbourhood of --focus, in edges")
      ->default_val(1)
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--layout", d.layout, "auto (budgeted), dot or sfdp")
      ->check(CLI::IsMember({"auto", "dot", "sfdp"}))
      ->default_val("auto");
  cmd->add_option("--budget", d.budget_nodes,
                  "Above this many nodes: no edge labels, stubbed fan-out, bounded layout")
      ->default_val(d.budget_nodes);
  cmds.emplace_back(cmd, [opts] {
    Capture c = load_inputs(opts->common);
    auto builds = select_builds(c, opts->common.build);
    if (builds.empty()) throw UsageError("no layer listing in the inputs: nothing to draw");
    if (builds.size() > 1) throw UsageError("dot draws one build: pass --build N or final");
    std::string format = output_format(opts->common);
    DotGraph graph;
    try {
      graph = engine_dot(*builds.front(), opts->dot);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    if (!opts->common.quiet)
      for (const auto& n : graph.notes) std::cerr << "trtlens: " << escape_terminal(n) << '\n';
    std::string data = graph.dot;
    if (format != "dot") {
      try {
        data = graphviz_render(graph.dot, format, graph.engine);
      } catch (const GraphvizError& e) {
        std::cerr << "trtlens: " << escape_terminal(e.what()) << '\n';
        return 2;
      }
    }
    Output out(opts->common.output);
    out.stream() << data;
    return 0;
  });
}

}  // namespace trtlens
