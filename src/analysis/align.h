// Pairs the layers of two builds, strongest evidence first: weight (initializer) names carried in
// layer names, equal names, shared ONNX nodes, then type + shape signature near the anchors the
// earlier passes set, and equal names once more as the last resort. Every pass is hash lookups
// over anchor windows, so the whole alignment stays near-linear (O(n log n) in the layers).
#pragma once

#include <string>
#include <vector>

#include "model/capture.h"

namespace trtlens {

enum class AlignedBy { Weights, Name, Onnx, Signature, None };
const char* to_string(AlignedBy a);

struct LayerPair {
  int base = -1;  // index into base.layers, -1 = only in head
  int head = -1;  // index into head.layers, -1 = only in base
  AlignedBy by = AlignedBy::None;
  // How sure the pairing is, 0..1: weights = Jaccard of the weight-name sets; name = 0.9 when the
  // name is unique on both sides (0.7 otherwise, 0.5 when found only by the last-resort pass);
  // onnx = Jaccard of the node sets; signature = 0.6 when it was the only candidate between its
  // anchors (0.4 otherwise). 0 for unpaired layers.
  double confidence = 0;
  int fusion_group = -1;  // index into Alignment::fusion_groups when the pair is part of one
};

// Layers whose ONNX nodes were regrouped: m base layers and n head layers sharing nodes.
struct FusionGroup {
  std::string
      what;  // "split" (1 -> n), "merged" (m -> 1), "regrouped" (m -> n), "changed" (1 -> 1)
  std::vector<int> base, head;
  std::vector<std::string> nodes;  // nodes of the group, in base order then head-only ones
};

struct Alignment {
  std::vector<LayerPair> pairs;  // base order; head-only layers after the base layer before them
  std::vector<FusionGroup> fusion_groups;
};

// "Convolution|3x224x224|32x112x112": ParameterType (else the implementation type) and the
// dims of every tensor without the first (batch) dim.
std::string layer_signature(const Layer& l);

// Weight / initializer names a layer's name carries ("features.0.0.weight + QuantizeLinear_8 +
// Conv_12" -> {"features.0.0.weight"}): the " + "-separated parts that name a parameter
// (`.weight`, `.bias`, `_weight`, `/kernel`, TensorFlow's `ReadVariableOp:0`), sorted, unique.
// Exporter-numbered names (`onnx::Conv_123`) shift between exports and are left out.
std::vector<std::string> weight_names(const Layer& l);

Alignment align_layers(const Build& base, const Build& head);

}  // namespace trtlens
