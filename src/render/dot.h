// The engine graph as Graphviz DOT: one node per layer, one edge per tensor (producer ->
// consumer), graph inputs/outputs as their own nodes. Layout itself is svg.h's job.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "model/capture.h"

namespace trtlens {

struct DotOptions {
  std::string color_by = "type";  // type | precision | time | memory | diff
  bool edge_labels = false;       // tensor name + dtype/dims on edges (slow layouts)
  bool expand_onnx = false;       // list each layer's ONNX nodes inside its box
  bool cluster_by_scope = false;  // nest layers in clusters by ONNX scope (/model/backbone/...)
  std::string focus;              // RE2 over layer names: draw only matches + neighbourhood
  int radius = 1;                 // neighbourhood size (edges) around --focus matches
  // --color-by diff: layer name -> "added" | "removed" | "changed" (others: unchanged).
  std::map<std::string, std::string> diff_status;
  std::string layout = "auto";  // auto | dot | sfdp

  // Layout budget (anchors-and-user-asks.md §4.3): above `budget_nodes` vertices edge labels are
  // dropped, tensors read by more than `stub_fanout` layers become a stub, and dot's
  // network-simplex / mincross searches are bounded; `auto` picks sfdp above `sfdp_nodes` or
  // when >= 1% of edges are long skips (> 50 layers apart), which make dot super-linear.
  size_t budget_nodes = 400;
  size_t stub_fanout = 8;
  size_t sfdp_nodes = 2500;
};

struct DotGraph {
  std::string dot;
  std::string engine = "dot";      // Graphviz layout engine to use
  std::vector<std::string> notes;  // what the layout budget changed (for stderr / the report)
  size_t nodes = 0, edges = 0;
};

// Throws std::invalid_argument for a bad --color-by / --focus.
DotGraph engine_dot(const Build& build, const DotOptions& opts = {});

// Scope of a layer for clustering: the directory part of its first ONNX node name (or of its
// own name when that starts with '/'), e.g. "/model/backbone/conv1"; "" when none.
std::string layer_scope(const Layer& layer);

// Fill colour of a canonical precision in graphs and charts ("#ffffff" when not listed).
std::string precision_color(const std::string& dtype);
// Fill colour of a diff status: added, removed, or the kind of change ("#ffffff": unchanged).
std::string diff_color(const std::string& status);

}  // namespace trtlens
