#include "analysis/findings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <unordered_set>

#include "analysis/findings/rules.h"
#include "analysis/summary.h"
#include "model/parallel.h"
#include "model/values.h"

namespace trtlens {

const std::vector<FindingRule>& finding_rules() {
  static const std::vector<FindingRule> rules = {
      {"reformat-qdq", "reformat",
       "Reformat layers that TensorRT made from Q/DQ nodes (Origin QDQ): count, bytes, time"},
      {"reformat-io", "reformat",
       "Reformat layers converting a graph input or output: count, bytes, time"},
      {"reformat-precision", "reformat",
       "Reformat layers changing precision between two layers: count, bytes, time"},
      {"reformat-layout", "reformat",
       "Reformat layers changing only layout/vectorisation: count, bytes, time"},
      {"slice-dtype", "reformat", "Slice layer whose output data type differs from its input's"},
      {"precision-island", "precision",
       "Layers running at FP32 in a build that allows a lower precision, with the likely reason"},
      {"qdq-unfused", "quantization",
       "Standalone Scale/Quantize/Dequantize layer with a quantized type on one side only"},
      {"qdq-float-op", "quantization",
       "Layer with a Q/DQ node fused in that still computes in float"},
      {"int8-float-output", "quantization", "INT8 convolution/GEMM whose output is float"},
      {"channels-unaligned", "kernels",
       "Convolution channels not a multiple of 16 (INT8/FP8) or 8 (FP16/BF16); depthwise excluded"},
      {"no-tensor-core", "kernels",
       "Non-FP32 convolution/GEMM whose kernel name shows no tensor-core kernel"},
      {"hot-layer", "time", "One layer takes 10% or more of the profiled time"},
      {"myelin-share", "time", "Share of time spent in Myelin / ForeignNode layers"},
      {"tiny-layers", "time", "Many layers under 0.5% each that add up to 20% or more"},
      {"shape-copy-share", "time", "Shuffle/shape/cast/copy/slice/concat layers take 10% or more"},
      {"layer-sum-overhead", "time", "Per-layer times sum far above the engine's GPU compute time"},
      {"aux-streams", "time", "Layers on auxiliary streams: per-layer sums are unreliable"},
      {"profile-one-iteration", "sanity", "The profile covers a single iteration"},
      {"profile-percent-sum", "sanity", "Profile percentages do not add up to about 100"},
      {"profile-unmatched", "sanity", "Profile rows that match no layer of the build"},
      {"ambiguous-final-build", "sanity",
       "Several builds in the inputs; which one is final is a guess"},
      {"names-only", "sanity",
       "Layer listing without tensors: rebuild with --profilingVerbosity=detailed"},
      {"run-not-passed", "sanity",
       "A run that failed, crashed, timed out, was cut, or has not finished, with its errors"},
  };
  return rules;
}

bool is_finding_id(std::string_view id) {
  for (const auto& r : finding_rules())
    if (id == r.id) return true;
  return false;
}

std::optional<Severity> parse_severity(std::string_view text) {
  if (text == "info") return Severity::Info;
  if (text == "warning") return Severity::Warning;
  if (text == "error") return Severity::Error;
  return std::nullopt;
}

namespace {

bool ignored(const std::string& id, const std::vector<std::string>& ignore) {
  for (const auto& pattern : ignore) {
    if (!pattern.empty() && pattern.back() == '*') {
      if (id.compare(0, pattern.size() - 1, pattern, 0, pattern.size() - 1) == 0) return true;
    } else if (id == pattern) {
      return true;
    }
  }
  return false;
}

int rule_order(const std::string& id) {
  const auto& rules = finding_rules();
  for (size_t i = 0; i < rules.size(); ++i)
    if (id == rules[i].id) return int(i);
  return int(rules.size());
}

}  // namespace

namespace {

// Keeps the first of each name, in order.
// Through positions sorted by name, then compacted in place: a finding over a whole build lists
// every layer and its nodes, and a set of them (or a second list) was a tenth of a large
// profile's peak.
void unique_names(std::vector<std::string>& names) {
  std::vector<uint32_t> order(names.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = uint32_t(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return names[a] < names[b]; });
  std::vector<bool> dup(names.size());
  for (size_t i = 1; i < order.size(); ++i)
    if (names[order[i]] == names[order[i - 1]]) dup[order[i]] = true;  // a later equal name
  size_t kept = 0;
  for (size_t i = 0; i < names.size(); ++i)
    if (!dup[i]) {
      if (kept != i) names[kept] = std::move(names[i]);
      ++kept;
    }
  names.resize(kept);
}

}  // namespace

std::vector<Finding> run_findings(const Capture& capture, const std::vector<std::string>& ignore,
                                  unsigned threads, const std::vector<bool>& only) {
  using namespace findings;
  std::vector<Finding> out;
  capture_rules(capture, out);
  run_rules(capture, out);
  std::vector<std::vector<Finding>> of_build(capture.builds.size());
  capture.onnx.index();  // built here: the builds' threads only read it
  parallel_for(capture.builds.size(), threads, [&](size_t i) {
    if (!only.empty() && !only[i]) return;
    BuildView v(capture, capture.builds[i]);
    std::vector<Finding>& found = of_build[i];
    sanity_rules(v, found);
    reformat_rules(v, found);
    slice_rules(v, found);
    precision_rules(v, found);
    quantization_rules(v, found);
    kernel_rules(v, found);
    time_rules(v, found);
  });
  for (auto& found : of_build)
    out.insert(out.end(), std::make_move_iterator(found.begin()),
               std::make_move_iterator(found.end()));
  std::erase_if(out, [&](const Finding& f) { return ignored(f.id, ignore); });
  for (Finding& f : out) {
    unique_names(f.layers);
    unique_names(f.onnx_nodes);
  }
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    if (a.build != b.build) return a.build < b.build;
    if (a.severity != b.severity) return int(a.severity) > int(b.severity);
    return rule_order(a.id) < rule_order(b.id);
  });
  return out;
}

namespace findings {

BuildView::BuildView(const Capture& c, const Build& b) : capture(c), build(b) {
  for (size_t i = 0; i < b.layers.size(); ++i) {
    const Layer& l = b.layers[i];
    for (const auto& t : l.outputs) producer.emplace(t.name, int(i));
    for (const auto& t : l.inputs) consumers[t.name].push_back(int(i));
    if (l.time.average_ms || l.time.total_ms || l.time.percentage) has_time = true;
    if (l.time.average_ms) total_avg_ms += *l.time.average_ms;
  }
  graph_inputs.insert(b.graph.inputs.begin(), b.graph.inputs.end());
  graph_outputs.insert(b.graph.outputs.begin(), b.graph.outputs.end());
  // The run of this build: the run of its file with the same trtexec run index.
  std::vector<const RunInfo*> same_file;
  for (const auto& r : c.runs)
    if (r.path == b.source.path && r.build_run == b.run) same_file.push_back(&r);
  if (!same_file.empty())
    run = same_file.front();
  else if (c.runs.size() == 1)
    run = &c.runs.front();
}

std::optional<double> BuildView::share(int i) const {
  const LayerTime& t = build.layers[size_t(i)].time;
  if (t.percentage) return t.percentage;
  if (t.average_ms && total_avg_ms > 0) return *t.average_ms / total_avg_ms * 100.0;
  return std::nullopt;
}

std::optional<double> BuildView::avg_ms(int i) const {
  return build.layers[size_t(i)].time.average_ms;
}

Finding make_finding(const BuildView& v, const char* id, Severity severity, std::string message,
                     std::string hint) {
  Finding f;
  f.id = id;
  f.severity = severity;
  f.build = v.build.id;
  f.message = std::move(message);
  f.hint = std::move(hint);
  return f;
}

// Duplicates are removed once, after the rules (unique_names): a scan per added layer made
// findings over whole builds quadratic.
void add_layer(Finding& f, const Layer& layer) {
  f.layers.push_back(layer.name);
  f.onnx_nodes.insert(f.onnx_nodes.end(), layer.onnx_nodes.begin(), layer.onnx_nodes.end());
}

void add_layers(Finding& f, const std::vector<Layer>& layers, const std::vector<uint32_t>& which) {
  size_t nodes = f.onnx_nodes.size();
  for (uint32_t i : which) nodes += layers[i].onnx_nodes.size();
  f.layers.reserve(f.layers.size() + which.size());
  f.onnx_nodes.reserve(nodes);
  for (uint32_t i : which) add_layer(f, layers[i]);
}

bool is_float(const std::string& d) { return d == "FP32" || d == "FP16" || d == "BF16"; }

bool is_quantized(const std::string& d) {
  return d == "INT8" || d == "FP8" || d == "INT4" || d == "FP4" || d == "UINT8";
}

int precision_rank(const std::string& d) {
  if (d == "FP32") return 3;
  if (d == "FP16" || d == "BF16") return 2;
  if (d == "INT8" || d == "FP8" || d == "UINT8") return 1;
  if (d == "INT4" || d == "FP4") return 0;
  return -1;
}

std::optional<uint64_t> tensor_bytes(const Tensor& t) {
  if (!t.has_dims) return std::nullopt;
  auto bits = dtype_bits(t.dtype);
  if (!bits) return std::nullopt;
  uint64_t n = 1;
  for (int64_t d : t.dims) {
    if (d < 0) return std::nullopt;
    n *= uint64_t(d);
  }
  return (n * uint64_t(*bits) + 7) / 8;
}

std::string parameter_type(const Layer& l) { return l.attributes.string("ParameterType"); }

bool is_convolution(const Layer& l) {
  std::string p = parameter_type(l);
  if (!p.empty()) return p == "Convolution" || p == "Deconvolution" || p == "ConvActPool";
  return l.type.str().find("Convolution") != std::string::npos;
}

bool is_gemm(const Layer& l) {
  std::string p = parameter_type(l);
  return p == "MatrixMultiply" || p == "FullyConnected" || l.type == "gemm" ||
         l.type == "CublasMatrixMultiply" || l.type == "MatrixMultiply";
}

std::optional<int64_t> int_attribute(const Layer& l, const char* key) {
  return l.attributes.integer(key);
}

bool is_depthwise(const Layer& l) {
  if (l.type.str().find("Depthwise") != std::string::npos) return true;
  auto groups = int_attribute(l, "Groups");
  if (!groups) groups = int_attribute(l, "ConvGroups");
  if (!groups || *groups <= 1 || l.inputs.empty() || l.inputs[0].dims.size() < 2) return false;
  return *groups == l.inputs[0].dims[1];
}

// These run per layer and rule: string_view compares the sizes first, where comparing a string
// with a C string called memcmp for every candidate.
bool is_qdq_layer(const Layer& l) {
  const std::string p = parameter_type(l);
  for (std::string_view t : {"Scale", "Quantize", "Dequantize"})
    if (std::string_view(l.type) == t || std::string_view(p) == t) return true;
  return false;
}

bool is_bookkeeping(const Layer& l) {
  const std::string_view t = l.type;
  return t == "NoOp" || t == "Constant" || t == "shape_call" || t == "signal" || t == "wait";
}

namespace {
bool names_qdq(const std::string& s) {
  return s.find("QuantizeLinear") != std::string::npos ||
         s.find("DequantizeLinear") != std::string::npos ||
         s.find("quantize_linear") != std::string::npos ||
         s.find("_quantizer") != std::string::npos;
}
}  // namespace

bool mentions_qdq(const Layer& l) {
  if (names_qdq(l.name)) return true;
  for (const auto& n : l.onnx_nodes)
    if (names_qdq(n)) return true;
  return false;
}

std::string compute_dtype(const Layer& l) {
  for (const auto& t : l.inputs)
    if (precision_rank(t.dtype) >= 0) return t.dtype;
  for (const auto& t : l.outputs)
    if (precision_rank(t.dtype) >= 0) return t.dtype;
  return "";
}

std::string fmt(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace findings
}  // namespace trtlens
