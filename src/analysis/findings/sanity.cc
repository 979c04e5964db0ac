// Data sanity: inputs that make the other numbers unreliable.
#include <cmath>

#include "analysis/findings/rules.h"

namespace trtlens::findings {

void sanity_rules(const BuildView& v, std::vector<Finding>& out) {
  const Build& b = v.build;
  if (b.names_only) {
    Finding f =
        make_finding(v, "names-only", Severity::Warning,
                     "build " + std::to_string(b.id) + " lists " + std::to_string(b.layers.size()) +
                         " layer names without tensors, types or tactics; most checks cannot run",
                     "Rebuild (or re-export) with --profilingVerbosity=detailed.");
    f.evidence = {{"layers", b.layers.size()}};
    out.push_back(std::move(f));
  }
  const BuildProfile& p = b.profile;
  if (p.count && *p.count == 1) {
    Finding f = make_finding(v, "profile-one-iteration", Severity::Warning,
                             "the profile covers 1 iteration: its times include warm-up noise",
                             "Profile over many iterations (trtexec --iterations / --duration).");
    f.evidence = {{"count", *p.count}};
    out.push_back(std::move(f));
  }
  double sum = 0;
  int with_pct = 0;
  for (const auto& l : b.layers)
    if (l.time.percentage) sum += *l.time.percentage, ++with_pct;
  if (with_pct && std::fabs(sum - 100.0) > 5.0) {
    Finding f = make_finding(
        v, "profile-percent-sum", Severity::Warning,
        "profile percentages of the build's layers add up to " + fmt(sum, 1) + "%, not 100%",
        "The profile and the layer listing may come from different engines, or rows did not "
        "join; check profile-unmatched and the inputs.");
    f.evidence = {{"sum_percent", sum}, {"layers_with_percentage", with_pct}};
    out.push_back(std::move(f));
  }
  if (!p.unmatched_rows.empty()) {
    Finding f = make_finding(
        v, "profile-unmatched", Severity::Warning,
        std::to_string(p.unmatched_rows.size()) + " profile row" +
            (p.unmatched_rows.size() == 1 ? "" : "s") + " match no layer of build " +
            std::to_string(b.id) + ", e.g. " + p.unmatched_rows.front(),
        "The profile is probably from another engine build; export layer info and profile "
        "from the same trtexec run.");
    std::vector<std::string> rows(
        p.unmatched_rows.begin(),
        p.unmatched_rows.begin() + std::min<size_t>(p.unmatched_rows.size(), 20));
    f.evidence = {{"rows", p.unmatched_rows.size()}, {"examples", rows}};
    out.push_back(std::move(f));
  }
}

void capture_rules(const Capture& c, std::vector<Finding>& out) {
  if (c.builds.size() < 2) return;
  const Build* fin = c.final_build();
  if (!fin) return;
  // Several listings in one trtexec run cannot be told apart by order alone.
  int same_run = 0;
  for (const auto& b : c.builds)
    if (b.source.path == fin->source.path && b.run == fin->run) ++same_run;
  Finding f;
  f.id = "ambiguous-final-build";
  f.severity = same_run > 1 ? Severity::Warning : Severity::Info;
  f.build = -1;
  f.message = std::to_string(c.builds.size()) + " builds in the inputs; build " +
              std::to_string(fin->id) + " (" + fin->source.path + ":" +
              std::to_string(fin->source.line) + ") was taken as final" +
              (same_run > 1 ? ", but " + std::to_string(same_run) + " come from the same run" : "");
  f.hint = "Pick one with --build N (or --build all) and check the findings per build.";
  nlohmann::ordered_json builds = nlohmann::ordered_json::array();
  for (const auto& b : c.builds)
    builds.push_back({{"id", b.id},
                      {"path", b.source.path},
                      {"line", b.source.line},
                      {"run", b.run},
                      {"layers", b.layers.size()}});
  f.evidence = {{"final", fin->id}, {"same_run", same_run}, {"builds", builds}};
  out.push_back(std::move(f));
}

}  // namespace trtlens::findings
