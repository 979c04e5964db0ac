// A metric of one model (and target) over its stored builds, oldest first, with what changed
// in the layers where the metric jumps, and gates against the previous build.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "store/store.h"

namespace trtlens {

enum class TrendMetric { Latency, LayerTime, Reformats, Weights, PeakActivation, Precision };
// "latency", "layer-time", ...; nullopt for an unknown name.
std::optional<TrendMetric> parse_trend_metric(const std::string& name);
const char* to_string(TrendMetric m);
const char* unit_of(TrendMetric m);  // "ms", "bytes", "layers"

struct TrendPoint {
  int64_t capture_id = 0, build_id = 0;
  std::string date, trt_version, git_revision, target, latency_source;
  std::optional<double> value;
  std::map<std::string, int64_t> precision_layers;  // precision metric: running layers by dtype
  std::optional<double> change_percent;             // against the previous point with a value
};

// One layer's change between two consecutive builds (matched by name).
struct LayerChange {
  std::string layer;
  std::string what;  // "precision", "type", "time", "added", "removed"
  std::string before, after;
  std::optional<double> delta_ms;
};

struct TrendJump {
  size_t point = 0;  // index into points; compared with the point before it
  std::vector<LayerChange> changes;
};

struct Trend {
  std::string model, target;  // target empty: every target
  TrendMetric metric = TrendMetric::Latency;
  std::vector<TrendPoint> points;
  std::vector<TrendJump> jumps;
};

// Points where |change| >= jump_percent get the layer changes of that step.
Trend compute_trend(Store& store, const std::string& model, const std::string& target,
                    TrendMetric metric, double jump_percent);

// "latency:+5%", "reformats:+0": the newest build against the previous stored build of the
// same model and target.
struct TrendGate {
  TrendMetric metric = TrendMetric::Latency;
  double limit = 0;
  bool percent = false;
  std::string text;
  // Results.
  bool evaluated = false, failed = false;
  std::optional<double> base, head;
  std::string note;
};
std::vector<TrendGate> parse_trend_gates(const std::string& spec);  // throws std::invalid_argument
void evaluate_gates(Store& store, const std::string& model, const std::string& target,
                    std::vector<TrendGate>& gates);

}  // namespace trtlens
