#include "render/views.h"

#include "analysis/provenance.h"
#include "render/escape.h"
#include "render/findings.h"
#include "render/memory.h"
#include "render/profile.h"
#include "render/text_table.h"

namespace trtlens {

std::string format_dims(const Tensor& t) {
  if (!t.has_dims) return "?";
  if (t.dims.empty()) return "scalar";
  std::string s;
  for (size_t i = 0; i < t.dims.size(); ++i) {
    if (i) s += 'x';
    s += std::to_string(t.dims[i]);
    if (int(i) == t.vector_axis && t.vector_width) s += ":" + std::to_string(t.vector_width);
  }
  return s;
}

std::string format_tensor(const Tensor& t) {
  std::string dtype = t.dtype.empty() ? "?" : t.dtype;
  if (!t.has_dims && t.dtype.empty()) return t.name;
  return dtype + " " + format_dims(t);
}

namespace {

std::string tensor_list(const std::vector<Tensor>& ts) {
  std::string s;
  for (size_t i = 0; i < ts.size(); ++i) {
    if (i) s += ", ";
    s += ts[i].name;
    if (ts[i].has_dims || !ts[i].dtype.empty()) s += " [" + format_tensor(ts[i]) + "]";
  }
  return s;
}

}  // namespace

TextTable layers_table(const Build& b) {
  TextTable t;
  t.headers = {"#", "name", "type", "tactic", "precision", "inputs", "outputs"};
  t.right_align = {true, false, false, false, false, false, false};
  for (size_t i = 0; i < b.layers.size(); ++i) {
    const Layer& l = b.layers[i];
    std::string precision = l.outputs.empty() ? "" : l.outputs.front().dtype;
    t.rows.push_back({std::to_string(i), l.name, l.type, l.tactic.value_or(""), precision,
                      tensor_list(l.inputs), tensor_list(l.outputs)});
  }
  return t;
}

std::string format_layer_counts(const BuildTotals& t) {
  std::string s = std::to_string(t.layers) + (t.layers == 1 ? " layer" : " layers");
  if (!t.running_layers || !t.elided_layers || !t.reformat_layers)
    return s +
           " (which run, which are elided and which reformat is unknown: the listing has no "
           "layer types and no profile)";
  return s + ": " + std::to_string(*t.running_layers) + " run, " +
         std::to_string(*t.elided_layers) + " elided; " + std::to_string(*t.reformat_layers) +
         " reformat";
}

void write_diagnostics(const Capture& c, std::ostream& os, size_t limit) {
  if (c.diagnostics.empty()) return;
  auto write = [&](const Diagnostic& d) {
    os << "  " << paint_severity(d.severity) << ": " << escape_terminal(d.where.path);
    if (d.where.line) os << ':' << d.where.line;
    os << ": " << escape_terminal(d.message) << '\n';
  };
  os << "diagnostics: " << c.diagnostics.size() << '\n';
  for (size_t i = 0; i < c.diagnostics.size() && i < limit; ++i) write(c.diagnostics[i]);
  if (c.diagnostics.size() <= limit) return;
  os << "  ... " << c.diagnostics.size() - limit << " more (trtlens json shows them)\n";
  // Whole-file diagnostics past the limit still show (such as the count of those not kept).
  size_t shown = 0;
  for (size_t i = limit; i < c.diagnostics.size() && shown < limit; ++i)
    if (c.diagnostics[i].where.line == 0) {
      write(c.diagnostics[i]);
      ++shown;
    }
}

void write_summary(const Capture& c, const std::vector<const Build*>& builds, std::ostream& os) {
  for (const auto& in : c.inputs) {
    os << "input " << escape_terminal(in.path) << ": " << in.kind << (in.gzip ? " (gzip)" : "")
       << ", " << in.lines << " lines, " << in.unrecognized << " unrecognized\n";
  }
  if (c.builds.empty()) os << "no layer listing found\n";
  // Runs without a build (a failed build, a --loadEngine log): their figures and outcome.
  if (builds.empty() && !c.runs.empty()) {
    os << '\n';
    write_runs_summary(c, os);
  }
  for (const Build* b : builds) {
    const BuildCounts& s = b->counts;
    os << "\nbuild " << b->id << (b->final ? " (final)" : "") << ": " << to_string(b->kind)
       << " at " << escape_terminal(b->source.path) << ':' << b->source.line;
    if (!b->trt_version.empty()) os << ", TensorRT " << b->trt_version;
    os << '\n';
    os << "  " << format_layer_counts(b->totals);
    if (b->names_only) os << ", names only: rebuild with --profilingVerbosity=detailed for tensors";
    os << '\n';
    os << "  types:";
    for (const auto& [type, n] : s.types) os << ' ' << escape_terminal(type) << '=' << n;
    os << '\n';
    if (!s.precisions.empty()) {
      os << "  output precision:";
      for (const auto& [p, n] : s.precisions) os << ' ' << escape_terminal(p) << '=' << n;
      os << '\n';
    }
    auto io = [&](const char* label, const std::vector<Tensor>& ts) {
      os << "  " << label << ':';
      if (ts.empty()) os << " (none known)";
      for (size_t i = 0; i < ts.size(); ++i) {
        os << (i ? ", " : " ") << escape_terminal(ts[i].name);
        if (ts[i].has_dims || !ts[i].dtype.empty())
          os << " [" << escape_terminal(format_tensor(ts[i])) << ']';
      }
      os << '\n';
    };
    io("inputs", s.inputs);
    io("outputs", s.outputs);
    write_memory_summary(*b, os);

    write_time_summary(*b, os);
    if (b == builds.back()) write_runs_summary(c, os);

    if (b->final && (!c.onnx.nodes.empty() || !c.onnx.layer_counts.empty()))
      os << "  provenance: " << escape_terminal(c.onnx.counts.headline) << '\n';

    if (!b->enriched_by.empty()) {
      os << "  enriched by:";
      for (const auto& e : b->enriched_by) os << ' ' << escape_terminal(e);
      os << '\n';
    }
  }
  write_findings_brief(findings_for(c, builds), os);

  write_diagnostics(c, os);
}

}  // namespace trtlens
