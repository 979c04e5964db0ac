#include "cli/common.h"
#include "render/json.h"
#include "render/views.h"

namespace trtlens {

void register_layers(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds) {
  auto opts = std::make_shared<CommonOptions>();
  CLI::App* cmd = app.add_subcommand("layers", "One row per engine layer");
  add_common_options(cmd, *opts, {"table", "csv", "json", "md"});
  opts->shows_selected_builds = true;
  cmds.emplace_back(cmd, [opts] {
    // The table, CSV and Markdown views print what the inputs say and read no analysis (a
    // fifth to a third of the command's time on a large engine); the JSON view carries it.
    Capture& c = keep_until_exit(load_inputs(*opts, opts->format == "json"));
    Output out(opts->output);
    auto builds = select_builds(c, opts->build);
    if (opts->format == "json") {
      auto doc = nlohmann::ordered_json::array();
      for (const Build* b : builds) {
        for (const auto& l : b->layers) {
          auto j = layer_json(l);
          j["build"] = b->id;
          doc.push_back(std::move(j));
        }
      }
      out.stream() << dump_json(doc) << '\n';
      return 0;
    }
    for (size_t i = 0; i < builds.size(); ++i) {
      if (builds.size() > 1)
        out.stream() << (i ? "\n" : "") << "build " << builds[i]->id
                     << (builds[i]->final ? " (final)" : "") << '\n';
      write_table(layers_table(*builds[i]), opts->format, out.stream());
    }
    return 0;
  });
}

}  // namespace trtlens
