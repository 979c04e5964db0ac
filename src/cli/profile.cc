#include "render/profile.h"

#include "analysis/time.h"
#include "cli/common.h"
#include "render/json.h"

namespace trtlens {

void register_profile(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds) {
  auto opts = std::make_shared<CommonOptions>();
  auto top = std::make_shared<size_t>(10);
  CLI::App* cmd = app.add_subcommand(
      "profile",
      "Per-layer times joined to layers, grouped; performance summary and timing traces");
  add_common_options(cmd, *opts, {"table", "csv", "json", "md"});
  opts->shows_selected_builds = true;
  cmd->add_option("--top", *top, "How many of the slowest layers to list")
      ->default_val(10)
      ->check(CLI::NonNegativeNumber);
  cmds.emplace_back(cmd, [opts, top] {
    Capture& c = keep_until_exit(load_inputs(*opts));
    Output out(opts->output);
    auto builds = select_builds(c, opts->build);
    if (opts->format == "json") {
      auto doc = nlohmann::ordered_json::object();
      doc["builds"] = nlohmann::ordered_json::array();
      for (const Build* b : builds) {
        nlohmann::ordered_json jb;
        jb["id"] = b->id;
        jb["final"] = b->final;
        jb["profile"] = build_profile_json(b->profile);
        jb["layers"] = nlohmann::ordered_json::array();
        for (const auto& l : b->layers)
          jb["layers"].push_back({{"name", l.name},
                                  {"type", l.type},
                                  {"precision", precision_or_unknown(l)},
                                  {"time", layer_time_json(l.time)}});
        doc["builds"].push_back(std::move(jb));
      }
      doc["runs"] = nlohmann::ordered_json::array();
      for (const auto& r : c.runs) doc["runs"].push_back(run_json(r));
      out.stream() << dump_json(doc) << '\n';
      return 0;
    }
    std::vector<std::vector<size_t>> tops;
    for (const Build* b : builds) tops.push_back(top_layers(*b, *top));
    write_profile_report(c, builds, tops, opts->format, out.stream());
    return 0;
  });
}

}  // namespace trtlens
