// Pairs the layers of two builds: by the ONNX nodes they contain, then by exact name, then by
// TREx's signature (type + tensor shapes without batch). Hash maps keep it near-linear.
#pragma once

#include <string>
#include <vector>

#include "model/capture.h"

namespace trtlens {

enum class AlignedBy { Onnx, Name, Signature, None };
const char* to_string(AlignedBy a);

struct LayerPair {
  int base = -1;  // index into base.layers, -1 = only in head
  int head = -1;  // index into head.layers, -1 = only in base
  AlignedBy by = AlignedBy::None;
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

Alignment align_layers(const Build& base, const Build& head);

}  // namespace trtlens
