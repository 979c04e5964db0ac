// What the finding rules share: a per-build view with tensor wiring and time shares, and
// small predicates over layers. Internal to analysis/findings*.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/capture.h"

namespace trtlens::findings {

// One build, indexed for the rules.
struct BuildView {
  BuildView(const Capture& capture, const Build& build);

  const Capture& capture;
  const Build& build;
  const RunInfo* run = nullptr;  // the trtexec run that made this build, when known
  std::unordered_map<std::string, int> producer;                // tensor -> layer
  std::unordered_map<std::string, std::vector<int>> consumers;  // tensor -> layers
  std::set<std::string> graph_inputs, graph_outputs;
  bool has_time = false;    // some layer has a time figure
  double total_avg_ms = 0;  // sum of per-layer average times

  // Share of profiled time in percent (the profile's own percentage when given).
  std::optional<double> share(int layer) const;
  std::optional<double> avg_ms(int layer) const;
};

Finding make_finding(const BuildView& v, const char* id, Severity severity, std::string message,
                     std::string hint);
void add_layer(Finding& f, const Layer& layer);  // name + its ONNX nodes
// The same for layers[i] of each i, the lists sized once (a finding over a whole build: growth
// by doubling held up to twice its names).
void add_layers(Finding& f, const std::vector<Layer>& layers, const std::vector<uint32_t>& which);

// Predicates over canonical values and layers.
bool is_float(const std::string& dtype);      // FP32 FP16 BF16
bool is_quantized(const std::string& dtype);  // INT8 FP8 INT4 FP4 UINT8
int precision_rank(
    const std::string& dtype);  // FP32 3, FP16/BF16 2, INT8/FP8 1, INT4/FP4 0, -1 other
std::optional<uint64_t> tensor_bytes(const Tensor& t);
std::string parameter_type(const Layer& l);  // JSON ParameterType, "" when absent
bool is_convolution(const Layer& l);
bool is_gemm(const Layer& l);
bool is_depthwise(const Layer& l);  // CudaDepthwiseConvolution or Groups == C
std::optional<int64_t> int_attribute(const Layer& l, const char* key);
bool is_qdq_layer(const Layer& l);    // Scale / Quantize / Dequantize
bool is_bookkeeping(const Layer& l);  // NoOp, Constant, shape_call, signal, wait
bool mentions_qdq(const Layer& l);    // Q/DQ node fused into the name or ONNX nodes
// The dtype a layer computes in: its first input with a float or quantized dtype.
std::string compute_dtype(const Layer& l);
std::string fmt(double v, int decimals = 2);

void reformat_rules(const BuildView& v, std::vector<Finding>& out);
void slice_rules(const BuildView& v, std::vector<Finding>& out);  // a Slice changing dtype
void precision_rules(const BuildView& v, std::vector<Finding>& out);
void quantization_rules(const BuildView& v, std::vector<Finding>& out);
void kernel_rules(const BuildView& v, std::vector<Finding>& out);
void time_rules(const BuildView& v, std::vector<Finding>& out);
void sanity_rules(const BuildView& v, std::vector<Finding>& out);
void capture_rules(const Capture& c, std::vector<Finding>& out);  // not tied to one build
void run_rules(const Capture& c, std::vector<Finding>& out);      // runs that did not pass

}  // namespace trtlens::findings
