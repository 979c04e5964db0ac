#include "analysis/runs.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

namespace trtlens {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

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

}  // namespace

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
    if (m.compare(i, 2, "0x") == 0 && i + 2 < m.size() && is_hex(m[i + 2])) {
      i += 2;
      while (i < m.size() && is_hex(m[i])) ++i;
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
