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

std::vector<const Build*> builds_of(const std::vector<SummaryView>& views) {
  std::vector<const Build*> out;
  for (const auto& v : views) out.push_back(v.build);
  return out;
}

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

std::string io_text(const std::vector<const Tensor*>& ts, const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) s += ", ";
    s += names[i];
    if (i < ts.size() && (ts[i]->has_dims || !ts[i]->dtype.empty()))
      s += " [" + format_tensor(*ts[i]) + "]";
  }
  return s;
}

}  // namespace

ojson summary_json(const Capture& c, const std::vector<SummaryView>& views) {
  // Inputs, findings and diagnostics exactly as `trtlens json` writes them.
  ojson whole = capture_json(c, {});
  ojson j;
  j["schema"] = "trtlens/1";
  j["inputs"] = whole["inputs"];
  j["builds"] = ojson::array();
  for (const auto& v : views) {
    const Build& b = *v.build;
    ojson jb;
    jb["id"] = b.id;
    jb["final"] = b.final;
    jb["source"] = {{"path", b.source.path}, {"line", b.source.line}};
    jb["kind"] = to_string(b.kind);
    jb["trt_version"] = b.trt_version.empty() ? ojson() : ojson(b.trt_version);
    jb["names_only"] = b.names_only;
    jb["layers"] = v.counts.layers;
    jb["reformats"] = v.counts.reformats;
    jb["types"] = counts_json(v.counts.types);
    jb["precisions"] = counts_json(v.counts.precisions);
    for (auto [key, ts, names] : {std::tuple{"inputs", &v.counts.inputs, &b.graph.inputs},
                                  std::tuple{"outputs", &v.counts.outputs, &b.graph.outputs}}) {
      jb[key] = ojson::array();
      for (size_t i = 0; i < names->size(); ++i)
        jb[key].push_back(i < ts->size() ? tensor_json(*(*ts)[i]) : ojson{{"name", (*names)[i]}});
    }
    jb["totals"] = totals_json(b.totals);
    jb["latency"] = latency_json(b.latency);
    if (!b.enriched_by.empty()) jb["enriched_by"] = b.enriched_by;
    j["builds"].push_back(std::move(jb));
  }
  j["findings"] = findings_json(findings_for(c, builds_of(views)));
  j["diagnostics"] = whole["diagnostics"];
  return j;
}

void write_summary_markdown(const Capture& c, const std::vector<SummaryView>& views,
                            std::ostream& os) {
  os << "# trtlens summary\n\n";
  for (const auto& in : c.inputs)
    os << "- input `" << escape_markdown(in.path) << "`: " << in.kind << (in.gzip ? " (gzip)" : "")
       << ", " << in.lines << " lines, " << in.unrecognized << " unrecognized\n";
  if (c.builds.empty()) os << "\nNo layer listing found.\n";
  for (const auto& v : views) {
    const Build& b = *v.build;
    const BuildTotals& t = b.totals;
    os << "\n## Build " << b.id << (b.final ? " (final)" : "") << "\n\n| | |\n| --- | --- |\n";
    auto row = [&](const char* k, const std::string& val) {
      if (!val.empty()) os << "| " << k << " | " << escape_markdown(val) << " |\n";
    };
    row("source", std::string(to_string(b.kind)) + " at " + b.source.path + ":" +
                      std::to_string(b.source.line));
    row("TensorRT", b.trt_version);
    row("layers",
        std::to_string(v.counts.layers) + " (" + std::to_string(v.counts.reformats) + " reformat)");
    if (t.running_layers && t.elided_layers)
      row("running / elided",
          std::to_string(*t.running_layers) + " / " + std::to_string(*t.elided_layers));
    row("types", counts_text(v.counts.types));
    row("output precision", counts_text(v.counts.precisions));
    row("inputs", io_text(v.counts.inputs, b.graph.inputs));
    row("outputs", io_text(v.counts.outputs, b.graph.outputs));
    if (t.weights_bytes) row("weights", human_bytes(t.weights_bytes));
    if (t.activation_io_bytes) row("activation I/O", human_bytes(t.activation_io_bytes));
    if (t.peak_activation_bytes) row("peak activation", human_bytes(t.peak_activation_bytes));
    if (t.reformat_bytes) row("reformat traffic", human_bytes(t.reformat_bytes));
    row("sum of layer times", ms(t.sum_layer_ms));
    if (b.latency.source != Latency::Source::None)
      row("latency (median)",
          ms(b.latency.median_ms) + " from " + to_string(b.latency.source) + " " + b.latency.from);
  }
  auto fs = findings_for(c, builds_of(views));
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
