#include "render/html.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "analysis/report.h"
#include "analysis/summary.h"
#include "analysis/time.h"
#include "io/units.h"
#include "model/values.h"
#include "render/escape.h"
#include "render/explain.h"
#include "render/graph_view.h"
#include "render/report_text.h"
#include "render/runs.h"
#include "render/svg.h"
#include "render/views.h"

namespace trtlens {
namespace {

struct Cell {
  Cell(std::string t, std::optional<double> v = std::nullopt, std::string tip = {})
      : text(std::move(t)), value(v), title(std::move(tip)) {}
  std::string text;
  std::optional<double> value;  // sort key for numeric columns
  std::string title;            // tooltip (exact bytes)
};

struct Table {
  std::string id;
  std::vector<std::string> headers;
  std::vector<std::vector<Cell>> rows;
};

std::string fmt(double v, const char* f = "%.3f") {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

Cell num(std::optional<double> v, const char* f = "%.3f") {
  if (!v) return {"", std::nullopt};
  return {fmt(*v, f), v};
}
Cell bytes(std::optional<uint64_t> v) {
  if (!v) return {"", std::nullopt};
  return {human_bytes(v), double(*v), std::to_string(*v) + " bytes"};
}
Cell ms_cell(std::optional<double> v) {
  if (!v) return {"", std::nullopt};
  return {human_ms(v), v};
}

const char* kStyle = R"(
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:0;color:#222;background:#fafafa}
header{background:#1f3b57;color:#fff;padding:12px 20px}header h1{margin:0;font-size:20px}
nav{padding:6px 20px;background:#e8eef4;position:sticky;top:0;z-index:2}nav a{margin-right:14px;color:#1f3b57}
section{padding:8px 20px}h2{border-bottom:1px solid #ccc;font-size:17px}
table{border-collapse:collapse;font-size:12px;background:#fff;margin:6px 0}
th,td{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top;max-width:520px;overflow-wrap:break-word}
th{background:#eef;cursor:pointer;position:sticky;top:30px}th[aria-sort=ascending]::after{content:" \25B2"}th[aria-sort=descending]::after{content:" \25BC"}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap;overflow-wrap:normal}
.note{color:#8a4b00;background:#fff4e0;padding:4px 8px;border-left:3px solid #e69500;margin:4px 0}
.sev-error{color:#b00020;font-weight:bold}.sev-warning{color:#a55a00;font-weight:bold}
.graph{overflow:auto;max-height:80vh;border:1px solid #ccc;background:#fff}
input.filter{margin:4px 0;padding:3px;width:280px}
dl.kv{display:grid;grid-template-columns:max-content auto;gap:2px 12px;font-size:13px}dl.kv dt{font-weight:bold}
code{font-size:12px;overflow-wrap:anywhere}
.scroll{overflow:auto;max-width:100%;max-height:80vh;border:1px solid #ddd}.scroll table{margin:0}.scroll th{top:0}
nav{display:flex;flex-wrap:wrap;gap:2px 0}
.headline{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(220px,100%),1fr));gap:8px}
.fig{background:#fff;border:1px solid #ddd;padding:6px 10px}.fig b{display:block;font-size:12px;color:#555;font-weight:normal}
.fig span{font-size:18px;font-variant-numeric:tabular-nums}.fig small{display:block;color:#555;overflow-wrap:anywhere}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(360px,100%),1fr));gap:10px}
header h1,h2,section>p,li,dd,summary,nav a{overflow-wrap:anywhere;min-width:0}dl.kv dd{margin:0;min-width:0}
.chart{background:#fff;border:1px solid #ddd;padding:6px;min-width:0}.chart h3{font-size:13px;margin:2px 0 4px}
.chart svg{width:100%;height:auto;display:block}
.pair{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(380px,100%),1fr))}.pair section{min-width:0}
.legend span{display:inline-block;margin-right:12px;font-size:12px}.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;border:1px solid #999;vertical-align:-2px}
)";

// Sorting (numbers by data-v) and filtering; no libraries.
const char* kScript = R"(
(function(){
  function key(td){var v=td.getAttribute('data-v');return v===null?null:parseFloat(v);}
  document.querySelectorAll('table.sortable').forEach(function(t){
    var ths=t.tHead.rows[0].cells;
    Array.prototype.forEach.call(ths,function(th,i){
      th.addEventListener('click',function(){
        var cur=th.getAttribute('aria-sort'),body0=t.tBodies[0];
        var numeric=body0.rows.length>0&&body0.querySelector('td:nth-child('+(i+1)+')[data-v]')!==null;
        var asc=cur?cur!=='ascending':!numeric;
        Array.prototype.forEach.call(ths,function(h){h.removeAttribute('aria-sort');});
        th.setAttribute('aria-sort',asc?'ascending':'descending');
        var body=t.tBodies[0];
        var rows=Array.prototype.slice.call(body.rows);
        rows.sort(function(a,b){
          var x=key(a.cells[i]),y=key(b.cells[i]),r;
          if(x!==null||y!==null){r=(x===null?-Infinity:x)-(y===null?-Infinity:y);}
          else{r=a.cells[i].textContent.localeCompare(b.cells[i].textContent);}
          return asc?r:-r;
        });
        rows.forEach(function(r){body.appendChild(r);});
      });
    });
  });
  document.querySelectorAll('input.filter').forEach(function(inp){
    var t=document.getElementById(inp.getAttribute('data-table'));
    inp.addEventListener('input',function(){
      var q=inp.value.toLowerCase();
      Array.prototype.forEach.call(t.tBodies[0].rows,function(r){
        r.style.display=r.textContent.toLowerCase().indexOf(q)>=0?'':'none';
      });
    });
  });
})();
)";

void write_table(const Table& t, size_t max_rows, std::vector<std::string>& notes,
                 std::ostream& os) {
  os << "<input class=\"filter\" type=\"search\" placeholder=\"filter rows\" data-table=\"table-"
     << t.id << "\">\n<div class=\"scroll\"><table class=\"sortable\" id=\"table-" << t.id
     << "\"><thead><tr>";
  for (const auto& h : t.headers) os << "<th>" << escape_html(h) << "</th>";
  os << "</tr></thead><tbody>\n";
  size_t shown = std::min(t.rows.size(), max_rows);
  for (size_t r = 0; r < shown; ++r) {
    os << "<tr>";
    for (const auto& c : t.rows[r]) {
      os << "<td";
      if (c.value) os << " class=\"n\" data-v=\"" << fmt(*c.value, "%.9g") << "\"";
      if (!c.title.empty()) os << " title=\"" << escape_html(c.title) << "\"";
      os << ">";
      os << escape_html(c.text) << "</td>";
    }
    os << "</tr>\n";
  }
  os << "</tbody></table></div>\n";
  if (shown < t.rows.size()) {
    std::string n = std::to_string(t.rows.size() - shown) + " of " + std::to_string(t.rows.size()) +
                    " rows of table '" + t.id +
                    "' left out to keep the file small (trtlens layers --format csv has all)";
    notes.push_back(n);
    os << "<p class=\"note\">" << escape_html(n) << "</p>\n";
  }
}

void kv(std::ostream& os, const std::string& k, const std::string& v) {
  if (!v.empty()) os << "<dt>" << escape_html(k) << "</dt><dd>" << escape_html(v) << "</dd>";
}

std::optional<double> layer_ms(const Layer& l) {
  return l.time.average_ms ? l.time.average_ms : l.time.total_ms;
}

bool any_time(const Build& b) {
  return std::any_of(b.layers.begin(), b.layers.end(),
                     [](const Layer& l) { return layer_ms(l).has_value(); });
}
bool any_memory(const Build& b) {
  return std::any_of(b.layers.begin(), b.layers.end(), [](const Layer& l) {
    const auto& m = l.memory;
    return m.input_bytes || m.output_bytes || m.weight_bytes || m.device_persistent ||
           m.host_persistent || m.scratch;
  });
}

void write_head(const std::string& title, std::ostream& os) {
  os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
        "<meta name=\"viewport\" content=\"width=device-width\">\n<title>"
     << escape_html(title) << "</title>\n<style>" << kStyle << "</style></head>\n<body>\n";
}

void write_summary_section(const Capture& c, const Build& b, std::ostream& os,
                           const std::string& id = "summary") {
  const BuildCounts& s = b.counts;
  os << "<section id=\"" << id << "\"><h2>Summary</h2><dl class=\"kv\">";
  for (const auto& in : c.inputs)
    kv(os, "input",
       in.path + " (" + in.kind + ", " + std::to_string(in.lines) + " lines, " +
           std::to_string(in.unrecognized) + " unrecognized)");
  for (const auto& [k, v] : run_headline(c)) kv(os, k, v);
  kv(os, "build",
     std::to_string(b.id) + (b.final ? " (final)" : "") + ", " + to_string(b.kind) + " at " +
         b.source.path + ":" + std::to_string(b.source.line));
  kv(os, "TensorRT", b.trt_version);
  kv(os, "layers", format_layer_counts(b.totals));
  std::string types, precisions, ins, outs;
  for (const auto& [t, n] : s.types)
    types += (types.empty() ? "" : ", ") + t + " " + std::to_string(n);
  for (const auto& [p, n] : s.precisions)
    precisions +=
        (precisions.empty() ? "" : ", ") + (p.empty() ? "?" : p) + " " + std::to_string(n);
  auto described = [](const Tensor& t) {
    return t.has_dims || !t.dtype.empty() ? t.name + " " + format_tensor(t) : t.name;
  };
  for (const Tensor& t : s.inputs) ins += (ins.empty() ? "" : "; ") + described(t);
  for (const Tensor& t : s.outputs) outs += (outs.empty() ? "" : "; ") + described(t);
  kv(os, "types", types);
  kv(os, "output precisions", precisions);
  kv(os, "inputs", ins);
  kv(os, "outputs", outs);
  const BuildMemory& m = b.memory;
  auto mib = [](std::optional<double> v) { return v ? fmt(*v, "%.2f MiB") : std::string(); };
  auto byt = [](std::optional<uint64_t> v) {
    return v ? human_bytes(v) + " (" + std::to_string(*v) + " bytes)" : std::string();
  };
  kv(os, "engine size", mib(m.engine_size_mib));
  kv(os, "context memory", mib(m.context_memory_mib));
  kv(os, "device persistent", byt(m.total_device_persistent));
  kv(os, "host persistent", byt(m.total_host_persistent));
  kv(os, "scratch", byt(m.total_scratch));
  kv(os, "activations", byt(m.total_activation));
  kv(os, "weights", byt(m.total_weights));
  for (const auto& r : c.runs)
    for (const auto& p : r.perf)
      kv(os, p.metric + (p.stat.empty() ? "" : " " + p.stat), human_value(p.value, p.unit));
  os << "</dl></section>\n";
}

void write_findings_section(const Capture& c, const Build& b, ReportOptions& o, std::ostream& os) {
  Table t{"findings", {"severity", "id", "message", "layers", "hint"}, {}};
  for (const auto& f : c.findings) {
    if (f.build >= 0 && f.build != b.id) continue;
    std::string layers;
    for (const auto& l : f.layers) layers += (layers.empty() ? "" : "; ") + l;
    t.rows.push_back({{to_string(f.severity)}, {f.id}, {f.message}, {layers}, {f.hint}});
  }
  if (t.rows.empty()) return;
  os << "<section id=\"findings\"><h2>Findings</h2>\n";
  write_table(t, o.max_rows, o.notes, os);
  os << "</section>\n";
}

void write_layers_section(const Build& b, ReportOptions& o, std::ostream& os) {
  bool time = any_time(b), mem = any_memory(b);
  Table t{"layers", {"#", "name", "type", "precision", "tactic", "inputs", "outputs"}, {}};
  if (time) t.headers.insert(t.headers.end(), {"time", "time %"});
  if (mem) t.headers.insert(t.headers.end(), {"output", "weights"});
  for (size_t i = 0; i < b.layers.size(); ++i) {
    const Layer& l = b.layers[i];
    std::string ins, outs;
    for (const auto& x : l.inputs)
      ins += (ins.empty() ? "" : "; ") + x.name + " " + format_tensor(x);
    for (const auto& x : l.outputs)
      outs += (outs.empty() ? "" : "; ") + x.name + " " + format_tensor(x);
    std::vector<Cell> row = {{std::to_string(i), double(i)},
                             {l.name},
                             {l.type + (l.role == LayerRole::Reformat ? " (reformat)"
                                        : l.role == LayerRole::Elided ? " (elided)"
                                                                      : "")},
                             {l.outputs.empty() ? "" : l.outputs.front().dtype},
                             {l.tactic.value_or("")},
                             {ins},
                             {outs}};
    if (time) {
      row.push_back(ms_cell(layer_ms(l)));
      row.push_back(num(l.time.percentage, "%.2f"));
    }
    if (mem) {
      row.push_back(bytes(l.memory.output_bytes));
      row.push_back(bytes(l.memory.weight_bytes));
    }
    t.rows.push_back(std::move(row));
  }
  os << "<section id=\"layers\"><h2>Layers</h2>\n";
  write_table(t, o.max_rows, o.notes, os);
  os << "</section>\n";
}

void write_memory_section(const Build& b, ReportOptions& o, std::ostream& os) {
  if (!any_memory(b)) return;
  Table t{
      "memory",
      {"name", "inputs", "weights", "outputs", "host persistent", "device persistent", "scratch"},
      {}};
  for (const auto& l : b.layers) {
    const auto& m = l.memory;
    t.rows.push_back({{l.name},
                      bytes(m.input_bytes),
                      bytes(m.weight_bytes),
                      bytes(m.output_bytes),
                      bytes(m.host_persistent),
                      bytes(m.device_persistent),
                      bytes(m.scratch)});
  }
  os << "<section id=\"memory\"><h2>Memory</h2>\n";
  write_table(t, o.max_rows, o.notes, os);
  os << "</section>\n";
}

void write_time_section(const Build& b, ReportOptions& o, std::ostream& os) {
  if (!any_time(b)) return;
  std::vector<const Layer*> by_time;
  for (const auto& l : b.layers)
    if (layer_ms(l)) by_time.push_back(&l);
  std::stable_sort(by_time.begin(), by_time.end(),
                   [](const Layer* x, const Layer* y) { return *layer_ms(*x) > *layer_ms(*y); });
  Table t{"time", {"name", "type", "total", "average", "median", "%"}, {}};
  for (const Layer* l : by_time)
    t.rows.push_back({{l->name},
                      {l->type},
                      ms_cell(l->time.total_ms),
                      ms_cell(l->time.average_ms),
                      ms_cell(l->time.median_ms),
                      num(l->time.percentage, "%.2f")});
  os << "<section id=\"time\"><h2>Time</h2>\n";
  if (b.profile.present && b.profile.count)
    os << "<p>profile: " << escape_html(b.profile.source) << ", " << *b.profile.count
       << " iterations</p>\n";
  write_table(t, o.max_rows, o.notes, os);
  os << "</section>\n";
}

void write_onnx_section(const Capture& c, const Build& b, ReportOptions& o, std::ostream& os) {
  Table t{"onnx", {"ONNX node", "op", "fate", "engine layer", "precision"}, {}};
  if (!c.onnx.nodes.empty()) {
    for (const auto& n : c.onnx.nodes)
      t.rows.push_back(
          {{n.name}, {n.op}, {to_string(n.fate)}, {node_layer(c.final_build(), n)}, {n.precision}});
  } else {
    for (const auto& l : b.layers)
      for (const auto& n : l.onnx_nodes) t.rows.push_back({{n}, {""}, {""}, {l.name}, {""}});
  }
  if (t.rows.empty()) return;
  os << "<section id=\"onnx\"><h2>ONNX provenance</h2>\n";
  write_table(t, o.max_rows, o.notes, os);
  os << "</section>\n";
}

void write_environment_section(const Capture& c, std::ostream& os) {
  if (c.runs.empty()) return;
  os << "<section id=\"environment\"><h2>Environment</h2>\n";
  for (const auto& r : c.runs) {
    os << "<dl class=\"kv\">";
    kv(os, "log", r.path + ":" + std::to_string(r.line));
    kv(os, "TensorRT", r.trt_version);
    kv(os, "status", r.times ? std::string() : run_status_text(r));
    for (const auto& [k, v] : r.device) kv(os, k, v);
    os << "</dl>";
    if (!r.command_line.empty())
      os << "<p>command line: <code>" << escape_html(r.command_line) << "</code></p>";
  }
  os << "</section>\n";
}

// The laid-out graph as inline SVG, or a note why not.
void write_graph(const Build& b, ReportOptions& o, const std::string& id, std::ostream& os) {
  if (!o.graph) return;
  os << "<section id=\"" << id << "\"><h2>Graph</h2>\n";
  size_t nv = boost::num_vertices(b.graph.g());
  if (nv > o.graph_max_nodes) {
    std::string n = "graph of " + std::to_string(nv) + " nodes not drawn (limit " +
                    std::to_string(o.graph_max_nodes) + "): use trtlens dot --focus REGEX";
    o.notes.push_back(n);
    os << "<p class=\"note\">" << escape_html(n) << "</p></section>\n";
    return;
  }
  os << graph_view_html(b, o.dot, id, o.notes);
  os << "</section>\n";
}

// ---- Headline, charts and report card: read from ReportFigures, never computed here. ----

void fig(std::ostream& os, const std::string& label, const std::string& value,
         const std::string& note = {}, const std::string& tip = {}) {
  if (value.empty()) return;
  os << "<div class=\"fig\"";
  if (!tip.empty()) os << " title=\"" << escape_html(tip) << "\"";
  os << "><b>" << escape_html(label) << "</b><span>" << escape_html(value) << "</span>";
  if (!note.empty()) os << "<small>" << escape_html(note) << "</small>";
  os << "</div>";
}

std::string exact(std::optional<uint64_t> v) {
  return v ? std::to_string(*v) + " bytes" : std::string();
}

std::string pct(double v) { return fmt(v, v < 10 ? "%.1f%%" : "%.0f%%"); }

std::string precision_mix(const std::vector<Group>& g, bool by_time) {
  double total = 0;
  for (const auto& x : g) total += by_time ? x.ms : double(x.count);
  if (total <= 0) return {};
  std::string out;
  for (const auto& x : g) {
    double v = by_time ? x.ms : double(x.count);
    if (v <= 0) continue;
    out += (out.empty() ? "" : ", ") + x.key + " " +
           (by_time ? pct(v / total * 100) : std::to_string(x.count));
  }
  return out;
}

void write_headline_section(const Capture& c, const Build& b, const ReportFigures& f,
                            std::ostream& os) {
  os << "<section id=\"headline\"><h2>At a glance</h2><div class=\"headline\">";
  const Latency& lat = b.latency;
  if (lat.measured() && lat.median_ms) {
    std::string note;
    if (lat.p99_ms) note += "p99 " + human_ms(lat.p99_ms);
    if (lat.queries) note += (note.empty() ? "" : ", ") + std::to_string(lat.queries) + " queries";
    if (lat.cv_percent)
      note += (note.empty() ? "" : ", ") + std::string("CV ") + pct(*lat.cv_percent);
    note += (note.empty() ? "" : "; ") + std::string("from ") + to_string(lat.source);
    fig(os, "latency (median)", human_ms(lat.median_ms), note, lat.from);
  } else if (lat.mean_ms) {
    fig(os, "latency (mean)", human_ms(lat.mean_ms), std::string("from ") + to_string(lat.source),
        lat.from);
  }
  if (f.throughput_qps)
    fig(os, "throughput", human_number(*f.throughput_qps, "qps"), {}, f.throughput_from);
  if (b.totals.sum_layer_ms)
    fig(os, "Σ layer time", human_ms(b.totals.sum_layer_ms),
        "sum of per-layer averages (not end-to-end latency)");
  if (b.totals.peak_activation_bytes)
    fig(os, "peak activation (estimate)", human_bytes(b.totals.peak_activation_bytes),
        "from tensor lifetimes", exact(b.totals.peak_activation_bytes));
  if (b.totals.weights_bytes)
    fig(os, "weights", human_bytes(b.totals.weights_bytes), {}, exact(b.totals.weights_bytes));
  if (f.device_persistent)
    fig(os, "device persistent", human_bytes(f.device_persistent), "TensorRT",
        exact(f.device_persistent));
  if (f.host_persistent)
    fig(os, "host persistent", human_bytes(f.host_persistent), "TensorRT",
        exact(f.host_persistent));
  if (f.scratch) fig(os, "scratch", human_bytes(f.scratch), "TensorRT", exact(f.scratch));
  if (b.memory.context_memory_mib)
    fig(os, "context memory", human_mib(b.memory.context_memory_mib), "TensorRT");
  if (b.memory.engine_size_mib)
    fig(os, "engine size", human_mib(b.memory.engine_size_mib), "TensorRT");
  fig(os, "layers", format_layer_counts(b.totals));
  fig(os, "precision by count", precision_mix(f.precision, false));
  fig(os, "precision by time", precision_mix(f.precision, true));
  if (!f.findings.empty()) {
    std::string s;
    for (Severity sev : {Severity::Error, Severity::Warning, Severity::Info}) {
      auto it = f.findings.find(sev);
      if (it != f.findings.end())
        s += (s.empty() ? "" : ", ") + std::to_string(it->second) + " " + to_string(sev);
    }
    fig(os, "findings", s);
  }
  if (!c.diagnostics.empty())
    fig(os, "diagnostics", std::to_string(c.diagnostics.size()), "listed below");
  os << "</div>\n";
  if (!f.top.empty()) {
    os << "<p><b>Top layers by time:</b></p><ol>";
    for (const auto& t : f.top)
      os << "<li>" << escape_html(b.layers[t.layer].name) << " — " << escape_html(human_ms(t.ms))
         << " (" << escape_html(pct(t.share_percent)) << ")</li>";
    os << "</ol>\n";
  }
  if (!c.diagnostics.empty()) {
    os << "<details><summary>" << c.diagnostics.size()
       << " diagnostic(s) while reading the inputs</summary><ul>";
    size_t shown = 0;
    for (const auto& d : c.diagnostics) {
      if (++shown > 200) break;
      os << "<li><code>" << escape_html(d.where.path) << ":" << d.where.line << "</code> "
         << to_string(d.severity) << ": " << escape_html(d.message) << "</li>";
    }
    if (c.diagnostics.size() > 200)
      os << "<li>" << c.diagnostics.size() - 200 << " more (trtlens json lists all)</li>";
    os << "</ul></details>\n";
  }
  os << "</section>\n";
}

// Horizontal (optionally stacked) bars as inline SVG; labels and tooltips escaped.
struct Bar {
  std::string label, value_text;
  std::vector<std::pair<double, std::string>> segs;  // value, colour
  std::string tip;
};

void svg_bars(std::ostream& os, const std::string& title, const std::vector<Bar>& bars,
              const std::vector<std::pair<std::string, std::string>>& legend = {}) {
  if (bars.empty()) return;
  double max = 0;
  for (const auto& b : bars) {
    double t = 0;
    for (const auto& s : b.segs) t += s.first;
    max = std::max(max, t);
  }
  if (max <= 0) return;
  const int row = 18, label_w = 210, bar_w = 290, h = int(bars.size()) * row + 4;
  os << "<div class=\"chart\"><h3>" << escape_html(title) << "</h3>";
  if (!legend.empty()) {
    os << "<div class=\"legend\">";
    for (const auto& [name, color] : legend)
      os << "<span><i style=\"background:" << color << "\"></i>" << escape_html(name) << "</span>";
    os << "</div>";
  }
  os << "<svg viewBox=\"0 0 600 " << h
     << "\" role=\"img\" font-size=\"11\" "
        "font-family=\"sans-serif\">";
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    int y = int(i) * row + 2;
    std::string label = b.label;
    if (label.size() > 34) {  // cut on a character boundary
      size_t cut = 0;
      while (cut < label.size() && cut < 33)
        cut += std::max<size_t>(1, utf8_sequence_length(label, cut));  // 0: an invalid byte
      if (cut < label.size()) label = label.substr(0, cut) + "…";
    }
    os << "<g><title>" << escape_html(b.tip.empty() ? b.label + ": " + b.value_text : b.tip)
       << "</title><text x=\"" << label_w - 4 << "\" y=\"" << y + 12 << "\" text-anchor=\"end\">"
       << escape_html(label) << "</text>";
    double x = label_w;
    for (const auto& [v, color] : b.segs) {
      double w = v / max * bar_w;
      os << "<rect x=\"" << fmt(x, "%.1f") << "\" y=\"" << y << "\" width=\"" << fmt(w, "%.1f")
         << "\" height=\"" << row - 4 << "\" fill=\"" << color << "\" stroke=\"#666\" "
         << "stroke-width=\"0.3\"/>";
      x += w;
    }
    os << "<text x=\"" << fmt(x + 4, "%.1f") << "\" y=\"" << y + 12 << "\">"
       << escape_html(b.value_text) << "</text></g>";
  }
  os << "</svg></div>\n";
}

std::string color_or_grey(const std::string& precision) {
  std::string c = precision_color(precision);
  return c == "#ffffff" ? "#dddddd" : c;
}

void svg_latency(std::ostream& os, const LatencySeries& s) {
  if (s.ms.empty()) return;
  // The axis spans the observed range (jitter of a few percent would be flat from zero).
  auto [min_it, max_it] = std::minmax_element(s.ms.begin(), s.ms.end());
  double max = std::max(*max_it, s.p99), min = std::min(*min_it, s.p50);
  if (max - min < 1e-9) max = min + 1e-3;
  const double W = 600, H = 200, left = 50, bottom = 20, top = 8;
  auto y = [&](double v) { return top + (H - top - bottom) * (1 - (v - min) / (max - min)); };
  auto x = [&](size_t i) {
    return left + (W - left - 8) * (s.ms.size() > 1 ? double(i) / double(s.ms.size() - 1) : 0);
  };
  os << "<div class=\"chart\"><h3>Latency over " << s.ms.size()
     << " queries (exportTimes)</h3><div class=\"legend\"><span><i style=\"background:#1f77b4\">"
        "</i>latency</span><span><i style=\"background:#2ca02c\"></i>p50 "
     << escape_html(human_ms(s.p50)) << "</span><span><i style=\"background:#d62728\"></i>p99 "
     << escape_html(human_ms(s.p99)) << "</span></div>"
     << "<svg viewBox=\"0 0 600 200\" role=\"img\" font-size=\"10\" font-family=\"sans-serif\">"
     << "<line x1=\"" << left << "\" y1=\"" << top << "\" x2=\"" << left << "\" y2=\"" << H - bottom
     << "\" stroke=\"#999\"/><text x=\"2\" y=\"" << top + 8 << "\">" << escape_html(human_ms(max))
     << "</text><text x=\"2\" y=\"" << H - bottom << "\">" << escape_html(human_ms(min))
     << "</text><text x=\"" << left << "\" y=\"" << H - 4 << "\">query 1</text>"
     << "<text x=\"" << W - 8 << "\" y=\"" << H - 4 << "\" text-anchor=\"end\">query "
     << s.ms.size()
     << "</text><polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"0.8\" "
        "points=\"";
  // At most ~3000 points: min and max of each bucket keep the spikes visible.
  size_t step = std::max<size_t>(1, s.ms.size() / 1500);
  for (size_t i = 0; i < s.ms.size(); i += step) {
    size_t e = std::min(s.ms.size(), i + step);
    auto [lo, hi] = std::minmax_element(s.ms.begin() + i, s.ms.begin() + e);
    os << fmt(x(i), "%.1f") << ',' << fmt(y(*lo), "%.1f") << ' ';
    if (step > 1) os << fmt(x(e - 1), "%.1f") << ',' << fmt(y(*hi), "%.1f") << ' ';
  }
  os << "\"/>";
  for (auto [v, color] : {std::pair{s.p50, "#2ca02c"}, std::pair{s.p99, "#d62728"}})
    os << "<line x1=\"" << left << "\" x2=\"" << W - 8 << "\" y1=\"" << fmt(y(v), "%.1f")
       << "\" y2=\"" << fmt(y(v), "%.1f") << "\" stroke=\"" << color
       << "\" stroke-dasharray=\"4 2\"/>";
  os << "</svg></div>\n";
}

void write_charts_section(const Build& b, const ReportFigures& f, std::ostream& os) {
  std::ostringstream body;
  // Time by layer type, stacked by output precision.
  {
    std::map<std::string, std::vector<const Group*>> by_type;
    std::vector<std::string> order;
    std::set<std::string> precisions;
    for (const auto& g : f.type_precision) {
      if (g.ms <= 0) continue;
      if (!by_type.count(g.key)) order.push_back(g.key);
      by_type[g.key].push_back(&g);
      precisions.insert(g.sub);
    }
    std::vector<Bar> bars;
    for (const auto& t : order) {
      Bar bar{t, {}, {}, {}};
      double sum = 0;
      std::string tip = t + ":";
      for (const Group* g : by_type[t]) {
        bar.segs.push_back({g->ms, color_or_grey(g->sub)});
        sum += g->ms;
        tip += " " + g->sub + " " + human_ms(g->ms) + " (" + std::to_string(g->count) + ")";
      }
      bar.value_text = human_ms(sum);
      bar.tip = tip;
      bars.push_back(std::move(bar));
    }
    std::stable_sort(bars.begin(), bars.end(), [](const Bar& x, const Bar& y) {
      double a = 0, c = 0;
      for (auto& s : x.segs) a += s.first;
      for (auto& s : y.segs) c += s.first;
      return a > c;
    });
    std::vector<std::pair<std::string, std::string>> legend;
    for (const auto& p : precisions) legend.push_back({p, color_or_grey(p)});
    svg_bars(body, "Time by layer type and precision", bars, legend);
  }
  // Top layers by time.
  {
    std::vector<Bar> bars;
    for (size_t i = 0; i < f.by_time.size() && i < 15; ++i) {
      const auto& t = f.by_time[i];
      const Layer& l = b.layers[t.layer];
      bars.push_back({l.name,
                      human_ms(t.ms) + " (" + pct(t.share_percent) + ")",
                      {{t.ms, color_or_grey(precision_or_unknown(l))}},
                      {}});
    }
    svg_bars(body, "Top layers by time", bars);
  }
  // Memory per layer: weights vs activations (inputs + outputs).
  {
    std::vector<std::pair<double, size_t>> order;
    for (size_t i = 0; i < b.layers.size(); ++i) {
      const LayerMemory& m = b.layers[i].memory;
      double w = double(m.weight_bytes.value_or(0)),
             a = double(m.input_bytes.value_or(0) + m.output_bytes.value_or(0));
      if (w + a > 0) order.push_back({w + a, i});
    }
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& x, const auto& y) { return x.first > y.first; });
    std::vector<Bar> bars;
    for (size_t k = 0; k < order.size() && k < 15; ++k) {
      const Layer& l = b.layers[order[k].second];
      const LayerMemory& m = l.memory;
      uint64_t w = m.weight_bytes.value_or(0),
               a = m.input_bytes.value_or(0) + m.output_bytes.value_or(0);
      bars.push_back({l.name,
                      human_bytes(w + a),
                      {{double(w), "#6a51a3"}, {double(a), "#9ecae1"}},
                      l.name + ": weights " + human_bytes(w) + ", activations " + human_bytes(a)});
    }
    svg_bars(body, "Memory per layer (largest 15)", bars,
             {{"weights", "#6a51a3"}, {"activations (in + out)", "#9ecae1"}});
  }
  // Precision by count and by time, as two 100 % bars.
  {
    double n = 0, t = 0;
    for (const auto& g : f.precision) n += double(g.count), t += g.ms;
    std::vector<Bar> bars;
    std::vector<std::pair<std::string, std::string>> legend;
    Bar count{"by count", "", {}, {}}, time{"by time", "", {}, {}};
    for (const auto& g : f.precision) {
      legend.push_back({g.key, color_or_grey(g.key)});
      if (n > 0) count.segs.push_back({double(g.count) / n * 100, color_or_grey(g.key)});
      if (t > 0) time.segs.push_back({g.ms / t * 100, color_or_grey(g.key)});
    }
    count.value_text = precision_mix(f.precision, false);
    time.value_text = "";
    count.tip = "by count: " + precision_mix(f.precision, false);
    time.tip = "by time: " + precision_mix(f.precision, true);
    if (!count.segs.empty()) bars.push_back(count);
    if (!time.segs.empty()) bars.push_back(time);
    svg_bars(body, "Precision of running layers", bars, legend);
  }
  if (f.latency_series) svg_latency(body, *f.latency_series);
  std::string s = body.str();
  if (s.empty()) return;
  os << "<section id=\"charts\"><h2>Charts</h2><div class=\"charts\">\n"
     << s << "</div></section>\n";
}

void write_card_section(const Build& b, const ReportFigures& f, ReportOptions& o,
                        std::ostream& os) {
  if (f.cards.empty()) return;
  const bool roof = !f.device.tflops.empty();
  Table t{"card",
          {"layer", "kind", "MACs", "bytes", "MACs/byte", "GEMM M", "GEMM N", "GEMM K", "time",
           "TFLOPS", "GB/s"},
          {}};
  if (roof) t.headers.insert(t.headers.end(), {"math", "% of peak TFLOPS"});
  if (f.device.gbps) t.headers.push_back("% of peak GB/s");
  if (roof && f.device.gbps) t.headers.push_back("bound");
  auto opt = [](std::optional<double> v) -> Cell {
    if (!v) return {""};
    return {human_number(*v), v};
  };
  for (const auto& cc : f.cards) {
    t.rows.push_back({{b.layers[cc.layer].name},
                      {cc.kind},
                      {human_count(cc.macs), cc.macs, fmt(cc.macs, "%.0f") + " MACs"},
                      {human_bytes(uint64_t(cc.bytes)), cc.bytes, fmt(cc.bytes, "%.0f") + " bytes"},
                      {human_number(cc.intensity), cc.intensity},
                      {std::to_string(cc.gemm_m), double(cc.gemm_m)},
                      {std::to_string(cc.gemm_n), double(cc.gemm_n)},
                      {std::to_string(cc.gemm_k), double(cc.gemm_k)},
                      ms_cell(cc.ms),
                      opt(cc.tflops),
                      opt(cc.gbps)});
    auto& row = t.rows.back();
    if (roof) {
      row.push_back({cc.math});
      row.push_back(opt(cc.tflops_percent));
    }
    if (f.device.gbps) row.push_back(opt(cc.bandwidth_percent));
    if (roof && f.device.gbps) row.push_back({cc.bound});
  }
  os << "<section id=\"card\"><h2>Convolution and GEMM report card</h2>\n<p>MACs, bytes "
        "(input + weights at the input's element size + output) and MACs per byte as TREx "
        "computes them; implicit GEMM M = N·P·Q, N = K, K = C·R·S; TFLOPS = 2·MACs / time. "
        "A layer is compute-bound when its MACs per byte reach the device's ridge point (peak "
        "MACs/s ÷ peak bytes/s) for its math precision, else memory-bound.</p>\n";
  std::string device = device_roofline_text(f.device);
  if (!device.empty()) os << "<p>Device: " << escape_html(device) << "</p>\n";
  write_table(t, o.max_rows, o.notes, os);
  os << "</section>\n";
}

void write_kernels_section(const Build& b, const ReportFigures& f, ReportOptions& o,
                           std::ostream& os) {
  bool timed = b.totals.sum_layer_ms.has_value();
  if (f.kernel_family.empty()) return;
  Table t{"kernels", {"kernel family", "layers"}, {}};
  if (timed) t.headers.insert(t.headers.end(), {"time", "% of Σ"});
  double sum = b.totals.sum_layer_ms.value_or(0);
  for (const auto& g : f.kernel_family) {
    std::vector<Cell> row = {{g.key}, {std::to_string(g.count), double(g.count)}};
    if (timed) {
      row.push_back(ms_cell(g.ms));
      row.push_back({sum > 0 ? pct(g.ms / sum * 100) : "", sum > 0 ? g.ms / sum * 100 : 0});
    }
    t.rows.push_back(std::move(row));
  }
  os << "<section id=\"kernels\"><h2>Time by kernel family</h2>\n";
  write_table(t, o.max_rows, o.notes, os);
  if (!f.pointwise.empty()) {
    Table p{"pointwise", {"pointwise layer", "operations"}, {}};
    for (const auto& pw : f.pointwise) {
      std::string ops;
      for (const auto& op : pw.ops) ops += (ops.empty() ? "" : "; ") + op;
      if (pw.from != "operations" && !ops.empty()) ops = pw.from + ": " + ops;
      p.rows.push_back({{b.layers[pw.layer].name}, {ops}});
    }
    os << "<h3>Pointwise layers</h3>\n";
    write_table(p, o.max_rows, o.notes, os);
  }
  os << "</section>\n";
}

void write_diff_headline(const DiffHeadline& h, std::ostream& os) {
  os << "<section id=\"headline\"><h2>At a glance</h2>";
  if (!h.figures.empty()) {
    os << "<dl class=\"kv\">";
    for (const auto& [k, v] : h.figures) kv(os, k, v);
    os << "</dl>";
  }
  if (!h.gates.empty()) {
    os << "<h3>Gates</h3><ul>";
    for (const auto& [m, bad] : h.gates)
      os << "<li class=\"" << (bad ? "sev-error" : "ok") << "\">" << (bad ? "FAIL " : "pass ")
         << escape_html(m) << "</li>";
    os << "</ul>";
  }
  if (!h.transitions.empty()) {
    os << "<h3>Precision transitions</h3><ul>";
    for (const auto& t : h.transitions) os << "<li>" << escape_html(t) << "</li>";
    os << "</ul>";
  }
  os << "</section>\n";
}

// Kinds of change in the order that says most about a layer; the first one found colours it.
void mark(std::map<std::string, std::string>& status, const std::string& layer,
          const std::string& kind) {
  static const std::vector<std::string> kOrder = {"removed", "added",    "fusion", "precision",
                                                  "type",    "reformat", "format", "tactic",
                                                  "time",    "memory"};
  auto rank = [](const std::string& k) {
    auto it = std::find(kOrder.begin(), kOrder.end(), k);
    return it - kOrder.begin();
  };
  auto it = status.find(layer);
  if (it == status.end() || rank(kind) < rank(it->second)) status[layer] = kind;
}

void write_nav(const Capture& c, const Build& b, const ReportFigures& f, bool charts,
               std::ostream& os) {
  os << "<nav><a href=\"#headline\">at a glance</a>";
  if (charts) os << "<a href=\"#charts\">charts</a>";
  os << "<a href=\"#summary\">summary</a>";
  if (!c.findings.empty()) os << "<a href=\"#findings\">findings</a>";
  if (std::any_of(c.remarks.begin(), c.remarks.end(), [&](const Remark& r) {
        return r.kind == "missed" && (r.build < 0 || r.build == b.id);
      }))
    os << "<a href=\"#missed\">missed</a>";
  os << "<a href=\"#layers\">layers</a>";
  if (any_memory(b)) os << "<a href=\"#memory\">memory</a>";
  if (any_time(b)) os << "<a href=\"#time\">time</a>";
  bool onnx =
      !c.onnx.nodes.empty() || std::any_of(b.layers.begin(), b.layers.end(),
                                           [](const Layer& l) { return !l.onnx_nodes.empty(); });
  if (onnx) os << "<a href=\"#onnx\">ONNX</a>";
  if (!f.cards.empty()) os << "<a href=\"#card\">report card</a>";
  if (!f.kernel_family.empty()) os << "<a href=\"#kernels\">kernels</a>";
  if (!c.runs.empty()) os << "<a href=\"#environment\">environment</a>";
  os << "<a href=\"#graph\">graph</a></nav>\n";
}

}  // namespace

void write_html_report(const Capture& c, const Build& b, const ReportFigures& f, ReportOptions& o,
                       std::ostream& os) {
  // Time says most where profiled; otherwise precision (what a ticket usually asks about).
  if (o.dot.color_by == "type") o.dot.color_by = any_time(b) ? "time" : "precision";
  write_head(o.title, os);
  os << "<header><h1>" << escape_html(o.title) << "</h1></header>\n";
  std::ostringstream charts;
  write_charts_section(b, f, charts);
  write_nav(c, b, f, !charts.str().empty(), os);
  write_headline_section(c, b, f, os);
  os << charts.str();
  write_summary_section(c, b, os);
  write_findings_section(c, b, o, os);
  write_missed_section(c, "html", os, &b);
  write_layers_section(b, o, os);
  write_memory_section(b, o, os);
  write_time_section(b, o, os);
  write_card_section(b, f, o, os);
  write_kernels_section(b, f, o, os);
  write_onnx_section(c, b, o, os);
  write_environment_section(c, os);
  write_graph(b, o, "graph", os);
  os << "<footer><section><small>made by trtlens; self-contained, nothing fetched</small>"
        "</section></footer>\n<script>"
     << kScript << "</script>\n</body></html>\n";
}

void write_html_runs_report(const Capture& c, ReportOptions& o, std::ostream& os) {
  write_head(o.title, os);
  os << "<header><h1>" << escape_html(o.title) << "</h1></header>\n";
  os << "<section id=\"summary\"><h2>Summary</h2><dl class=\"kv\">";
  for (const auto& in : c.inputs)
    kv(os, "input", in.path + " (" + in.kind + ", " + std::to_string(in.lines) + " lines)");
  kv(os, "build", "no layer listing found");
  for (const auto& [k, v] : run_headline(c, 20)) kv(os, k, v);
  for (const auto& r : c.runs)
    for (const auto& p : r.perf)
      kv(os, p.metric + (p.stat.empty() ? "" : " " + p.stat), human_value(p.value, p.unit));
  os << "</dl></section>\n";
  if (!c.findings.empty()) {
    os << "<section id=\"findings\"><h2>Findings</h2><dl class=\"kv\">";
    for (const auto& f : c.findings)
      kv(os, std::string(to_string(f.severity)) + " " + f.id, f.message);
    os << "</dl></section>\n";
  }
  write_environment_section(c, os);
  os << "<footer><section><small>made by trtlens; self-contained, nothing fetched</small>"
        "</section></footer>\n</body></html>\n";
}

void write_html_diff(const Capture& a, const Build& ba, const Capture& b, const Build& bb,
                     const std::vector<DiffRow>& rows, ReportOptions& o, std::ostream& os,
                     const std::string& label_a, const std::string& label_b,
                     const DiffHeadline* headline) {
  write_head(o.title, os);
  os << "<header><h1>" << escape_html(o.title) << "</h1></header>\n"
     << "<nav><a href=\"#changes\">changes</a><a href=\"#graph-a\">graph " << escape_html(label_a)
     << "</a><a href=\"#graph-b\">graph " << escape_html(label_b) << "</a></nav>\n";
  if (headline) write_diff_headline(*headline, os);
  os << "<section><h2>" << escape_html(label_a) << "</h2></section>\n";
  write_summary_section(a, ba, os, "summary-a");
  os << "<section><h2>" << escape_html(label_b) << "</h2></section>\n";
  write_summary_section(b, bb, os, "summary-b");
  Table t{"changes",
          {"kind", escape_terminal(label_a), escape_terminal(label_b), "detail", "before", "after"},
          {}};
  DotOptions da = o.dot, db = o.dot;
  da.color_by = db.color_by = "diff";
  for (const auto& r : rows) {
    t.rows.push_back({{r.kind}, {r.layer_a}, {r.layer_b}, {r.detail}, {r.before}, {r.after}});
    bool removed = r.kind == "removed", added = r.kind == "added";
    if (!r.layer_a.empty() && !added) mark(da.diff_status, r.layer_a, removed ? "removed" : r.kind);
    if (!r.layer_b.empty() && !removed) mark(db.diff_status, r.layer_b, added ? "added" : r.kind);
  }
  os << "<section id=\"changes\"><h2>Changes (" << rows.size() << ")</h2>\n";
  write_table(t, o.max_rows, o.notes, os);
  os << "</section>\n";
  os << "<div class=\"pair\">";
  o.dot = da;
  write_graph(ba, o, "graph-a", os);
  o.dot = db;
  write_graph(bb, o, "graph-b", os);
  os << "</div>\n";
  os << "<script>" << kScript << "</script>\n</body></html>\n";
}

}  // namespace trtlens
