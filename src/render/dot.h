// The engine graph as Graphviz DOT: one node per layer, one edge per tensor (producer ->
// consumer), graph inputs/outputs as their own nodes, and a legend. Layout itself is svg.h's job.
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
  std::string layout = "auto";  // auto | dot (both layered) | sfdp (force, only when asked)
  bool legend = true;
  std::string id_prefix;  // prefix of SVG element ids (two graphs on one page)

  // Layout budget. What makes dot slow is not the node count but long edges (rank span),
  // fan-out and mincross/network-simplex iterations, so: a tensor read by more than
  // `stub_fanout` layers, and an edge spanning more than `long_span` ranks, are drawn as stubs at
  // every size; network simplex and mincross are
  // always bounded; above `budget_nodes` nodes edge labels are dropped and edges are straight;
  // above `collapse_layers` layers the drawing is an overview of collapsed groups (ONNX scopes,
  // else runs of consecutive layers), at most `max_groups` boxes; `expand` (RE2 over group names)
  // draws a group's layers one by one.
  size_t budget_nodes = 400;
  size_t stub_fanout = 8;
  int long_span = 30;  // an edge spanning more ranks is drawn as a stub at its reader
  size_t collapse_layers = 2000;
  size_t max_groups = 1000;
  std::vector<std::string> expand;
};

struct DotGraph {
  std::string dot;
  std::string engine = "dot";      // Graphviz layout engine to use
  std::vector<std::string> notes;  // what the layout budget changed (for stderr / the report)
  size_t nodes = 0, edges = 0;
  size_t groups = 0;  // collapsed group boxes drawn
  // SVG id of each drawn layer's node ("" when not drawn or inside a collapsed group), and of
  // the group box that holds it otherwise. Indexed like Build::layers.
  std::vector<std::string> layer_node_id;
};

// Throws std::invalid_argument for a bad --color-by / --focus / --expand, and when --focus or
// --expand match nothing.
DotGraph engine_dot(const Build& build, const DotOptions& opts = {});

// Scope of a layer for clustering: the directory part of its first ONNX node name (or of its
// own name when that starts with '/'), e.g. "/model/backbone/conv1"; "" when none.
std::string layer_scope(const Layer& layer);

// Fill colour of a canonical precision in graphs and charts ("#ffffff" when not listed).
std::string precision_color(const std::string& dtype);
// Fill colour of a diff status: added, removed, or the kind of change ("#ffffff": unchanged).
std::string diff_color(const std::string& status);

}  // namespace trtlens
