#include "analysis/classify.h"

#include <string_view>

namespace trtlens {
namespace {

bool starts_with(std::string_view s, std::string_view head) {
  return s.substr(0, head.size()) == head;
}

// The profile measured this layer and found it took no time at all: TensorRT reports layers
// it folded into their input (elided copies, aliasing reshapes) with exactly 0 ms.
bool costs_nothing(const LayerTime& t) {
  if (!t.average_ms || *t.average_ms != 0) return false;
  return !t.total_ms || *t.total_ms == 0;
}

// Weight entries ({Type, Count}) sit under "Weights", "Bias" and, for fused layers, under
// prefixed keys ("ConvWeights", "ConvBias"): a detailed listing names them for every layer.
bool has_detailed_attributes(const Layer& l) {
  return l.attributes.contains("ParameterType") || l.attributes.contains("Weights");
}

}  // namespace

LayerRole classify_layer(const Layer& l) {
  if (l.type == "NoOp") return LayerRole::Elided;
  if (costs_nothing(l.time)) return LayerRole::Elided;
  if (l.type == "Reformat" || l.type == "MyelinReformat") return LayerRole::Reformat;
  if (!l.type.empty()) return LayerRole::Runs;
  // No type: only the name and the profile can tell. A "Reformatting CopyNode" is a NoOp as
  // often as a kernel, so without a profile row it stays unknown.
  const bool copy_node = starts_with(l.name, "Reformatting CopyNode for ");
  if (l.time.average_ms) return copy_node ? LayerRole::Reformat : LayerRole::Runs;
  if (copy_node || (l.inputs.empty() && l.outputs.empty())) return LayerRole::Unknown;
  return LayerRole::Runs;
}

bool moves_no_activations(const Layer& l) {
  return l.type == "Constant" || l.type == "shape_call" || l.type == "signal" || l.type == "wait";
}

void classify_layers(Capture& c) {
  for (Build& b : c.builds)
    for (Layer& l : b.layers) l.role = classify_layer(l);
}

void compute_totals(Capture& c) {
  for (Build& b : c.builds) {
    BuildTotals t;
    t.layers = b.layers.size();
    size_t runs = 0, elided = 0, reformats = 0, unknown = 0;
    uint64_t reformat_bytes = 0, activation_bytes = 0, weights = 0;
    bool reformat_bytes_known = true, activation_known = true, weights_listed = false;
    double reformat_ms = 0, layer_ms = 0;
    bool any_time = false;
    bool reformat_ms_known = b.profile.present;
    for (const Layer& l : b.layers) {
      const LayerMemory& m = l.memory;
      switch (l.role) {
        case LayerRole::Unknown:
          ++unknown;
          break;
        case LayerRole::Elided:
          ++elided;
          break;
        case LayerRole::Reformat:
          ++reformats;
          [[fallthrough]];
        case LayerRole::Runs:
          ++runs;
          break;
      }
      if (l.role == LayerRole::Reformat) {
        if (m.input_bytes && m.output_bytes)
          reformat_bytes += *m.input_bytes + *m.output_bytes;
        else
          reformat_bytes_known = false;
        if (l.time.average_ms)
          reformat_ms += *l.time.average_ms;
        else
          reformat_ms_known = false;
      }
      if ((l.role == LayerRole::Runs || l.role == LayerRole::Reformat) &&
          !moves_no_activations(l)) {
        if (m.input_bytes && m.output_bytes)
          activation_bytes += *m.input_bytes + *m.output_bytes;
        else
          activation_known = false;
      }
      if (l.time.average_ms) {
        layer_ms += *l.time.average_ms;
        any_time = true;
      }
      if (has_detailed_attributes(l)) weights_listed = true;
      weights += m.weights_stored_bytes.value_or(0);
    }
    if (unknown == 0) {
      t.running_layers = runs;
      t.elided_layers = elided;
      t.reformat_layers = reformats;
      if (reformat_bytes_known) t.reformat_bytes = reformat_bytes;
      if (reformat_ms_known) t.reformat_ms = reformat_ms;
      if (activation_known && !b.names_only) t.activation_io_bytes = activation_bytes;
    }
    if (weights_listed) t.weights_bytes = weights;
    if (any_time) t.sum_layer_ms = layer_ms;
    if (b.memory.peak_live_bytes && b.memory.liveness_unknown_tensors == 0)
      t.peak_activation_bytes = b.memory.peak_live_bytes;
    b.totals = t;
  }
}

}  // namespace trtlens
