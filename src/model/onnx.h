// The ONNX side: nodes and initializers of the source model (from the .onnx file or the
// verbose log's parse section) and what became of each node. Owned by the provenance work
// (issue 5); the parse section of the log is read by the memory work (issue 3).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/source.h"

namespace trtlens {

struct OnnxValue {
  std::string name;
  std::string dtype;  // canonical where known
  std::vector<int64_t> dims;
  bool has_dims = false;
};

enum class NodeFate { Unknown, Standalone, Fused, InMyelin, Eliminated };
const char* to_string(NodeFate f);

struct OnnxNode {
  std::string name;
  std::string op;
  int index = -1;       // graph order
  bool unnamed = false; // the name was made up as <op>_<index>
  std::vector<OnnxValue> inputs;
  std::vector<OnnxValue> outputs;
  // "Using kernel: (3, 3), strides: ..., numOutputs: 32" (convolutions in the parse section).
  std::vector<int64_t> kernel;
  std::optional<int64_t> num_outputs;
  std::optional<int64_t> groups;
  SourceLoc source;

  // Filled by analysis/provenance.
  NodeFate fate = NodeFate::Unknown;
  std::string layer;                    // the engine layer that computes it (final build)
  std::vector<std::string> fused_with;  // other nodes in that layer
  std::string reason;                   // elimination reason when the log says
  std::string precision;                // dtype the node ends up computing in
};

struct OnnxModel {
  std::vector<std::string> sources;  // "onnx-file:path", "build-log:path"
  std::vector<OnnxNode> nodes;
  std::vector<OnnxValue> initializers;
  std::vector<OnnxValue> graph_inputs;
  std::vector<OnnxValue> graph_outputs;

  const OnnxNode* find(const std::string& name) const;
  bool is_initializer(const std::string& name) const;
};

}  // namespace trtlens
