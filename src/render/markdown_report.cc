#include "render/markdown_report.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "render/escape.h"
#include "render/runs.h"
#include "render/views.h"

namespace trtlens {
namespace {

std::string fmt(double v, const char* f) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::optional<double> layer_ms(const Layer& l) {
  return l.time.average_ms ? l.time.average_ms : l.time.total_ms;
}

// The layer's footprint (inputs + weights + outputs), or its known lower bound.
std::optional<uint64_t> layer_bytes(const Layer& l) { return l.memory.footprint_floor_bytes; }

void row(std::ostream& os, const std::vector<std::string>& cells) {
  os << '|';
  for (const auto& c : cells) os << ' ' << c << " |";
  os << '\n';
}

void header(std::ostream& os, const std::vector<std::string>& cells) {
  row(os, cells);
  os << '|';
  for (size_t i = 0; i < cells.size(); ++i) os << "---|";
  os << '\n';
}

// Code span that survives any backticks inside: a fence longer than the longest run.
std::string code(const std::string& s) {
  std::string v = escape_terminal(s);
  size_t longest = 0, run = 0;
  for (char c : v) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string fence(longest + 1, '`');
  return fence + " " + v + " " + fence;
}

}  // namespace

void write_markdown_report(const Capture& c, const Build& b, const MarkdownReportOptions& o,
                           std::ostream& os) {
  const BuildCounts& s = b.counts;
  os << "## trtlens report\n\n";
  header(os, {"", ""});
  for (const auto& in : c.inputs)
    row(os, {"input", escape_markdown(in.path) + " (" + in.kind + ", " + std::to_string(in.lines) +
                          " lines)"});
  for (const auto& [k, v] : run_headline(c)) row(os, {k, escape_markdown(v)});
  row(os, {"build", std::to_string(b.id) + (b.final ? " (final)" : "") + ", " + to_string(b.kind)});
  if (!b.trt_version.empty()) row(os, {"TensorRT", escape_markdown(b.trt_version)});
  row(os, {"layers", format_layer_counts(b.totals)});
  std::string precisions;
  for (const auto& [p, n] : s.precisions)
    precisions += (precisions.empty() ? "" : ", ") + escape_markdown(p.empty() ? "?" : p) + " " +
                  std::to_string(n);
  if (!precisions.empty()) row(os, {"output precisions", precisions});
  auto described = [](const Tensor& t) {
    return t.has_dims || !t.dtype.empty() ? t.name + " " + format_tensor(t) : t.name;
  };
  for (const Tensor& t : s.inputs) row(os, {"input tensor", escape_markdown(described(t))});
  for (const Tensor& t : s.outputs) row(os, {"output tensor", escape_markdown(described(t))});
  if (b.memory.engine_size_mib)
    row(os, {"engine size", fmt(*b.memory.engine_size_mib, "%.2f MiB")});
  for (const auto& r : c.runs)
    for (const auto& p : r.perf)
      row(os, {escape_markdown(p.metric + (p.stat.empty() ? "" : " " + p.stat)),
               fmt(p.value, "%.4g") + " " + escape_markdown(p.unit)});
  os << '\n';

  std::vector<const Finding*> findings;
  for (const auto& f : c.findings)
    if (f.build < 0 || f.build == b.id) findings.push_back(&f);
  if (!findings.empty()) {
    os << "### Findings\n\n";
    header(os, {"severity", "id", "message", "hint"});
    for (const Finding* f : findings)
      row(os, {to_string(f->severity), escape_markdown(f->id), escape_markdown(f->message),
               escape_markdown(f->hint)});
    os << '\n';
  }

  std::vector<const Layer*> by_time, by_mem;
  for (const auto& l : b.layers) {
    if (layer_ms(l)) by_time.push_back(&l);
    if (layer_bytes(l)) by_mem.push_back(&l);
  }
  if (!by_time.empty()) {
    std::stable_sort(by_time.begin(), by_time.end(),
                     [](const Layer* x, const Layer* y) { return *layer_ms(*x) > *layer_ms(*y); });
    os << "### Top layers by time\n\n";
    header(os, {"layer", "type", "ms", "%"});
    for (size_t i = 0; i < by_time.size() && i < o.top; ++i) {
      const Layer& l = *by_time[i];
      row(os, {escape_markdown(l.name), escape_markdown(l.type), fmt(*layer_ms(l), "%.4f"),
               l.time.percentage ? fmt(*l.time.percentage, "%.1f") : ""});
    }
    os << '\n';
  }
  if (!by_mem.empty()) {
    std::stable_sort(by_mem.begin(), by_mem.end(), [](const Layer* x, const Layer* y) {
      return *layer_bytes(*x) > *layer_bytes(*y);
    });
    os << "### Top layers by footprint\n\n";
    header(os, {"layer", "type", "footprint bytes (in + weights + out)"});
    for (size_t i = 0; i < by_mem.size() && i < o.top; ++i)
      row(os,
          {escape_markdown(by_mem[i]->name), escape_markdown(by_mem[i]->type),
           (by_mem[i]->memory.total_bytes ? "" : "≥ ") + std::to_string(*layer_bytes(*by_mem[i]))});
    os << '\n';
  }

  if (!c.runs.empty()) {
    os << "### Environment\n\n";
    for (const auto& r : c.runs) {
      if (!r.trt_version.empty()) os << "- TensorRT: " << escape_markdown(r.trt_version) << '\n';
      for (const auto& [k, v] : r.device)
        os << "- " << escape_markdown(k) << ": " << escape_markdown(v) << '\n';
      if (!r.command_line.empty()) os << "- command line: " << code(r.command_line) << '\n';
    }
    os << '\n';
  }

  os << "<details><summary>All " << b.layers.size() << " layers</summary>\n\n";
  header(os, {"#", "name", "type", "precision", "tactic"});
  size_t shown = std::min(b.layers.size(), o.max_rows);
  for (size_t i = 0; i < shown; ++i) {
    const Layer& l = b.layers[i];
    row(os, {std::to_string(i), escape_markdown(l.name), escape_markdown(l.type),
             escape_markdown(l.outputs.empty() ? "" : l.outputs.front().dtype),
             escape_markdown(l.tactic.value_or(""))});
  }
  if (shown < b.layers.size())
    os << "\n"
       << b.layers.size() - shown << " more layers left out (trtlens layers --format md has all)\n";
  os << "\n</details>\n";
}

// A capture with runs but no layer listing (a build that failed): the runs' outcome, figures
// and findings.
void write_markdown_runs_report(const Capture& c, std::ostream& os) {
  os << "## trtlens report\n\n";
  header(os, {"", ""});
  for (const auto& in : c.inputs)
    row(os, {"input", escape_markdown(in.path) + " (" + in.kind + ", " + std::to_string(in.lines) +
                          " lines)"});
  row(os, {"build", "no layer listing found"});
  for (const auto& [k, v] : run_headline(c, 20)) row(os, {k, escape_markdown(v)});
  for (const auto& r : c.runs)
    for (const auto& p : r.perf)
      row(os, {escape_markdown(p.metric + (p.stat.empty() ? "" : " " + p.stat)),
               fmt(p.value, "%.4g") + " " + escape_markdown(p.unit)});
  os << '\n';
  if (!c.findings.empty()) {
    os << "### Findings\n\n";
    header(os, {"severity", "id", "message", "hint"});
    for (const auto& f : c.findings)
      row(os, {to_string(f.severity), escape_markdown(f.id), escape_markdown(f.message),
               escape_markdown(f.hint)});
    os << '\n';
  }
}

}  // namespace trtlens
