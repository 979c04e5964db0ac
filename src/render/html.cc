#include "render/html.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "render/escape.h"
#include "render/graph_view.h"
#include "render/runs.h"
#include "render/svg.h"
#include "render/views.h"

namespace trtlens {
namespace {

struct Cell {
  Cell(std::string t, std::optional<double> v = std::nullopt) : text(std::move(t)), value(v) {}
  std::string text;
  std::optional<double> value;  // sort key for numeric columns
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
  return {std::to_string(*v), double(*v)};
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
)";

// Sorting (numbers by data-v) and filtering; no libraries.
const char* kScript = R"(
(function(){
  function key(td){var v=td.getAttribute('data-v');return v===null?null:parseFloat(v);}
  document.querySelectorAll('table.sortable').forEach(function(t){
    var ths=t.tHead.rows[0].cells;
    Array.prototype.forEach.call(ths,function(th,i){
      th.addEventListener('click',function(){
        var asc=th.getAttribute('aria-sort')!=='ascending';
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
     << t.id << "\">\n<table class=\"sortable\" id=\"table-" << t.id << "\"><thead><tr>";
  for (const auto& h : t.headers) os << "<th>" << escape_html(h) << "</th>";
  os << "</tr></thead><tbody>\n";
  size_t shown = std::min(t.rows.size(), max_rows);
  for (size_t r = 0; r < shown; ++r) {
    os << "<tr>";
    for (const auto& c : t.rows[r]) {
      if (c.value)
        os << "<td class=\"n\" data-v=\"" << fmt(*c.value, "%.9g") << "\">";
      else
        os << "<td>";
      os << escape_html(c.text) << "</td>";
    }
    os << "</tr>\n";
  }
  os << "</tbody></table>\n";
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
    return v ? std::to_string(*v) + " bytes" : std::string();
  };
  kv(os, "engine size", mib(m.engine_size_mib));
  kv(os, "context memory", mib(m.context_memory_mib));
  kv(os, "device persistent", byt(m.total_device_persistent));
  kv(os, "scratch", byt(m.total_scratch));
  kv(os, "activations", byt(m.total_activation));
  kv(os, "weights", byt(m.total_weights));
  for (const auto& r : c.runs)
    for (const auto& p : r.perf)
      kv(os, p.metric + (p.stat.empty() ? "" : " " + p.stat), fmt(p.value, "%.4g") + " " + p.unit);
  os << "</dl>";
  if (!c.diagnostics.empty())
    os << "<p class=\"note\">" << c.diagnostics.size()
       << " diagnostic(s) while reading the inputs (trtlens json lists them)</p>";
  os << "</section>\n";
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
  if (time) t.headers.insert(t.headers.end(), {"time ms", "time %"});
  if (mem) t.headers.insert(t.headers.end(), {"output bytes", "weight bytes"});
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
      row.push_back(num(layer_ms(l), "%.4f"));
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
  Table t{"memory",
          {"name", "input bytes", "weight bytes", "output bytes", "host persistent",
           "device persistent", "scratch"},
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
  Table t{"time", {"name", "type", "total ms", "average ms", "median ms", "%"}, {}};
  for (const Layer* l : by_time)
    t.rows.push_back({{l->name},
                      {l->type},
                      num(l->time.total_ms, "%.4f"),
                      num(l->time.average_ms, "%.4f"),
                      num(l->time.median_ms, "%.4f"),
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
      t.rows.push_back({{n.name}, {n.op}, {to_string(n.fate)}, {n.layer}, {n.precision}});
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

void write_nav(const Capture& c, const Build& b, std::ostream& os) {
  os << "<nav><a href=\"#summary\">summary</a>";
  if (!c.findings.empty()) os << "<a href=\"#findings\">findings</a>";
  os << "<a href=\"#layers\">layers</a>";
  if (any_memory(b)) os << "<a href=\"#memory\">memory</a>";
  if (any_time(b)) os << "<a href=\"#time\">time</a>";
  bool onnx =
      !c.onnx.nodes.empty() || std::any_of(b.layers.begin(), b.layers.end(),
                                           [](const Layer& l) { return !l.onnx_nodes.empty(); });
  if (onnx) os << "<a href=\"#onnx\">ONNX</a>";
  if (!c.runs.empty()) os << "<a href=\"#environment\">environment</a>";
  os << "<a href=\"#graph\">graph</a></nav>\n";
}

}  // namespace

void write_html_report(const Capture& c, const Build& b, ReportOptions& o, std::ostream& os) {
  // Time says most where profiled; otherwise precision (what a ticket usually asks about).
  if (o.dot.color_by == "type") o.dot.color_by = any_time(b) ? "time" : "precision";
  write_head(o.title, os);
  os << "<header><h1>" << escape_html(o.title) << "</h1></header>\n";
  write_nav(c, b, os);
  write_summary_section(c, b, os);
  write_findings_section(c, b, o, os);
  write_layers_section(b, o, os);
  write_memory_section(b, o, os);
  write_time_section(b, o, os);
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
      kv(os, p.metric + (p.stat.empty() ? "" : " " + p.stat), fmt(p.value, "%.4g") + " " + p.unit);
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
                     const std::string& label_a, const std::string& label_b) {
  write_head(o.title, os);
  os << "<header><h1>" << escape_html(o.title) << "</h1></header>\n"
     << "<nav><a href=\"#changes\">changes</a><a href=\"#graph-a\">graph " << escape_html(label_a)
     << "</a><a href=\"#graph-b\">graph " << escape_html(label_b) << "</a></nav>\n";
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
    if (!r.layer_a.empty() && !added) da.diff_status[r.layer_a] = removed ? "removed" : "changed";
    if (!r.layer_b.empty() && !removed) db.diff_status[r.layer_b] = added ? "added" : "changed";
  }
  os << "<section id=\"changes\"><h2>Changes (" << rows.size() << ")</h2>\n";
  write_table(t, o.max_rows, o.notes, os);
  os << "</section>\n";
  o.dot = da;
  write_graph(ba, o, "graph-a", os);
  o.dot = db;
  write_graph(bb, o, "graph-b", os);
  os << "<script>" << kScript << "</script>\n</body></html>\n";
}

}  // namespace trtlens
