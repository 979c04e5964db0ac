#include <unistd.h>

#include <iostream>

#include "cli/common.h"
#include "render/escape.h"
#include "render/onnx_export.h"
#include "version.h"

namespace trtlens {

void register_export(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds) {
  auto opts = std::make_shared<CommonOptions>();
  CLI::App* cmd = app.add_subcommand(
      "export", "The engine graph for other tools: an ONNX model Netron opens (one node a layer)");
  add_common_options(cmd, *opts, {"onnx"});
  opts->shows_selected_builds = true;
  cmds.emplace_back(cmd, [opts] {
    bool to_stdout = opts->output.empty() || opts->output == "-";
    if (to_stdout && isatty(STDOUT_FILENO))
      throw UsageError("ONNX is binary: not writing it to a terminal (use -o FILE.onnx)");
    Capture& c = keep_until_exit(load_inputs(*opts));
    auto builds = select_builds(c, opts->build);
    if (builds.empty()) throw UsageError("no layer listing in the inputs: nothing to export");
    if (builds.size() > 1) throw UsageError("export writes one build: pass --build N or final");
    OnnxExport e = engine_onnx(*builds.front(), kVersion);
    if (!opts->quiet)
      for (const auto& n : e.notes) std::cerr << "trtlens: " << escape_terminal(n) << '\n';
    Output out(opts->output);
    out.stream() << e.bytes;
    return 0;
  });
}

}  // namespace trtlens
