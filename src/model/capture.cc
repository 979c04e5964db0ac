#include "model/capture.h"

namespace trtlens {

const char* to_string(Severity s) {
  switch (s) {
    case Severity::Info: return "info";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
  }
  return "warning";
}

const char* to_string(ListingKind k) {
  switch (k) {
    case ListingKind::EngineLayerInfo: return "engine-layer-information";
    case ListingKind::LayerInfoDump: return "layer-info-dump";
    case ListingKind::LayerJson: return "layer-json";
    case ListingKind::Profile: return "profile";
  }
  return "unknown";
}

const Build* Capture::final_build() const {
  for (const auto& b : builds)
    if (b.final) return &b;
  return builds.empty() ? nullptr : &builds.back();
}

}  // namespace trtlens
