#include "analysis/report.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "analysis/time.h"
#include "model/values.h"

namespace trtlens {
namespace {

std::string attr_string(const Layer& l, const char* key) {
  auto it = l.attributes.find(key);
  return it != l.attributes.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<int64_t> attr_int(const Layer& l, const char* key) {
  auto it = l.attributes.find(key);
  if (it == l.attributes.end() || !it->is_number()) return std::nullopt;
  return it->get<int64_t>();
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
  auto it = l.attributes.find("Kernel");
  if (it == l.attributes.end() || !it->is_array() || it->empty()) return false;
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

// Peak DRAM bandwidth of the device a run reports: 2 transfers per memory clock (DDR) times the
// bus width in bytes.
std::optional<double> peak_gbps(const RunInfo& r) {
  auto clock_ghz = leading_number(r.device, "Application Memory Clock Rate");
  if (!clock_ghz) clock_ghz = leading_number(r.device, "Memory Clock Rate");
  auto bus_bits = leading_number(r.device, "Memory Bus Width");
  if (!clock_ghz || !bus_bits) return std::nullopt;
  return 2 * *clock_ghz * *bus_bits / 8;
}

std::string lower(std::string s) {
  for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
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
  for (const auto& r : c.runs)
    if (r.build_run == b.run || !f.device_peak_gbps)
      if (auto p = peak_gbps(r)) f.device_peak_gbps = p;
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
      if (card->gbps && f.device_peak_gbps)
        card->bandwidth_percent = *card->gbps / *f.device_peak_gbps * 100;
      f.cards.push_back(*card);
    }
    if (pt == "PointWise" || pt == "PointWiseV2") {
      PointwiseOps po{i, {}};
      auto it = l.attributes.find("Operations");
      if (it != l.attributes.end() && it->is_array())
        for (const auto& op : *it)
          if (op.is_string()) po.ops.push_back(op.get<std::string>());
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
