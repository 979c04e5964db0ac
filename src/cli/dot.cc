#include "render/dot.h"

#include <unistd.h>

#include <iostream>

#include "cli/common.h"
#include "render/escape.h"
#include "render/svg.h"

namespace trtlens {
namespace {

struct DotCliOptions {
  CommonOptions common;
  DotOptions dot;
  BitmapOptions bitmap;
  bool format_given = false;
};

// The -o extension decides the format; --format covers stdout and names without an extension.
// An extension Graphviz output cannot honour (x.jpg, x.html) is refused rather than filled with
// DOT text.
std::string output_format(const CommonOptions& o) {
  const std::string& p = o.output;
  size_t slash = p.find_last_of('/');
  size_t dot = p.find_last_of('.');
  if (p.empty() || p == "-" || dot == std::string::npos ||
      (slash != std::string::npos && dot < slash) || dot + 1 == p.size() ||
      dot == (slash == std::string::npos ? 0 : slash + 1))
    return o.format;
  std::string ext = p.substr(dot + 1);
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (ext == "gv" || ext == "dot") return "dot";
  if (ext == "svg" || ext == "png") return ext;
  throw UsageError(p + ": unknown output extension '." + ext +
                   "': use .dot, .gv, .svg or .png (or --format with a name without extension)");
}

}  // namespace

void register_dot(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds) {
  auto opts = std::make_shared<DotCliOptions>();
  CLI::App* cmd = app.add_subcommand("dot", "The engine graph as DOT, SVG or PNG (Graphviz)");
  add_common_options(cmd, opts->common, {"dot", "svg", "png"});
  opts->common.shows_selected_builds = true;
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
  cmd->add_option("--expand", d.expand,
                  "Draw the layers of collapsed groups whose name matches this regex (RE2); "
                  "repeatable")
      ->allow_extra_args(false);  // one regex per --expand, never the inputs after it
  cmd->add_option("--layout", d.layout,
                  "auto or dot (layered, top-down), sfdp (force layout, no order)")
      ->check(CLI::IsMember({"auto", "dot", "sfdp"}))
      ->default_val("auto");
  cmd->add_option("--budget", d.budget_nodes,
                  "Above this many nodes: no edge labels, straight edges, shorter mincross")
      ->default_val(d.budget_nodes);
  cmd->add_option("--collapse", d.collapse_layers,
                  "Above this many layers: an overview of collapsed groups")
      ->default_val(d.collapse_layers);
  cmd->add_option("--dpi", opts->bitmap.dpi, "PNG resolution")
      ->default_val(opts->bitmap.dpi)
      ->check(CLI::Range(36.0, 600.0));
  cmd->add_flag(
      "--no-legend", [opts](int64_t) { opts->dot.legend = false; }, "Leave the legend out");
  cmds.emplace_back(cmd, [opts] {
    std::string format = output_format(opts->common);
    bool to_stdout = opts->common.output.empty() || opts->common.output == "-";
    if (format == "png" && to_stdout && isatty(STDOUT_FILENO))
      throw UsageError("PNG is binary: not writing it to a terminal (use -o FILE.png or a pipe)");
    Capture& c = keep_until_exit(load_inputs(opts->common));
    auto builds = select_builds(c, opts->common.build);
    if (builds.empty()) throw UsageError("no layer listing in the inputs: nothing to draw");
    if (builds.size() > 1) throw UsageError("dot draws one build: pass --build N or final");
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
        data = graphviz_render(graph.dot, format, graph.engine, opts->bitmap);
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
