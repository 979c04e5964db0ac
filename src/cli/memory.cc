#include "render/memory.h"

#include <iostream>

#include "cli/common.h"
#include "render/json.h"
#include "render/views.h"

namespace trtlens {

void register_memory(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds) {
  auto opts = std::make_shared<CommonOptions>();
  auto sort = std::make_shared<std::string>("order");
  auto top = std::make_shared<size_t>(0);
  CLI::App* cmd = app.add_subcommand(
      "memory", "Per-layer tensor memory, TensorRT's memory figures and an activation estimate");
  add_common_options(cmd, *opts, {"table", "csv", "json", "md"});
  opts->shows_selected_builds = true;
  cmd->add_option("--sort", *sort, "Sort rows by this column, largest first")
      ->check(CLI::IsMember(memory_sort_keys()))
      ->default_val("order");
  cmd->add_option("--top", *top, "Only the first N rows (after sorting)")
      ->check(CLI::NonNegativeNumber);
  cmds.emplace_back(cmd, [opts, sort, top] {
    Capture& c = keep_until_exit(load_inputs(*opts));
    Output out(opts->output);
    auto builds = select_builds(c, opts->build);
    std::ostream& os = out.stream();
    if (opts->format == "json") {
      auto doc = nlohmann::ordered_json::object();
      doc["schema"] = "trtlens/1";
      doc["builds"] = nlohmann::ordered_json::array();
      for (const Build* b : builds) {
        nlohmann::ordered_json jb;
        jb["id"] = b->id;
        jb["final"] = b->final;
        jb["memory"] = build_memory_json(*b);
        jb["layers"] = nlohmann::ordered_json::array();
        TextTable order = memory_table(*b, *sort, *top, false);
        for (const auto& row : order.rows) {
          const Layer& l = b->layers[std::stoul(row[0])];
          jb["layers"].push_back({{"index", std::stoul(row[0])},
                                  {"name", l.name},
                                  {"memory", layer_memory_json(l.memory)}});
        }
        doc["builds"].push_back(std::move(jb));
      }
      os << dump_json(doc) << '\n';
      return 0;
    }
    for (size_t i = 0; i < builds.size(); ++i) {
      const Build& b = *builds[i];
      if (opts->format == "table" || builds.size() > 1)
        os << (i ? "\n" : "") << "build " << b.id << (b.final ? " (final)" : "") << '\n';
      write_table(memory_table(b, *sort, *top, opts->format != "csv"), opts->format, os);
      if (opts->format == "table") write_memory_figures(b, os);
    }
    if (builds.empty()) os << "no build found\n";
    if (!opts->quiet) write_diagnostics(c, std::cerr);
    return 0;
  });
}

}  // namespace trtlens
