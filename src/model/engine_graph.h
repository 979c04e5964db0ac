// The engine graph: vertices are layers plus graph inputs/outputs, edges are tensors from
// producer to consumer (a tensor read by three layers is three edges).
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace trtlens {

struct Layer;
struct Binding;

enum class VertexKind { Layer, Input, Output };

struct GraphVertex {
  VertexKind kind = VertexKind::Layer;
  int layer = -1;   // index into Build::layers for Layer vertices
  int tensor = -1;  // index into EngineGraph::inputs / outputs for Input / Output vertices
};

// The tensor's name is not kept here (EngineGraph::tensor_of gives it): a copy per edge, three
// edges a layer, took 96 B a layer and 150 more where names are as long as real engines' are.
struct GraphEdge {
  int producer_output = -1;  // index into the producer layer's outputs (-1 for graph inputs)
  int consumer_input = -1;   // index into the consumer layer's inputs (-1 for graph outputs)
};

using EngineGraphImpl =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, GraphVertex, GraphEdge>;

// Boost's adjacency_list has no move constructor (a "move" copies every vertex and edge), so
// the graph lives behind a pointer: builds and captures move in O(1) and never throw doing so.
struct EngineGraph {
  EngineGraph();
  EngineGraph(const EngineGraph& other);
  EngineGraph& operator=(const EngineGraph& other);
  EngineGraph(EngineGraph&&) noexcept = default;
  EngineGraph& operator=(EngineGraph&&) noexcept = default;
  ~EngineGraph();

  // The tensor an Input or Output vertex stands for.
  const std::string& tensor_of(const GraphVertex& v) const;
  // The tensor an edge carries: its producer's output, or the graph input it leaves. `layers`:
  // those the graph was built from.
  const std::string& tensor_of(EngineGraphImpl::edge_descriptor e,
                               const std::vector<Layer>& layers) const;

  // A moved-from graph reads as empty.
  const EngineGraphImpl& g() const;
  EngineGraphImpl& g();

  std::vector<EngineGraphImpl::vertex_descriptor> layer_vertex;  // by layer index
  std::vector<std::string> inputs;   // graph input tensor names, in first-use order
  std::vector<std::string> outputs;  // graph output tensor names

  // Tensors consumed but produced by no layer and not a known binding (names-only
  // listings have none; TRT's constants and shape tensors also show up here).
  int dangling_inputs = 0;

  // What an engine in execution order cannot be: a layer reading a tensor only a later layer
  // writes (a cycle when that layer depends on the reader), a tensor written by two layers, a
  // layer reading its own output. Listings mixed from two engines show these.
  struct Problem {
    enum Kind { UseBeforeDefinition, Cycle, TwoProducers, SelfLoop } kind;
    std::string tensor;
    int layer = -1;  // the reader (or the second producer)
    int other = -1;  // the producer (or the first producer)
  };
  std::vector<Problem> problems;

 private:
  std::unique_ptr<EngineGraphImpl> impl_;
};
static_assert(std::is_nothrow_move_constructible_v<EngineGraph> &&
              std::is_nothrow_move_assignable_v<EngineGraph>);

// One line per problem, for diagnostics.
std::string describe(const EngineGraph::Problem& p, const std::vector<Layer>& layers);

// Wires producers to consumers by tensor name. Bindings, where known, decide which dangling
// tensors are graph inputs/outputs; without them, unproduced inputs and unconsumed outputs are.
EngineGraph build_engine_graph(const std::vector<Layer>& layers,
                               const std::vector<Binding>& bindings);

}  // namespace trtlens
