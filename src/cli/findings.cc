#include "analysis/findings.h"

#include "cli/common.h"
#include "render/findings.h"
#include "render/json.h"

namespace trtlens {

void register_findings(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds) {
  auto opts = std::make_shared<CommonOptions>();
  auto fail_on = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("findings", "Checks that explain a slow or surprising build");
  add_common_options(cmd, *opts, {"table", "json", "md"});
  opts->shows_selected_builds = true;
  cmd->add_option("--fail-on", *fail_on, "Exit 1 when a finding of this severity or worse exists")
      ->check(CLI::IsMember({"info", "warning", "error"}));
  cmd->add_option("--ignore", opts->analysis.ignore_findings,
                  "Drop findings with this id (repeatable; 'reformat-*' drops a family)")
      ->allow_extra_args(false);
  cmds.emplace_back(cmd, [opts, fail_on] {
    for (const auto& id : opts->analysis.ignore_findings) {
      bool known = is_finding_id(id);
      if (!known && !id.empty() && id.back() == '*')
        for (const auto& r : finding_rules())
          known = known || std::string_view(r.id).starts_with(id.substr(0, id.size() - 1));
      if (!known) throw UsageError("--ignore: no finding has the id '" + id + "'");
    }
    Capture& c = keep_until_exit(load_inputs(*opts));
    Output out(opts->output);
    auto fs = findings_for(c, select_builds(c, opts->build));
    if (opts->format == "json")
      out.stream() << dump_json(findings_json(fs)) << '\n';
    else if (opts->format == "md")
      write_findings_markdown(fs, out.stream());
    else
      write_findings_text(fs, out.stream());
    if (auto level = parse_severity(*fail_on))
      for (const Finding* f : fs)
        if (int(f->severity) >= int(*level)) return 1;
    return 0;
  });
}

}  // namespace trtlens
