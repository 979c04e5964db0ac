#include "render/summary.h"

#include <cstdio>

#include "render/escape.h"
#include "render/findings.h"
#include "render/json.h"
#include "render/memory.h"
#include "render/views.h"

namespace trtlens {
namespace {

using ojson = nlohmann::ordered_json;

ojson counts_json(const std::vector<std::pair<std::string, size_t>>& counts) {
  ojson j = ojson::object();
  for (const auto& [k, n] : counts) j[k] = n;
  return j;
}

std::string ms(std::optional<double> v) {
  if (!v) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", *v);
  return buf;
}

std::string counts_text(const std::vector<std::pair<std::string, size_t>>& counts) {
  std::string s;
  for (const auto& [k, n] : counts) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(n);
  return s;
}

std::string io_text(const std::vector<Tensor>& ts, const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) s += ", ";
    s += names[i];
    if (i < ts.size() && (ts[i].has_dims || !ts[i].dtype.empty()))
      s += " [" + format_tensor(ts[i]) + "]";
  }
  return s;
}

}  // namespace

ojson summary_json(const Capture& c, const std::vector<const Build*>& views) {
  // Inputs, findings and diagnostics exactly as `trtlens json` writes them.
  ojson whole = capture_json(c, {});
  ojson j;
  j["schema"] = "trtlens/1";
  j["inputs"] = whole["inputs"];
  j["builds"] = ojson::array();
  for (const Build* v : views) {
    const Build& b = *v;
    ojson jb;
    jb["id"] = b.id;
    jb["final"] = b.final;
    jb["source"] = {{"path", b.source.path}, {"line", b.source.line}};
    jb["kind"] = to_string(b.kind);
    jb["trt_version"] = b.trt_version.empty() ? ojson() : ojson(b.trt_version);
    jb["names_only"] = b.names_only;
    jb["layers"] = b.layers.size();
    jb["reformats"] = b.totals.reformat_layers ? ojson(*b.totals.reformat_layers) : ojson();
    jb["types"] = counts_json(b.counts.types);
    jb["precisions"] = counts_json(b.counts.precisions);
    for (auto [key, ts, names] : {std::tuple{"inputs", &b.counts.inputs, &b.graph.inputs},
                                  std::tuple{"outputs", &b.counts.outputs, &b.graph.outputs}}) {
      jb[key] = ojson::array();
      for (size_t i = 0; i < names->size(); ++i)
        jb[key].push_back(i < ts->size() ? tensor_json((*ts)[i]) : ojson{{"name", (*names)[i]}});
    }
    jb["totals"] = totals_json(b.totals);
    jb["latency"] = latency_json(b.latency);
    if (b.memory.tensors_dims_unknown) {  // shapes were given
      const auto& m = b.memory;
      jb["dynamic_dims"] = {
          {"from_onnx", m.tensors_dims_from_onnx ? ojson(*m.tensors_dims_from_onnx) : ojson()},
          {"unknown", *m.tensors_dims_unknown}};
    }
    if (!b.enriched_by.empty()) jb["enriched_by"] = b.enriched_by;
    j["builds"].push_back(std::move(jb));
  }
  j["findings"] = findings_json(findings_for(c, views));
  j["diagnostics"] = whole["diagnostics"];
  return j;
}

void write_summary_markdown(const Capture& c, const std::vector<const Build*>& views,
                            std::ostream& os) {
  os << "# trtlens summary\n\n";
  for (const auto& in : c.inputs)
    os << "- input `" << escape_markdown(in.path) << "`: " << in.kind << (in.gzip ? " (gzip)" : "")
       << ", " << in.lines << " lines, " << in.unrecognized << " unrecognized\n";
  if (c.builds.empty()) os << "\nNo layer listing found.\n";
  for (const Build* v : views) {
    const Build& b = *v;
    const BuildTotals& t = b.totals;
    os << "\n## Build " << b.id << (b.final ? " (final)" : "") << "\n\n| | |\n| --- | --- |\n";
    auto row = [&](const char* k, const std::string& val) {
      if (!val.empty()) os << "| " << k << " | " << escape_markdown(val) << " |\n";
    };
    row("source", std::string(to_string(b.kind)) + " at " + b.source.path + ":" +
                      std::to_string(b.source.line));
    row("TensorRT", b.trt_version);
    row("layers", format_layer_counts(t));
    row("types", counts_text(b.counts.types));
    row("output precision", counts_text(b.counts.precisions));
    row("inputs", io_text(b.counts.inputs, b.graph.inputs));
    row("outputs", io_text(b.counts.outputs, b.graph.outputs));
    if (t.weights_bytes) row("weights", human_bytes(t.weights_bytes));
    if (t.activation_io_bytes) row("activation I/O", human_bytes(t.activation_io_bytes));
    if (t.peak_activation_bytes) row("peak activation", human_bytes(t.peak_activation_bytes));
    if (t.reformat_bytes) row("reformat traffic", human_bytes(t.reformat_bytes));
    row("sum of layer times", ms(t.sum_layer_ms));
    if (b.latency.source != Latency::Source::None)
      row("latency (median)",
          ms(b.latency.median_ms) + " from " + to_string(b.latency.source) + " " + b.latency.from);
  }
  auto fs = findings_for(c, views);
  if (!fs.empty()) {
    os << '\n';
    write_findings_markdown(fs, os);  // under its own "## Findings" heading
  }
  if (!c.diagnostics.empty()) {
    os << "\n## Diagnostics\n\n";
    for (const auto& d : c.diagnostics) {
      os << "- " << to_string(d.severity) << ": `" << escape_markdown(d.where.path);
      if (d.where.line) os << ':' << d.where.line;
      os << "`: " << escape_markdown(d.message) << '\n';
    }
  }
}

}  // namespace trtlens
