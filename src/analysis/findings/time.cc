// Time structure: where the profiled time goes, and when per-layer figures mislead.
#include <algorithm>

#include "analysis/findings/rules.h"
#include "analysis/summary.h"
#include "io/units.h"

namespace trtlens::findings {
namespace {

bool is_myelin(const Layer& l) {
  return l.type == "Myelin" || l.name.find("ForeignNode") != std::string::npos;
}

bool is_shape_or_copy(const Layer& l) {
  static const char* kinds[] = {"Shuffle",  "reshape", "shape_call", "Cast",
                                "Identity", "Copy",    "Slice",      "Concatenation",
                                "Padding",  "Gather",  "Shape"};
  std::string p = parameter_type(l);
  for (const char* k : kinds)
    if (l.type == k || p == k) return true;
  return false;
}

std::optional<double> gpu_compute_ms(const BuildView& v) {
  if (!v.run) return std::nullopt;
  std::optional<double> median;
  for (const auto& p : v.run->perf) {
    if (p.metric != "GPU Compute Time" || p.unit != "ms") continue;
    if (p.stat == "mean") return p.value;
    if (p.stat == "median") median = p.value;
  }
  return median;
}

}  // namespace

void time_rules(const BuildView& v, std::vector<Finding>& out) {
  const auto& layers = v.build.layers;
  // Auxiliary streams matter even without a profile: the runtime log may warn on its own.
  int aux = 0;
  Finding streams = make_finding(v, "aux-streams", Severity::Info, "", "");
  for (const auto& l : layers)
    if (l.stream_id && *l.stream_id > 0) ++aux, add_layer(streams, l);
  bool warned = false;
  if (v.run)
    for (const auto& w : v.run->warnings)
      if (w.find("auxiliary stream") != std::string::npos) warned = true;
  if (aux || warned) {
    streams.severity = v.has_time ? Severity::Warning : Severity::Info;
    streams.message = std::to_string(aux) + " layer" + (aux == 1 ? "" : "s") +
                      " run on auxiliary streams" +
                      (warned ? " (the run log warns about it)" : "") +
                      "; layers overlap, so per-layer times do not add up to latency";
    streams.hint =
        "Compare with the engine latency, not the per-layer sum; "
        "--maxAuxStreams=0 gives a serial profile.";
    streams.evidence = {{"aux_layers", aux}, {"run_warning", warned}};
    out.push_back(std::move(streams));
  }
  if (!v.has_time) return;

  double myelin = 0, shape = 0, tiny = 0;
  int myelin_n = 0, shape_n = 0, tiny_n = 0;
  Finding myl = make_finding(v, "myelin-share", Severity::Info, "", "");
  Finding shp = make_finding(v, "shape-copy-share", Severity::Warning, "", "");
  Finding tin = make_finding(v, "tiny-layers", Severity::Warning, "", "");
  // Positions first: the names are copied only into the findings that are reported.
  std::vector<uint32_t> myl_at, shp_at, tin_at;
  for (size_t i = 0; i < layers.size(); ++i) {
    const Layer& l = layers[i];
    auto share = v.share(int(i));
    if (!share) continue;
    if (*share >= 10.0) {
      Finding f = make_finding(v, "hot-layer", Severity::Info,
                               l.name + " takes " + fmt(*share, 1) + "% of layer time",
                               "Start optimising here: check its precision, kernel and shapes.");
      add_layer(f, l);
      f.evidence = {{"time_share_percent", *share}};
      if (auto a = v.avg_ms(int(i))) f.evidence["avg_ms"] = *a;
      out.push_back(std::move(f));
    }
    if (is_myelin(l)) myelin += *share, ++myelin_n, myl_at.push_back(uint32_t(i));
    if (is_shape_or_copy(l)) shape += *share, ++shape_n, shp_at.push_back(uint32_t(i));
    if (*share > 0 && *share < 0.5 && !is_bookkeeping(l))
      tiny += *share, ++tiny_n, tin_at.push_back(uint32_t(i));
  }
  if (myelin_n) {
    myl.message = std::to_string(myelin_n) + " Myelin/ForeignNode layer" +
                  (myelin_n == 1 ? "" : "s") + " take " + fmt(myelin, 1) + "% of layer time";
    myl.hint =
        "Their inside is opaque to per-layer profiling; a detailed layer export "
        "(TRT 10) lists the kernels inside.";
    myl.evidence = {{"layers", myelin_n}, {"time_share_percent", myelin}};
    add_layers(myl, layers, myl_at);
    out.push_back(std::move(myl));
  }
  if (shape_n && shape >= 10.0) {
    shp.message = std::to_string(shape_n) + " shuffle/shape/cast/copy layers take " +
                  fmt(shape, 1) + "% of layer time";
    shp.hint =
        "Data movement, not math: look for transposes/reshapes the model could avoid "
        "or fold into neighbours.";
    shp.evidence = {{"layers", shape_n}, {"time_share_percent", shape}};
    add_layers(shp, layers, shp_at);
    out.push_back(std::move(shp));
  }
  if (tiny_n >= 20 && tiny >= 20.0) {
    tin.message = std::to_string(tiny_n) + " layers under 0.5% each add up to " + fmt(tiny, 1) +
                  "% of layer time";
    tin.hint =
        "Launch overhead dominates small layers: look for missed fusions; CUDA graphs "
        "(--useCudaGraph) hide launch cost.";
    tin.evidence = {{"layers", tiny_n}, {"time_share_percent", tiny}};
    add_layers(tin, layers, tin_at);
    out.push_back(std::move(tin));
  }
  auto gpu = gpu_compute_ms(v);
  if (gpu && *gpu > 0 && v.total_avg_ms > 1.2 * *gpu) {
    Finding f = make_finding(
        v, "layer-sum-overhead", Severity::Warning,
        "per-layer average times sum to " + human_ms(v.total_avg_ms) + ", " +
            fmt(v.total_avg_ms / *gpu, 2) + "x the engine's GPU compute time of " + human_ms(*gpu),
        "Per-layer profiling adds event overhead to every layer; use the shares, not the "
        "absolute sum, and the performance summary for latency.");
    f.evidence = {{"layer_sum_ms", v.total_avg_ms},
                  {"gpu_compute_ms", *gpu},
                  {"ratio", v.total_avg_ms / *gpu}};
    out.push_back(std::move(f));
  }
}

}  // namespace trtlens::findings
