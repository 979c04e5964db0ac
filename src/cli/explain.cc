// trtlens explain: why TensorRT did what it did (remarks), where each layer runs (DLA), and
// the build tuner's routes.
#include "render/explain.h"

#include <re2/re2.h>

#include "cli/common.h"

namespace trtlens {

void register_explain(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds) {
  auto opts = std::make_shared<CommonOptions>();
  auto node = std::make_shared<std::string>();
  auto kind = std::make_shared<std::string>();
  auto show = std::make_shared<std::string>("remarks");
  CLI::App* cmd = app.add_subcommand(
      "explain",
      "Why: fusions done and missed, precision fallbacks with TensorRT's reasons, reformats by "
      "cause, DLA placement, build tuner routes");
  add_common_options(cmd, *opts, {"table", "csv", "md", "json", "html"});
  cmd->add_option("--node", *node, "Only remarks whose ONNX node or layer matches (RE2)");
  cmd->add_option("--kind", *kind, "Only remarks of this kind")
      ->check(CLI::IsMember({"passed", "missed", "analysis"}));
  cmd->add_option("--show", *show, "remarks (default), dla (placement table) or tuner (routes)")
      ->check(CLI::IsMember({"remarks", "dla", "tuner"}));
  cmds.emplace_back(cmd, [opts, node, kind, show] {
    std::unique_ptr<RE2> filter;
    if (!node->empty()) {
      filter = std::make_unique<RE2>(*node, RE2::Quiet);
      if (!filter->ok()) throw UsageError("--node: " + filter->error());
    }
    Capture& c = keep_until_exit(load_inputs(*opts));
    Output out(opts->output);
    write_explain(c, *show, opts->format, ExplainFilter{filter.get(), *kind}, out.stream());
    return 0;
  });
}

}  // namespace trtlens
