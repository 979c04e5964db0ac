// trtlens provenance: where every ONNX node went.
#include "render/provenance.h"

#include <re2/re2.h>

#include "cli/common.h"

namespace trtlens {

void register_provenance(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds) {
  auto opts = std::make_shared<CommonOptions>();
  auto node = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "provenance",
      "Where every ONNX node went: its layer, fate (fused, eliminated ...), precision");
  add_common_options(cmd, *opts, {"table", "csv", "json", "md"});
  cmd->add_option("--node", *node, "Only nodes whose name matches this regular expression (RE2)");
  cmds.emplace_back(cmd, [opts, node] {
    std::unique_ptr<RE2> filter;
    if (!node->empty()) {
      filter = std::make_unique<RE2>(*node, RE2::Quiet);
      if (!filter->ok()) throw UsageError("--node: " + filter->error());
    }
    Capture& c = keep_until_exit(load_inputs(*opts));
    if (opts->build != "final")
      throw UsageError("provenance maps the final build only; --build " + opts->build +
                       " is not supported");
    if (filter) {  // a regex that matches nothing would print an empty table and exit 0
      bool any = false;
      for (const auto& n : c.onnx.nodes) any = any || RE2::PartialMatch(n.name, *filter);
      if (!any)
        throw UsageError("--node '" + *node + "' matches no ONNX node of the inputs (" +
                         std::to_string(c.onnx.nodes.size()) + " nodes)");
    }
    Output out(opts->output);
    write_provenance(c, opts->format, filter.get(), out.stream());
    return 0;
  });
}

}  // namespace trtlens
