#include "analysis/report.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

#include "analysis/time.h"
#include "model/values.h"

namespace trtlens {
namespace {

std::string attr_string(const Layer& l, const char* key) { return l.attributes.string(key); }

std::optional<int64_t> attr_int(const Layer& l, const char* key) {
  auto v = l.attributes.get(key);
  if (!v || !v->is_number()) return std::nullopt;
  return v->get<int64_t>();
}

double elem_bytes(const Tensor& t) {
  auto bits = dtype_bits(t.dtype);
  return bits ? *bits / 8.0 : 0.0;
}

double volume(const std::vector<int64_t>& d) {
  double v = 1;
  for (int64_t x : d) v *= double(x);
  return v;
}

// The kernel window [R, S] (2-D) or its product over more dimensions, folded into r and s.
bool kernel(const Layer& l, int64_t& r, int64_t& s) {
  auto it = l.attributes.get("Kernel");
  if (!it || !it->is_array() || it->empty()) return false;
  std::vector<int64_t> k;
  for (const auto& v : *it) {
    if (!v.is_number_integer() || v.get<int64_t>() <= 0) return false;
    k.push_back(v.get<int64_t>());
  }
  r = k[0];
  s = 1;
  for (size_t i = 1; i < k.size(); ++i) s *= k[i];
  return true;
}

void finish(ConvCard& cc, const Layer& l) {
  cc.bytes = cc.input_bytes + cc.weight_bytes + cc.output_bytes;
  cc.intensity = cc.bytes > 0 ? cc.macs / cc.bytes : 0;
  if (l.time.average_ms && *l.time.average_ms > 0) {
    cc.ms = l.time.average_ms;
    double s = *l.time.average_ms / 1e3;
    cc.tflops = 2 * cc.macs / s / 1e12;
    cc.gbps = cc.bytes / s / 1e9;
  }
}

// NCHW convolution and deconvolution with TREx's formulas: weights sized by the input's element
// size, MACs = N*K*P*Q*C*R*S/G, implicit GEMM M = N*P*Q, N = K, K = C*R*S.
std::optional<ConvCard> conv_card(const Layer& l, const std::string& kind) {
  if (l.inputs.empty() || l.outputs.empty()) return std::nullopt;
  const Tensor& in = l.inputs[0];
  const Tensor& out = l.outputs[0];
  if (in.dims.size() != 4 || out.dims.size() != 4) return std::nullopt;
  ConvCard cc;
  cc.kind = kind;
  if (!kernel(l, cc.r, cc.s)) return std::nullopt;
  cc.groups = std::max<int64_t>(1, attr_int(l, "Groups").value_or(1));
  cc.n = in.dims[0], cc.c = in.dims[1], cc.h = in.dims[2], cc.w = in.dims[3];
  cc.k = out.dims[1], cc.p = out.dims[2], cc.q = out.dims[3];
  double g = double(cc.groups);
  double weights_vol = double(cc.k) * cc.c * cc.r * cc.s / g;
  cc.input_bytes = volume(in.dims) * elem_bytes(in);
  cc.output_bytes = volume(out.dims) * elem_bytes(out);
  cc.weight_bytes = weights_vol * elem_bytes(in);
  if (kind == "Deconvolution")  // every input element meets every kernel tap of its group
    cc.macs = double(cc.n) * cc.c * cc.h * cc.w * cc.k * cc.r * cc.s / g;
  else
    cc.macs = double(cc.n) * cc.k * cc.p * cc.q * cc.c * cc.r * cc.s / g;
  cc.gemm_m = cc.n * cc.p * cc.q;
  cc.gemm_n = cc.k;
  cc.gemm_k = cc.c * cc.r * cc.s;
  finish(cc, l);
  return cc;
}

// A x B = C with C = [batch..., M, N]; K is the dimension of A that is not M.
std::optional<ConvCard> gemm_card(const Layer& l, const std::string& kind) {
  if (l.inputs.size() < 2 || l.outputs.empty()) return std::nullopt;
  const Tensor& a = l.inputs[0];
  const Tensor& b = l.inputs[1];
  const Tensor& out = l.outputs[0];
  if (a.dims.size() < 2 || b.dims.size() < 2 || out.dims.size() < 2) return std::nullopt;
  ConvCard cc;
  cc.kind = kind;
  int64_t m = out.dims[out.dims.size() - 2], n = out.dims.back();
  int64_t a_last = a.dims.back(), a_prev = a.dims[a.dims.size() - 2];
  int64_t k = a_prev == m ? a_last : a_prev;
  double batch = volume(out.dims) / (double(m) * n);
  cc.n = int64_t(batch);
  cc.macs = batch * m * n * k;
  cc.input_bytes = (volume(a.dims) * elem_bytes(a)) + 0;
  cc.weight_bytes = volume(b.dims) * elem_bytes(b);
  cc.output_bytes = volume(out.dims) * elem_bytes(out);
  cc.gemm_m = int64_t(batch) * m;
  cc.gemm_n = n;
  cc.gemm_k = k;
  finish(cc, l);
  return cc;
}

std::string lower(std::string s) {
  for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// The leading number of a device line's value ("7.001 GHz", "192 bits (ECC disabled)").
std::optional<double> leading_number(const KeyValues& kv, const char* key) {
  for (const auto& [k, v] : kv)
    if (k == key) {
      char* end = nullptr;
      double d = std::strtod(v.c_str(), &end);
      if (end != v.c_str() && d > 0) return d;
    }
  return std::nullopt;
}

std::string value_of(const KeyValues& kv, const char* key) {
  for (const auto& [k, v] : kv)
    if (k == key) return v;
  return {};
}

// Peak DRAM bandwidth of the device a run reports: 2 transfers per memory clock (DDR) times the
// bus width in bytes.
std::optional<double> peak_gbps(const RunInfo& r) {
  auto clock_ghz = leading_number(r.device, "Application Memory Clock Rate");
  if (!clock_ghz) clock_ghz = leading_number(r.device, "Memory Clock Rate");
  auto bus_bits = leading_number(r.device, "Memory Bus Width");
  if (!clock_ghz || !bus_bits) return std::nullopt;
  return 2 * *clock_ghz * *bus_bits / 8;
}

// "8.6" -> 86; nullopt for anything else.
std::optional<int> sm_version(const std::string& cc) {
  int major = 0, minor = 0;
  char dot = 0;
  std::istringstream in(cc);
  if (!(in >> major >> dot >> minor) || dot != '.' || major <= 0 || minor < 0 || minor > 9)
    return std::nullopt;
  return major * 10 + minor;
}

// The precision a convolution or GEMM multiplies in: its input's, except that FP32 run by a
// TF32 tensor-core kernel (TensorRT allows TF32 by default on Ampere and later) is TF32.
std::string math_precision(const Layer& l) {
  if (l.inputs.empty()) return {};
  std::string p = l.inputs[0].dtype;
  if (p == "FP32" && lower(l.tactic_name).find("tf32") != std::string::npos) return "TF32";
  return p;
}

// Where the layer sits against the device's roofline: its MACs per byte against the ridge point
// (peak MACs per second over peak bytes per second) of its math precision.
void roofline(ConvCard& cc, const Layer& l, const DevicePeaks& d) {
  cc.math = math_precision(l);
  auto it = d.tflops.find(cc.math);
  if (it == d.tflops.end()) return;
  cc.peak_tflops = it->second;
  if (cc.tflops) cc.tflops_percent = *cc.tflops / it->second * 100;
  auto ridge = d.ridge.find(cc.math);
  if (ridge != d.ridge.end()) cc.bound = cc.intensity >= ridge->second ? "compute" : "memory";
}

}  // namespace

std::string kernel_family(const Layer& l) {
  std::string t = lower(l.tactic_name);
  if (t.empty()) return l.type.empty() ? "TensorRT" : l.type;
  static const std::pair<const char*, const char*> kFamilies[] = {
      {"cutlass", "cutlass"}, {"xmma", "xmma"},   {"cudnn", "cudnn"},  {"cublas", "cublas"},
      {"myelin", "myelin"},   {"kgen", "myelin"}, {"__myl", "myelin"}, {"flash", "flash attention"},
      {"cask", "cask"},       {"gemm", "gemm"},   {"conv", "conv"},
  };
  for (const auto& [needle, family] : kFamilies)
    if (t.find(needle) != std::string::npos) return family;
  return "other";
}

std::optional<double> macs_per_sm_clock(int sm, const std::string& math) {
  // Dense multiply-accumulates per SM per clock, from NVIDIA's architecture whitepapers and
  // datasheets (peak TFLOPS / (SMs x boost clock x 2)). Tensor-core rates are the full ones
  // (professional parts, FP16 with FP16 accumulation): an upper bound for every part.
  struct Rate {
    int sm;
    const char* math;
    double macs;
  };
  static const Rate kRates[] = {
      // Volta whitepaper: 64 FP32 cores and 8 tensor cores x 64 FP16 FMA per SM.
      {70, "FP32", 64},
      {70, "FP16", 512},
      // Jetson AGX Xavier (Volta SM): 11 FP16 TFLOPS, 22 INT8 TOPS on 8 SMs at 1.377 GHz.
      {72, "FP32", 64},
      {72, "FP16", 512},
      {72, "INT8", 1024},
      // Turing whitepaper: 64 FP32 cores, 8 tensor cores x 64 FP16 FMA, INT8 twice FP16
      // (T4: 65 FP16 TFLOPS, 130 INT8 TOPS on 40 SMs at 1.59 GHz).
      {75, "FP32", 64},
      {75, "FP16", 512},
      {75, "INT8", 1024},
      // A100 whitepaper: 64 FP32 cores, 4 tensor cores x 256 FP16 FMA (312 FP16/BF16, 156 TF32,
      // 624 INT8 dense TFLOPS on 108 SMs at 1.41 GHz).
      {80, "FP32", 64},
      {80, "TF32", 512},
      {80, "FP16", 1024},
      {80, "BF16", 1024},
      {80, "INT8", 2048},
      // GA102 whitepaper: 128 FP32 cores, 4 tensor cores x 128 FP16 FMA (A40: 74.8 TF32, 149.7
      // FP16/BF16, 299 INT8 dense TFLOPS on 84 SMs at 1.74 GHz).
      {86, "FP32", 128},
      {86, "TF32", 256},
      {86, "FP16", 512},
      {86, "BF16", 512},
      {86, "INT8", 1024},
      // Jetson AGX Orin technical brief: 2048 CUDA cores and 64 tensor cores in 16 SMs at
      // 1.3 GHz, 5.3 FP32 TFLOPS, 170 sparse (85 dense) INT8 TOPS; FP16 half of INT8.
      {87, "FP32", 128},
      {87, "FP16", 1024},
      {87, "INT8", 2048},
      // Ada whitepaper: 128 FP32 cores, 4 tensor cores (RTX 6000 Ada: 182 TF32, 364 FP16/BF16,
      // 728 FP8 and INT8 dense TFLOPS on 142 SMs at 2.505 GHz).
      {89, "FP32", 128},
      {89, "TF32", 256},
      {89, "FP16", 512},
      {89, "BF16", 512},
      {89, "FP8", 1024},
      {89, "INT8", 1024},
      // H100 whitepaper: 128 FP32 cores; per SM per clock 1024 TF32, 2048 FP16/BF16, 4096 FP8
      // and INT8 dense FMA (989 FP16 TFLOPS on 132 SMs at 1.83 GHz).
      {90, "FP32", 128},
      {90, "TF32", 1024},
      {90, "FP16", 2048},
      {90, "BF16", 2048},
      {90, "FP8", 4096},
      {90, "INT8", 4096},
  };
  for (const auto& r : kRates)
    if (r.sm == sm && math == r.math) return r.macs;
  return std::nullopt;
}

DevicePeaks device_peaks(const Capture& c, const Build& b) {
  DevicePeaks d;
  const RunInfo* run = nullptr;
  for (const auto& r : c.runs)
    if (!r.device.empty() && (!run || r.build_run == b.run)) run = &r;
  if (!run) {
    d.note =
        "no device information in the inputs (trtexec's device lines or TREx metadata): "
        "no roofline";
    return d;
  }
  d.name = value_of(run->device, "Selected Device");
  d.compute_capability = value_of(run->device, "Compute Capability");
  d.sms = leading_number(run->device, "SMs");
  d.clock_ghz = leading_number(run->device, "Application Compute Clock Rate");
  if (!d.clock_ghz) d.clock_ghz = leading_number(run->device, "Compute Clock Rate");
  d.gbps = peak_gbps(*run);
  auto sm = sm_version(d.compute_capability);
  if (!sm || !d.sms || !d.clock_ghz) {
    d.note = "the device lines give no compute capability, SM count or clock: no compute roofline";
    return d;
  }
  // GeForce cards accumulate TF32 and BF16 (always FP32-accumulated) at half rate (GA102 and
  // Ada whitepapers: RTX 3090 35.6 TF32 TFLOPS against the A40's 74.8).
  const bool geforce = d.name.find("GeForce") != std::string::npos;
  for (const char* math : {"FP32", "TF32", "FP16", "BF16", "FP8", "INT8"})
    if (auto macs = macs_per_sm_clock(*sm, math)) {
      std::string m = math;
      double rate = geforce && (m == "TF32" || m == "BF16") && *sm >= 80 ? *macs / 2 : *macs;
      d.tflops[math] = *d.sms * *d.clock_ghz * 1e9 * rate * 2 / 1e12;
      if (d.gbps) d.ridge[math] = d.tflops[math] * 1e12 / 2 / (*d.gbps * 1e9);
    }
  if (d.tflops.empty())
    d.note = "compute capability " + d.compute_capability +
             " is not in trtlens's table of peak rates: no compute roofline";
  return d;
}

ReportFigures report_figures(const Capture& c, const Build& b) {
  ReportFigures f;
  // Throughput: the trace of this run, else the performance summary.
  for (const auto& r : c.runs) {
    if (r.times && !r.times->records.empty() && !f.latency_series) {
      if (r.times->throughput_qps > 0) {
        f.throughput_qps = r.times->throughput_qps;
        f.throughput_from = r.times->source;
      }
      LatencySeries s;
      s.from = r.times->source;
      for (const auto& rec : r.times->records)
        if (rec.latency_ms == rec.latency_ms) s.ms.push_back(rec.latency_ms);
      s.p50 = r.times->latency.median;
      s.p99 = r.times->latency.p99;
      if (!s.ms.empty()) f.latency_series = std::move(s);
    }
  }
  if (!f.throughput_qps)
    for (const auto& r : c.runs)
      for (const auto& p : r.perf)
        if (p.metric == "Throughput" && !f.throughput_qps) {
          f.throughput_qps = p.value;
          f.throughput_from = r.path + ": performance summary";
        }
  f.device = device_peaks(c, b);
  const BuildMemory& m = b.memory;
  f.device_persistent =
      m.total_device_persistent ? m.total_device_persistent : m.per_runner_device_persistent;
  f.host_persistent =
      m.total_host_persistent ? m.total_host_persistent : m.per_runner_host_persistent;
  f.scratch = m.total_scratch;

  double sum = b.totals.sum_layer_ms.value_or(0);
  std::map<std::string, Group> prec, family;
  std::map<std::pair<std::string, std::string>, Group> tp;
  for (size_t i = 0; i < b.layers.size(); ++i) {
    const Layer& l = b.layers[i];
    if (l.role == LayerRole::Elided) continue;
    std::string p = precision_or_unknown(l);
    double ms = l.time.average_ms.value_or(0);
    Group& g = prec[p];
    g.key = p;
    ++g.count;
    g.ms += ms;
    std::string fam = kernel_family(l);
    Group& fg = family[fam];
    fg.key = fam;
    ++fg.count;
    fg.ms += ms;
    Group& t = tp[{l.type, p}];
    t.key = l.type;
    t.sub = p;
    ++t.count;
    t.ms += ms;
    if (l.time.average_ms) f.by_time.push_back({i, ms, sum > 0 ? ms / sum * 100 : 0});

    std::string pt = attr_string(l, "ParameterType");
    std::optional<ConvCard> card;
    if (pt == "Convolution" || pt == "Deconvolution")
      card = conv_card(l, pt);
    else if (pt == "MatrixMultiply" || pt == "FullyConnected" || pt == "Gemm")
      card = gemm_card(l, pt);
    if (card) {
      card->layer = i;
      if (card->gbps && f.device.gbps) card->bandwidth_percent = *card->gbps / *f.device.gbps * 100;
      roofline(*card, l, f.device);
      f.cards.push_back(*card);
    }
    if (pt == "PointWise" || pt == "PointWiseV2" || l.type == "PointWise" ||
        l.type == "PointWiseV2") {
      // Detailed layer JSON lists the generated operations (TensorRT 8.x "Operations", later
      // "Instructions"); a log listing gives only the ONNX nodes fused into the layer.
      PointwiseOps po{i, {}, "operations"};
      for (const char* key : {"Operations", "Instructions"}) {
        auto it = l.attributes.get(key);
        if (!it || !it->is_array() || !po.ops.empty()) continue;
        for (const auto& op : *it)
          if (op.is_string()) po.ops.push_back(op.get<std::string>());
      }
      if (po.ops.empty() && !l.onnx_nodes.empty()) {
        po.ops = l.onnx_nodes;
        po.from = "ONNX nodes";
      }
      f.pointwise.push_back(std::move(po));
    }
  }
  std::stable_sort(f.by_time.begin(), f.by_time.end(),
                   [](const LayerShare& x, const LayerShare& y) { return x.ms > y.ms; });
  f.top.assign(f.by_time.begin(), f.by_time.begin() + std::min<size_t>(3, f.by_time.size()));
  auto sorted = [](auto& map) {
    std::vector<Group> v;
    for (auto& [k, g] : map) v.push_back(g);
    std::stable_sort(v.begin(), v.end(), [](const Group& x, const Group& y) {
      return x.ms != y.ms ? x.ms > y.ms : x.count > y.count;
    });
    return v;
  };
  f.precision = sorted(prec);
  f.kernel_family = sorted(family);
  f.type_precision = sorted(tp);
  for (const auto& fd : c.findings)
    if (fd.build < 0 || fd.build == b.id) ++f.findings[fd.severity];
  return f;
}

}  // namespace trtlens
