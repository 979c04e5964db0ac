// trtlens compare: more than two builds side by side, each aligned to the first.
#include "analysis/compare.h"

#include <sys/stat.h>

#include "cli/common.h"
#include "render/compare.h"
#include "render/json.h"

namespace trtlens {
namespace {

// One capture argument: a path (file or bundle directory) as given, or files joined with '+'
// when the whole argument names nothing.
std::vector<std::string> capture_files(const std::string& arg) {
  struct stat st;
  if (arg == "-" || ::stat(arg.c_str(), &st) == 0) return {arg};
  std::vector<std::string> files;
  size_t start = 0;
  for (size_t p; (p = arg.find('+', start)) != std::string::npos; start = p + 1)
    files.push_back(arg.substr(start, p - start));
  files.push_back(arg.substr(start));
  for (const auto& f : files)
    if (f.empty()) throw UsageError("compare: '" + arg + "': empty file name between '+'");
  return files;
}

int run_compare(const CommonOptions& o) {
  if (o.inputs.size() < 2)
    throw UsageError("compare: give at least two captures (a file, a bundle, or FILE+FILE...)");
  if (o.build == "all") throw UsageError("compare: --build all is not allowed; pick N or final");
  std::vector<Capture> captures;
  captures.reserve(o.inputs.size());
  for (const auto& arg : o.inputs) {
    CommonOptions co = o;
    co.inputs = capture_files(arg);
    captures.push_back(load_inputs(co));
  }
  std::vector<const Capture*> cs;
  std::vector<const Build*> bs;
  for (size_t k = 0; k < captures.size(); ++k) {
    auto builds = select_builds(captures[k], o.build);
    if (builds.empty())
      throw UsageError("compare: capture " + std::to_string(k + 1) + " (" + o.inputs[k] +
                       ") holds no layer listing");
    cs.push_back(&captures[k]);
    bs.push_back(builds.front());
  }
  CompareResult r = compare_builds(cs, bs);
  Output out(o.output);
  if (o.format == "json")
    out.stream() << dump_json(compare_json(r)) << '\n';
  else
    write_compare(r, o.format, out.stream());
  return 0;
}

}  // namespace

void register_compare(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds) {
  auto o = std::make_shared<CommonOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Several builds side by side: each aligned to the first, one row per layer across builds");
  add_common_options(cmd, *o, {"table", "json", "csv", "md", "html"});
  cmd->get_option("INPUT")->description(
      "Captures, two or more: a file, a bundle directory, or files joined with '+' "
      "(build.log+layers.json+profile.json)");
  cmds.emplace_back(cmd, [o] { return run_compare(*o); });
}

}  // namespace trtlens
