#include "cli/common.h"
#include "render/views.h"

namespace trtlens {

void register_summary(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds) {
  auto opts = std::make_shared<CommonOptions>();
  CLI::App* cmd = app.add_subcommand("summary", "Per build: layers, types, precisions, I/O");
  add_common_options(cmd, *opts, {});
  cmds.emplace_back(cmd, [opts] {
    Capture c = load_inputs(*opts);
    Output out(opts->output);
    write_summary(c, select_builds(c, opts->build), out.stream());
    return 0;
  });
}

}  // namespace trtlens
