#include "render/markdown_report.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <sstream>

#include "analysis/summary.h"
#include "analysis/time.h"
#include "io/units.h"
#include "render/escape.h"
#include "render/explain.h"
#include "render/report_text.h"
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

std::string pct(double v) { return fmt(v, v < 10 ? "%.1f%%" : "%.0f%%"); }

std::string mix(const std::vector<Group>& g, bool by_time) {
  double total = 0;
  for (const auto& x : g) total += by_time ? x.ms : double(x.count);
  std::string out;
  if (total <= 0) return out;
  for (const auto& x : g) {
    double v = by_time ? x.ms : double(x.count);
    if (v > 0)
      out += (out.empty() ? "" : ", ") + escape_markdown(x.key) + " " +
             (by_time ? pct(v / total * 100) : std::to_string(x.count));
  }
  return out;
}

// The headline: what a ticket reader needs before any table.
void write_headline(const Capture& c, const Build& b, const ReportFigures& f, std::ostream& os) {
  header(os, {"at a glance", ""});
  const Latency& lat = b.latency;
  if (lat.measured() && lat.median_ms) {
    std::string v = "median " + human_ms(lat.median_ms);
    if (lat.p99_ms) v += ", p99 " + human_ms(lat.p99_ms);
    if (lat.queries) v += ", " + std::to_string(lat.queries) + " queries";
    if (lat.cv_percent) v += ", CV " + pct(*lat.cv_percent);
    row(os, {"latency", v + " (" + to_string(lat.source) + ")"});
  }
  if (f.throughput_qps) row(os, {"throughput", human_number(*f.throughput_qps, "qps")});
  if (b.totals.sum_layer_ms) row(os, {"Σ layer time", human_ms(b.totals.sum_layer_ms)});
  if (b.totals.peak_activation_bytes)
    row(os, {"peak activation (estimate)", human_bytes(b.totals.peak_activation_bytes)});
  if (b.totals.weights_bytes) row(os, {"weights", human_bytes(b.totals.weights_bytes)});
  if (f.device_persistent) row(os, {"device persistent", human_bytes(f.device_persistent)});
  if (f.host_persistent) row(os, {"host persistent", human_bytes(f.host_persistent)});
  if (f.scratch) row(os, {"scratch", human_bytes(f.scratch)});
  row(os, {"layers", format_layer_counts(b.totals)});
  std::string by_count = mix(f.precision, false), by_time = mix(f.precision, true);
  if (!by_count.empty()) row(os, {"precision by count", by_count});
  if (!by_time.empty()) row(os, {"precision by time", by_time});
  for (size_t i = 0; i < f.top.size(); ++i)
    row(os, {"top " + std::to_string(i + 1) + " by time",
             escape_markdown(b.layers[f.top[i].layer].name) + " " + human_ms(f.top[i].ms) + " (" +
                 pct(f.top[i].share_percent) + ")"});
  if (!f.findings.empty()) {
    std::string v;
    for (Severity sev : {Severity::Error, Severity::Warning, Severity::Info})
      if (f.findings.count(sev))
        v += (v.empty() ? "" : ", ") + std::to_string(f.findings.at(sev)) + " " + to_string(sev);
    row(os, {"findings", v});
  }
  if (!c.diagnostics.empty()) row(os, {"diagnostics", std::to_string(c.diagnostics.size())});
  os << '\n';
}

// The charts of the HTML report, as tables.
void write_chart_tables(const Build& b, const ReportFigures& f, std::ostream& os) {
  bool timed = b.totals.sum_layer_ms.has_value();
  if (timed && !f.type_precision.empty()) {
    os << "### Time by layer type and precision\n\n";
    header(os, {"type", "precision", "layers", "time"});
    for (const auto& g : f.type_precision)
      if (g.ms > 0)
        row(os, {escape_markdown(g.key), escape_markdown(g.sub), std::to_string(g.count),
                 human_ms(g.ms)});
    os << '\n';
  }
  if (!f.kernel_family.empty()) {
    os << "### Time by kernel family\n\n";
    header(os, {"kernel family", "layers", "time"});
    for (const auto& g : f.kernel_family)
      row(os, {escape_markdown(g.key), std::to_string(g.count), timed ? human_ms(g.ms) : ""});
    os << '\n';
  }
  if (f.latency_series) {
    const LatencySeries& s = *f.latency_series;
    os << "### Latency over queries\n\n";
    header(os, {"queries", "p50", "p99", "min", "max"});
    row(os, {std::to_string(s.ms.size()), human_ms(s.p50), human_ms(s.p99),
             human_ms(*std::min_element(s.ms.begin(), s.ms.end())),
             human_ms(*std::max_element(s.ms.begin(), s.ms.end()))});
    os << '\n';
  }
  if (!f.cards.empty()) {
    const bool roof = !f.device.tflops.empty();
    os << "### Convolution and GEMM report card\n\n";
    std::string device = device_roofline_text(f.device);
    if (!device.empty()) os << "Device: " << escape_markdown(device) << "\n\n";
    std::vector<std::string> cols = {"layer", "kind", "MACs", "bytes", "MACs/byte",
                                     "M",     "N",    "K",    "time",  "TFLOPS"};
    if (roof) cols.insert(cols.end(), {"math", "% of peak TFLOPS"});
    if (f.device.gbps) cols.push_back("% of peak GB/s");
    if (roof && f.device.gbps) cols.push_back("bound");
    header(os, cols);
    auto opt = [](std::optional<double> v) { return v ? human_number(*v) : std::string(); };
    for (const auto& cc : f.cards) {
      std::vector<std::string> r = {escape_markdown(b.layers[cc.layer].name),
                                    cc.kind,
                                    human_count(cc.macs),
                                    human_bytes(uint64_t(cc.bytes)),
                                    human_number(cc.intensity),
                                    std::to_string(cc.gemm_m),
                                    std::to_string(cc.gemm_n),
                                    std::to_string(cc.gemm_k),
                                    cc.ms ? human_ms(cc.ms) : "",
                                    opt(cc.tflops)};
      if (roof) r.insert(r.end(), {cc.math, opt(cc.tflops_percent)});
      if (f.device.gbps) r.push_back(opt(cc.bandwidth_percent));
      if (roof && f.device.gbps) r.push_back(cc.bound);
      row(os, r);
    }
    os << '\n';
  }
  if (!f.pointwise.empty()) {
    os << "### Pointwise layers\n\n";
    header(os, {"pointwise layer", "operations"});
    for (const auto& pw : f.pointwise) {
      std::string ops;
      for (const auto& op : pw.ops) ops += (ops.empty() ? "" : "; ") + op;
      if (pw.from != "operations" && !ops.empty()) ops = pw.from + ": " + ops;
      row(os, {escape_markdown(b.layers[pw.layer].name), escape_markdown(ops)});
    }
    os << '\n';
  }
}

}  // namespace

void write_markdown_report(const Capture& c, const Build& b, const ReportFigures& f,
                           const MarkdownReportOptions& o, std::ostream& os) {
  const BuildCounts& s = b.counts;
  os << "## trtlens report\n\n";
  write_headline(c, b, f, os);
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
  if (b.memory.engine_size_mib) row(os, {"engine size", human_mib(b.memory.engine_size_mib)});
  for (const auto& r : c.runs)
    for (const auto& p : r.perf)
      row(os, {escape_markdown(p.metric + (p.stat.empty() ? "" : " " + p.stat)),
               escape_markdown(human_value(p.value, p.unit))});
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

  write_missed_section(c, "md", os, &b);

  std::vector<const Layer*> by_time, by_mem;
  for (const auto& l : b.layers) {
    if (layer_ms(l)) by_time.push_back(&l);
    if (layer_bytes(l)) by_mem.push_back(&l);
  }
  if (!by_time.empty()) {
    std::stable_sort(by_time.begin(), by_time.end(),
                     [](const Layer* x, const Layer* y) { return *layer_ms(*x) > *layer_ms(*y); });
    os << "### Top layers by time\n\n";
    header(os, {"layer", "type", "time", "%"});
    for (size_t i = 0; i < by_time.size() && i < o.top; ++i) {
      const Layer& l = *by_time[i];
      row(os, {escape_markdown(l.name), escape_markdown(l.type), human_ms(layer_ms(l)),
               l.time.percentage ? fmt(*l.time.percentage, "%.1f") : ""});
    }
    os << '\n';
  }
  if (!by_mem.empty()) {
    std::stable_sort(by_mem.begin(), by_mem.end(), [](const Layer* x, const Layer* y) {
      return *layer_bytes(*x) > *layer_bytes(*y);
    });
    os << "### Top layers by footprint\n\n";
    header(os, {"layer", "type", "footprint (in + weights + out)"});
    for (size_t i = 0; i < by_mem.size() && i < o.top; ++i)
      row(os, {escape_markdown(by_mem[i]->name), escape_markdown(by_mem[i]->type),
               (by_mem[i]->memory.total_bytes ? "" : "≥ ") + human_bytes(layer_bytes(*by_mem[i]))});
    os << '\n';
  }

  write_chart_tables(b, f, os);

  std::ostringstream env;  // the heading only when something goes under it
  for (const auto& r : c.runs) {
    if (!r.trt_version.empty()) env << "- TensorRT: " << escape_markdown(r.trt_version) << '\n';
    for (const auto& [k, v] : r.device)
      env << "- " << escape_markdown(k) << ": " << escape_markdown(v) << '\n';
    if (!r.command_line.empty()) env << "- command line: " << code(r.command_line) << '\n';
  }
  if (!env.str().empty()) os << "### Environment\n\n" << env.str() << '\n';

  if (!c.diagnostics.empty()) {
    os << "### Diagnostics while reading the inputs\n\n";
    size_t shown = 0;
    for (const auto& d : c.diagnostics) {
      if (++shown > 50) break;
      os << "- " << escape_markdown(d.where.path) << ':' << d.where.line << ' '
         << to_string(d.severity) << ": " << escape_markdown(d.message) << '\n';
    }
    if (c.diagnostics.size() > 50)
      os << "- " << c.diagnostics.size() - 50 << " more (trtlens json lists all)\n";
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
               escape_markdown(human_value(p.value, p.unit))});
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
