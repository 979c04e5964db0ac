#include "model/capture.h"

namespace trtlens {

const char* to_string(Severity s) {
  switch (s) {
    case Severity::Info:
      return "info";
    case Severity::Warning:
      return "warning";
    case Severity::Error:
      return "error";
  }
  return "warning";
}

const char* to_string(ListingKind k) {
  switch (k) {
    case ListingKind::EngineLayerInfo:
      return "engine-layer-information";
    case ListingKind::LayerInfoDump:
      return "layer-info-dump";
    case ListingKind::LayerJson:
      return "layer-json";
    case ListingKind::Profile:
      return "profile";
    case ListingKind::DeviceList:
      return "device-list";
  }
  return "unknown";
}

const char* to_string(LayerRole r) {
  switch (r) {
    case LayerRole::Unknown:
      return "unknown";
    case LayerRole::Runs:
      return "runs";
    case LayerRole::Elided:
      return "elided";
    case LayerRole::Reformat:
      return "reformat";
  }
  return "unknown";
}

const char* to_string(Latency::Source s) {
  switch (s) {
    case Latency::Source::None:
      return "none";
    case Latency::Source::Times:
      return "times";
    case Latency::Source::PerfSummary:
      return "performance-summary";
    case Latency::Source::ProfileSum:
      return "profile-sum";
  }
  return "none";
}

std::vector<std::string> fused_with(const Build* final, const OnnxNode& n) {
  if (!n.fused_with.empty() || !final || n.layer_index < 0 ||
      size_t(n.layer_index) >= final->layers.size())
    return n.fused_with;
  std::vector<std::string> others;
  for (const auto& other : final->layers[size_t(n.layer_index)].onnx_nodes)
    if (other != n.name) others.push_back(other);
  return others;
}

const std::string& node_layer(const Build* final, const OnnxNode& n) {
  static const std::string none;
  return final && n.layer_index >= 0 && size_t(n.layer_index) < final->layers.size()
             ? final->layers[size_t(n.layer_index)].name
             : none;
}

const Build* Capture::final_build() const {
  for (const auto& b : builds)
    if (b.final) return &b;
  return builds.empty() ? nullptr : &builds.back();
}

}  // namespace trtlens
