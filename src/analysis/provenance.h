// Provenance: which engine layer computes each ONNX node, and what became of the nodes no
// layer names (fused away, inside a Myelin ForeignNode, eliminated, unknown).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "model/capture.h"

namespace trtlens {

// Fills capture.onnx.layers, the fates of capture.onnx.nodes and Layer::onnx_nodes of the
// final build. Without a node list (no .onnx, no parse section) the nodes are read from the
// layer names and marked inferred.
void compute_provenance(Capture& capture);

struct ProvenanceCounts {
  size_t nodes = 0;
  size_t inferred = 0;  // nodes known only from layer names
  std::map<NodeFate, size_t> by_fate;
  std::map<std::string, std::map<NodeFate, size_t>> by_op;  // op -> fate -> nodes
  size_t layers = 0;
  std::map<std::string, size_t> layers_by_kind;  // onnx, myelin, reformat, copy, internal, other
  // From the log's "After ...: N layers" counters where present.
  std::optional<int64_t> network_layers;  // the first counter
  std::optional<int64_t> after_fusion;    // the last counter before "reformat layers"
  std::optional<int64_t> with_reformats;  // "After reformat layers"
};
ProvenanceCounts provenance_counts(const Capture& capture);

// "126 ONNX nodes -> 57 layers after fusion -> 82 with 25 reformat layers".
std::string provenance_headline(const ProvenanceCounts& counts);

}  // namespace trtlens
