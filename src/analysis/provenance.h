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

// Counts over capture.onnx (call after compute_provenance and compute_totals); analyze()
// stores them, with their headline, in capture.onnx.counts.
ProvenanceCounts provenance_counts(const Capture& capture);

// "126 ONNX nodes -> 57 layers after fusion -> 82 with 25 reformat layers".
std::string provenance_headline(const ProvenanceCounts& counts);

}  // namespace trtlens
