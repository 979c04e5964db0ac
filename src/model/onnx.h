// The ONNX side: nodes and initializers of the source model (from the .onnx file or the
// verbose log's parse section) and what became of each node.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/maybe.h"
#include "model/shared_text.h"
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

struct OnnxNodeOrigin {
  SourceLoc source;
  std::vector<int64_t> kernel;
};

struct OnnxNode {
  std::string name;
  SharedText op;
  int index = -1;         // graph order
  bool unnamed = false;   // the name was made up as <op>_<index>
  bool inferred = false;  // known only from layer names (no .onnx file, no parse section)
  NodeFate fate = NodeFate::Unknown;  // (provenance; next to the flags: no padding between)
  // The final build's layer that computes it (provenance), -1 for none: node_layer() gives its
  // name (a copy of the name per node was a tenth of a names-only build).
  int layer_index = -1;
  std::vector<OnnxValue> inputs;
  std::vector<OnnxValue> outputs;
  // "Using kernel: (3, 3), strides: ..., numOutputs: 32" (convolutions in the parse section).
  Maybe<int64_t> num_outputs;
  Maybe<int64_t> groups;
  // Where the node was read and its kernel: rarely set, rarely read, and shared by the nodes of
  // one model file (a node named only by a layer has none; it is large enough without them).
  std::shared_ptr<const OnnxNodeOrigin> origin;
  const SourceLoc& source() const;
  const std::vector<int64_t>& kernel() const;

  // Filled by analysis/provenance.
  // The node a fusion line named as its partner, where the layer name does not show it; other
  // nodes fused with it are those of its layer (fused_with() in capture.h): a copy of their
  // names per node was a tenth of an engine named only by its layers.
  std::vector<std::string> fused_with;
  std::string reason;  // elimination reason when the log says
  // One of a few dtypes, shared like `op`: a string each was a tenth of the nodes of an engine
  // named only by its layers (20,000 nodes for 10,000 layers).
  SharedText precision;  // dtype the node ends up computing in
  // "prefix": the layer names it cut short (the name printed is a prefix of this one only).
  // A view of a literal: a string per node for one of two words.
  std::string_view matched_by;
};

// A fusion/elimination line of the verbose log ("ConvReluFusion: Fusing Conv_0 with Relu_1",
// "Eliminating concatenation X", "Removing X", "Running: P on X").
struct FusionEvent {
  std::string kind;     // fuse, eliminate-concat, remove, run, fold
  std::string pass;     // ConvReluFusion, ConstShuffleFusion ... where given
  std::string subject;  // the first name on the line
  std::string other;    // "with"/"into" partner of a fusion
  SourceLoc source;
};

// "After vertical fusions: 57 layers".
struct LayerCount {
  std::string stage;
  int64_t layers = 0;
  SourceLoc source;
};

// What one engine layer of the final build holds (filled by analysis/provenance).
// Parallel to the final build's layers (the layer's name is there).
struct LayerProvenance {
  std::string_view kind;  // onnx, myelin, reformat, copy, internal, other (a literal)
  // (Its ONNX nodes are the layer's own Layer::onnx_nodes.)
  std::vector<std::string> initializers;
  std::string attached_to;  // reformat: the layer it serves; copy: the tensor copied
  bool from_metadata = false;
  std::string note;  // ambiguity, unmatched names
  // Names the input cut short, matched to the one node or tensor they are a prefix of:
  // (as printed, matched name).
  std::vector<std::pair<std::string, std::string>> prefix_matches;
};

// Counts over the provenance of the final build (analysis/provenance).
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
  // The final build's roles (its totals), used where no counter was printed.
  std::optional<size_t> running_layers, reformat_layers, elided_layers;
  std::string headline;  // "126 ONNX nodes -> 57 layers after fusion -> 82 with 25 reformat ..."
};

struct OnnxModel {
  std::vector<std::string> sources;  // "onnx-file:path", "build-log:path"
  std::vector<OnnxNode> nodes;
  std::vector<OnnxValue> initializers;
  std::vector<OnnxValue> graph_inputs;
  std::vector<OnnxValue> graph_outputs;
  std::vector<FusionEvent> events;       // from the verbose log, in log order
  std::vector<LayerCount> layer_counts;  // "After ...: N layers", in log order
  std::vector<LayerProvenance> layers;   // per layer of the final build (analysis)
  std::vector<std::string> notes;        // what provenance could not decide
  ProvenanceCounts counts;               // (analysis)
  // A model file's graph with large tensor data left out (a serialized ModelProto): what the
  // ONNX library's shape inference needs when --shape fixes the inputs (analysis/shapes).
  std::string shape_model;

  // By name through an index rebuilt whenever the vectors were replaced or grew (engines of
  // 10k layers look names up per layer).
  const OnnxNode* find(std::string_view name) const;
  bool is_initializer(std::string_view name) const;
  // Brings both indexes up to date now, so that threads calling the two above only read them.
  void index() const;

 private:
  // Open addressing over positions (low half: 0 = empty, else position + 1; high half: the
  // upper half of the name's hash), probed by comparing the element's own name: no copy of each
  // name as a key (a map of strings was 160 B a node, and an engine named only by its layers
  // has two nodes a layer).
  struct Index {
    const void* data = nullptr;
    size_t size = 0;
    std::vector<uint64_t> slots;
  };
  mutable Index node_index_, initializer_index_;
};

// Adds `from` (a model file) to `into` (which may already hold nodes from a log's parse
// section): the file's graph order wins, what the log knew (dims, kernels) is kept.
void merge_onnx_model(OnnxModel& into, OnnxModel from);

}  // namespace trtlens
