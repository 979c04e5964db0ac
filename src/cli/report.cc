#include "analysis/report.h"

#include <iostream>

#include "cli/common.h"
#include "render/escape.h"
#include "render/html.h"
#include "render/markdown_report.h"

namespace trtlens {

void register_report(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds) {
  auto opts = std::make_shared<CommonOptions>();
  auto ro = std::make_shared<ReportOptions>();
  CLI::App* cmd =
      app.add_subcommand("report", "One self-contained HTML (or Markdown) report for a ticket");
  add_common_options(cmd, *opts, {"html", "md"});
  opts->shows_selected_builds = true;
  cmd->add_option("--max-rows", ro->max_rows, "Rows per table before the rest is left out")
      ->default_val(ro->max_rows);
  cmd->add_option("--graph-max-nodes", ro->graph_max_nodes, "Largest graph drawn inline")
      ->default_val(ro->graph_max_nodes);
  cmd->add_flag(
      "--no-graph", [ro](int64_t) { ro->graph = false; }, "Leave the graph out");
  cmds.emplace_back(cmd, [opts, ro] {
    Capture& c = keep_until_exit(load_inputs(*opts));
    auto builds = select_builds(c, opts->build);
    // A failed build leaves runs but no listing: report how they ended.
    const bool runs_only = c.builds.empty() && !c.runs.empty();
    if (builds.empty() && !runs_only)
      throw UsageError("no layer listing in the inputs: nothing to report");
    if (builds.size() > 1) throw UsageError("report covers one build: pass --build N or final");
    const std::string& path = opts->output;
    bool md =
        opts->format == "md" || (path.size() > 3 && path.compare(path.size() - 3, 3, ".md") == 0);
    Output out(path);
    ro->title = "trtlens report: " + (c.inputs.empty() ? std::string() : c.inputs.front().path);
    if (runs_only) {
      if (md)
        write_markdown_runs_report(c, out.stream());
      else
        write_html_runs_report(c, *ro, out.stream());
      return 0;
    }
    ReportFigures figures = report_figures(c, *builds.front());
    if (md) {
      write_markdown_report(c, *builds.front(), figures, {}, out.stream());
      return 0;
    }
    ro->title = "trtlens report: " + (c.inputs.empty() ? std::string() : c.inputs.front().path);
    write_html_report(c, *builds.front(), figures, *ro, out.stream());
    if (!opts->quiet)
      for (const auto& n : ro->notes) std::cerr << "trtlens: " << escape_terminal(n) << '\n';
    return 0;
  });
}

}  // namespace trtlens
