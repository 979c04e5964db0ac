// Figures the report shows at a glance (headline, chart series) and TREx's convolution / GEMM
// report card, computed once here so the HTML and Markdown reports print the same numbers.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/capture.h"

namespace trtlens {

// One layer's share of the summed layer time.
struct LayerShare {
  size_t layer = 0;  // index into Build::layers
  double ms = 0;
  double share_percent = 0;  // of Build::totals.sum_layer_ms
};

// Layers grouped by one key (precision, type x precision, kernel family).
struct Group {
  std::string key, sub;  // sub: the precision of a type x precision cell
  size_t count = 0;
  double ms = 0;
};

// TREx's implicit-GEMM view of a convolution (trex/df_preprocessing.py annotate_convolutions),
// extended to deconvolution and matrix multiply / fully connected.
struct ConvCard {
  size_t layer = 0;
  std::string kind;  // "Convolution", "Deconvolution", "MatrixMultiply", "FullyConnected"
  int64_t n = 0, c = 0, h = 0, w = 0, k = 0, p = 0, q = 0, r = 1, s = 1, groups = 1;
  double macs = 0;
  double input_bytes = 0, weight_bytes = 0, output_bytes = 0, bytes = 0;
  double intensity = 0;  // MACs per byte, as TREx
  int64_t gemm_m = 0, gemm_n = 0, gemm_k = 0;
  std::optional<double> ms;                 // the layer's average time
  std::optional<double> tflops, gbps;       // achieved: 2 x MACs and bytes over the time
  std::optional<double> bandwidth_percent;  // gbps against the device's peak memory bandwidth
  // The compute roofline, where the device is known: the precision the math runs in (the
  // input's; FP32 run by a tf32 kernel counts as TF32), its peak, the achieved share of it and
  // which roof the layer sits under (MACs per byte against the device's ridge point).
  std::string math;
  std::optional<double> peak_tflops, tflops_percent;
  std::string bound;  // "compute", "memory" or "" when the device is unknown
};

// The device a run reports and its dense peak rates (public architecture figures scaled by the
// SM count and clock trtexec printed).
struct DevicePeaks {
  std::string name, compute_capability;
  std::optional<double> sms, clock_ghz;
  std::optional<double> gbps;            // 2 x memory clock x bus width (DDR), GB/s
  std::map<std::string, double> tflops;  // by math precision: FP32, TF32, FP16, BF16, INT8, FP8
  std::map<std::string, double> ridge;   // MACs per byte where the roofs meet, by precision
  std::string note;                      // why a roofline is missing, when it is
};

// Per-query latency of the run's --exportTimes trace (for the chart).
struct LatencySeries {
  std::vector<double> ms;
  double p50 = 0, p99 = 0;
  std::string from;
};

struct PointwiseOps {
  size_t layer = 0;
  std::vector<std::string> ops;
  std::string from;  // "operations" (layer JSON) or "ONNX nodes" (what a log listing gives)
};

struct ReportFigures {
  std::optional<double> throughput_qps;
  std::string throughput_from;
  std::optional<uint64_t> device_persistent, host_persistent, scratch;  // TensorRT's figures
  std::vector<LayerShare> top;                                          // top 3 by time
  std::vector<LayerShare> by_time;      // every timed layer, largest first
  std::vector<Group> precision;         // by output precision: count and time
  std::vector<Group> type_precision;    // time by layer type x output precision
  std::vector<Group> kernel_family;     // time by tactic / kernel family
  std::map<Severity, size_t> findings;  // findings of this build by severity
  std::vector<ConvCard> cards;
  std::vector<PointwiseOps> pointwise;
  std::optional<LatencySeries> latency_series;
  DevicePeaks device;
};

// Dense multiply-accumulates per SM per clock of compute capability `sm` (80 for 8.0) in a
// math precision; nullopt when trtlens has no public figure for the pair.
std::optional<double> macs_per_sm_clock(int sm, const std::string& math);

// The device of the build's run (else of any run) with its peaks; empty when none is known.
DevicePeaks device_peaks(const Capture& capture, const Build& build);

// The kernel family of a tactic name: "cutlass", "xmma", "cudnn", "myelin", ... ("TensorRT"
// for layers with no tactic name).
std::string kernel_family(const Layer& layer);

ReportFigures report_figures(const Capture& capture, const Build& build);

}  // namespace trtlens
