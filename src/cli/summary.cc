#include "render/summary.h"

#include "cli/common.h"
#include "render/json.h"
#include "render/views.h"

namespace trtlens {

void register_summary(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds) {
  auto opts = std::make_shared<CommonOptions>();
  CLI::App* cmd = app.add_subcommand("summary", "Per build: layers, types, precisions, I/O");
  add_common_options(cmd, *opts, {"text", "json", "md"});
  opts->shows_selected_builds = true;
  cmds.emplace_back(cmd, [opts] {
    Capture& c = keep_until_exit(load_inputs(*opts));
    Output out(opts->output);
    auto builds = select_builds(c, opts->build);
    if (opts->format == "text") {
      write_summary(c, builds, out.stream());
      return 0;
    }
    if (opts->format == "json")
      out.stream() << dump_json(summary_json(c, builds)) << '\n';
    else
      write_summary_markdown(c, builds, out.stream());
    return 0;
  });
}

}  // namespace trtlens
