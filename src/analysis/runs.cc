#include "analysis/runs.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <tuple>

#include "analysis/diff.h"
#include "model/values.h"

namespace trtlens {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool build_phase(RunPhase p) { return p != RunPhase::None && p != RunPhase::Inference; }

std::string at_line(uint64_t line) { return " at line " + std::to_string(line); }

void judge(RunInfo& r) {
  // Only trtexec's banner shows a run started; a command line in a pasted excerpt does not.
  const bool started = r.banner == "RUNNING";
  if (r.banner == "PASSED") {
    r.status = RunStatus::Passed;
    r.status_reason = "&&&& PASSED" + at_line(r.banner_line);
    return;
  }
  if (r.banner == "FAILED") {
    r.status = RunStatus::Failed;
    r.status_reason = "&&&& FAILED" + at_line(r.banner_line);
    return;
  }
  if (r.stop) {
    r.status = r.stop->kind == "timeout" ? RunStatus::TimedOut : RunStatus::Crashed;
    r.status_reason = r.stop->kind + at_line(r.stop->line) + ", no trailer";
    return;
  }
  if (r.cut_at && started) {
    r.status = RunStatus::Cut;
    r.status_reason = "the file ends mid-line" + at_line(r.cut_at) + ", no trailer";
    return;
  }
  auto error = std::find_if(r.records.begin(), r.records.end(),
                            [](const LogRecord& e) { return e.severity == 'E'; });
  if (error != r.records.end()) {
    r.status = RunStatus::Failed;
    r.status_reason = "error" + at_line(error->line) + ", no trailer";
    return;
  }
  if (started && build_phase(r.last_phase.phase)) {
    r.status = RunStatus::Crashed;
    r.status_reason = std::string("the log stops during ") + to_string(r.last_phase.phase) +
                      at_line(r.last_phase.line) + " without a trailer";
    return;
  }
  if (started) {
    r.status = RunStatus::Running;
    r.status_reason = "no trailer";
    return;
  }
  r.status = RunStatus::Unknown;
  r.status_reason = "no banner, trailer or error";
}

// "{ForeignNode[/a/Conv.../b/Relu]}" -> "/a/Conv" (the first node a Myelin region holds).
std::string first_in_region(const std::string& name) {
  const std::string open = "{ForeignNode[";
  if (name.rfind(open, 0) != 0) return "";
  std::string inner = name.substr(open.size());
  size_t stop = inner.find("...");
  if (stop == std::string::npos) stop = inner.find(']');
  return stop == std::string::npos ? inner : inner.substr(0, stop);
}

// The builds a run made: those of its file and run index; else the final build.
std::vector<const Build*> builds_of(const Capture& c, const RunInfo& r) {
  std::vector<const Build*> out;
  for (const auto& b : c.builds)
    if (b.source.path == r.path && b.run == r.build_run) out.push_back(&b);
  if (out.empty())
    if (const Build* f = c.final_build()) out.push_back(f);
  return out;
}

bool layer_holds(const Layer& l, const std::string& node) {
  if (l.name == node || strip_profile_suffix(l.name) == node) return true;
  if (std::find(l.onnx_nodes.begin(), l.onnx_nodes.end(), node) != l.onnx_nodes.end()) return true;
  // Fused names: "Conv_0 + Relu_1", "PWN(Clip_3)".
  size_t at = 0;
  while ((at = l.name.find(node, at)) != std::string::npos) {
    size_t end = at + node.size();
    bool left = at == 0 || l.name[at - 1] == ' ' || l.name[at - 1] == '(';
    bool right =
        end == l.name.size() || l.name[end] == ' ' || l.name[end] == ')' || l.name[end] == ',';
    if (left && right) return true;
    at = end;
  }
  return false;
}

void link(const Capture& c, const std::vector<const Build*>& builds, LogRecord& rec) {
  if (rec.node.empty()) return;
  std::string name = rec.node;
  // A Myelin region or a fused name ("Conv_0 + Relu_1") links through its first ONNX node.
  std::string region = first_in_region(name);
  std::string fused = name.substr(0, name.find(" + "));
  for (const std::string& n : {name, region, fused}) {
    if (n.empty() || !rec.onnx_node.empty()) continue;
    for (const auto& node : c.onnx.nodes)
      if (node.name == n) rec.onnx_node = node.name;
    // The parser sometimes names a node only by its first output.
    if (rec.onnx_node.empty())
      for (const auto& node : c.onnx.nodes)
        if (!node.outputs.empty() && node.outputs.front().name == n) rec.onnx_node = node.name;
  }
  for (const Build* b : builds)
    for (const auto& l : b->layers)
      if (layer_holds(l, name) || (!rec.onnx_node.empty() && layer_holds(l, rec.onnx_node)))
        if (std::find(rec.layers.begin(), rec.layers.end(), l.name) == rec.layers.end())
          rec.layers.push_back(l.name);
}

void group(RunInfo& r) {
  using Key = std::tuple<char, int, std::string, std::string>;
  std::map<Key, size_t> index;
  r.groups.clear();
  for (const auto& rec : r.records) {
    Key k{rec.severity, rec.code.value_or(-1), rec.category, record_pattern(rec)};
    auto [it, fresh] = index.emplace(k, r.groups.size());
    if (fresh) {
      RecordGroup g;
      g.severity = rec.severity;
      g.code = rec.code;
      g.category = rec.category;
      g.pattern = std::get<3>(k);
      g.first_line = rec.line;
      r.groups.push_back(std::move(g));
    }
    RecordGroup& g = r.groups[it->second];
    ++g.count;
    if (!rec.node.empty() && std::find(g.nodes.begin(), g.nodes.end(), rec.node) == g.nodes.end())
      g.nodes.push_back(rec.node);
  }
  // Errors before warnings, then the most frequent, then the earliest.
  std::stable_sort(r.groups.begin(), r.groups.end(),
                   [](const RecordGroup& a, const RecordGroup& b) {
                     if (a.severity != b.severity) return a.severity == 'E';
                     if (a.count != b.count) return a.count > b.count;
                     return a.first_line < b.first_line;
                   });
}

// A route as the set of its flags.
std::set<std::string> route_flags(const std::string& route) {
  std::set<std::string> flags;
  std::istringstream in(route);
  for (std::string f; in >> f;) flags.insert(f);
  return flags;
}

bool is_default_name(const std::string& route) {
  std::string r;
  for (char ch : route)
    if (!std::isspace(static_cast<unsigned char>(ch)))
      r += char(std::tolower(static_cast<unsigned char>(ch)));
  return r == "default" || r == "'default'" || r == "(default)";
}

// The build made between an iteration's TASK_BEGIN and TASK_END (the last one, as a tuner
// iteration may print a listing more than once), or null.
const Build* iteration_build(const Capture& c, const TuningRun& t, const TunerIteration& it) {
  if (!it.begun) return nullptr;
  const Build* chosen = nullptr;
  for (const auto& b : c.builds)
    if (b.source.path == t.path && b.source.line > it.source.line &&
        (it.end_line == 0 || b.source.line < it.end_line))
      chosen = &b;
  return chosen;
}

}  // namespace

void compare_tuner_routes(Capture& c) {
  // The default route may come from a tuning cache given beside the log.
  std::string default_route;
  for (const auto& t : c.tuning)
    if (default_route.empty() && !t.default_route.empty()) default_route = t.default_route;
  for (auto& t : c.tuning) {
    t.default_iter = t.default_build = t.best_build = -1;
    t.best_vs_default.reset();
    t.comparison_note.clear();
    const TunerIteration* def = nullptr;
    const TunerIteration* best = nullptr;
    for (const auto& it : t.iterations) {
      const bool is_default = default_route.empty()
                                  ? is_default_name(it.route)
                                  : route_flags(it.route) == route_flags(default_route);
      if (is_default && !def) def = &it;
      if (it.iter == t.best_iter) best = &it;
    }
    if (!best && !t.best_route.empty())
      for (const auto& it : t.iterations)
        if (!best && route_flags(it.route) == route_flags(t.best_route)) best = &it;
    if (def) t.default_iter = def->iter;
    if (!def) {
      t.comparison_note = default_route.empty()
                              ? "the inputs name no default route (give the --tuningCacheFile "
                                "JSON Lines beside the log: its header has default_build_route)"
                              : "no iteration ran the default route '" + default_route + "'";
      continue;
    }
    if (!best) {
      t.comparison_note = "the inputs name no best iteration";
      continue;
    }
    const Build* base = iteration_build(c, t, *def);
    const Build* head = iteration_build(c, t, *best);
    if (base) t.default_build = base->id;
    if (head) t.best_build = head->id;
    if (def == best) {
      t.comparison_note = "the best route is the default route: the tuner changed nothing";
      continue;
    }
    if (!base || !head) {
      std::string log;
      for (const auto& other : c.tuning)
        if (other.from == "log" && log.empty()) log = other.path;
      t.comparison_note =
          t.from != "cache" ? std::string("the log holds no layer listing of the ") +
                                  (!base ? "default" : "best") + " route's build"
          : !log.empty() ? "a tuning cache holds no layer listings: compared in " + log
                         : "a tuning cache holds no layer listings: give the tuner's log";
      continue;
    }
    DiffResult d = diff_builds(c, *base, c, *head);
    d.base_side.label = "default route '" + def->route + "' (iteration " +
                        std::to_string(def->iter) + ", build " + std::to_string(base->id) + ")";
    d.head_side.label = "best route '" + best->route + "' (iteration " +
                        std::to_string(best->iter) + ", build " + std::to_string(head->id) + ")";
    t.best_vs_default = std::make_shared<const DiffResult>(std::move(d));
  }
}

std::string record_pattern(const LogRecord& rec) {
  std::string m = rec.message;
  if (!rec.node.empty())
    for (size_t at = 0; (at = m.find(rec.node, at)) != std::string::npos;) {
      m.replace(at, rec.node.size(), "<node>");
      at += 6;
    }
  // Numbers and tactic ids vary between records of one kind.
  std::string out;
  out.reserve(m.size());
  for (size_t i = 0; i < m.size();) {
    if (m.compare(i, 2, "0x") == 0 && i + 2 < m.size() && is_hex_digit(m[i + 2])) {
      i += 2;
      while (i < m.size() && is_hex_digit(m[i])) ++i;
      out += "<hex>";
    } else if (is_digit(m[i]) && (i == 0 || !std::isalnum(static_cast<unsigned char>(m[i - 1])))) {
      while (i < m.size() &&
             (is_digit(m[i]) || (m[i] == '.' && i + 1 < m.size() && is_digit(m[i + 1]))))
        ++i;
      out += "<n>";
    } else {
      out += m[i++];
    }
  }
  return out;
}

void analyze_runs(Capture& capture) {
  for (auto& r : capture.runs) {
    if (r.times) continue;  // an --exportTimes file: no log to judge
    judge(r);
    const auto builds = builds_of(capture, r);
    for (auto& rec : r.records) link(capture, builds, rec);
    if (r.tactic && r.tactic->node.empty()) r.tactic.reset();
    group(r);
  }
}

}  // namespace trtlens
