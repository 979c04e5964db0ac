#include "cli/common.h"
#include "render/json.h"

namespace trtlens {

void register_json(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds) {
  auto opts = std::make_shared<CommonOptions>();
  CLI::App* cmd = app.add_subcommand("json", "The whole model as one JSON document (trtlens/1)");
  add_common_options(cmd, *opts, {}, "all");
  opts->shows_selected_builds = true;
  cmd->add_option("-o,--output", opts->output, "Write to this file instead of stdout");
  cmds.emplace_back(cmd, [opts] {
    Capture& c = keep_until_exit(load_inputs(*opts));
    Output out(opts->output);
    write_capture_json(c, select_builds(c, opts->build), out.stream());
    out.stream() << '\n';
    return 0;
  });
}

}  // namespace trtlens
