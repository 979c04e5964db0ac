#include "model/engine_graph.h"

#include <unordered_map>
#include <unordered_set>

#include "model/capture.h"

namespace trtlens {

EngineGraph::EngineGraph() : impl_(std::make_unique<EngineGraphImpl>()) {}
EngineGraph::~EngineGraph() = default;

EngineGraph::EngineGraph(const EngineGraph& other)
    : layer_vertex(other.layer_vertex),
      inputs(other.inputs),
      outputs(other.outputs),
      dangling_inputs(other.dangling_inputs),
      impl_(std::make_unique<EngineGraphImpl>(other.g())) {}

EngineGraph& EngineGraph::operator=(const EngineGraph& other) {
  if (this != &other) *this = EngineGraph(other);
  return *this;
}

const EngineGraphImpl& EngineGraph::g() const {
  static const EngineGraphImpl empty;
  return impl_ ? *impl_ : empty;
}

EngineGraphImpl& EngineGraph::g() {
  if (!impl_) impl_ = std::make_unique<EngineGraphImpl>();
  return *impl_;
}

EngineGraph build_engine_graph(const std::vector<Layer>& layers,
                               const std::vector<Binding>& bindings) {
  EngineGraph eg;
  auto& g = eg.g();
  eg.layer_vertex.reserve(layers.size());
  for (size_t i = 0; i < layers.size(); ++i) {
    eg.layer_vertex.push_back(boost::add_vertex(GraphVertex{VertexKind::Layer, int(i), {}}, g));
  }

  struct Producer {
    int layer;
    int output;
  };
  // The last producer of a name wins, as later layers overwrite reused names in engine order.
  std::unordered_map<std::string, Producer> producer;
  std::unordered_set<std::string> consumed;
  std::unordered_set<std::string> binding_names;
  for (const auto& b : bindings) binding_names.insert(b.name);

  std::unordered_map<std::string, EngineGraphImpl::vertex_descriptor> input_vertex;
  for (size_t i = 0; i < layers.size(); ++i) {
    const Layer& layer = layers[i];
    for (size_t k = 0; k < layer.inputs.size(); ++k) {
      const std::string& name = layer.inputs[k].name;
      consumed.insert(name);
      if (auto it = producer.find(name); it != producer.end()) {
        boost::add_edge(eg.layer_vertex[it->second.layer], eg.layer_vertex[i],
                        GraphEdge{name, it->second.output, int(k)}, g);
        continue;
      }
      if (!binding_names.empty() && !binding_names.count(name)) {
        ++eg.dangling_inputs;
        continue;
      }
      auto [it, fresh] = input_vertex.try_emplace(name);
      if (fresh) {
        it->second = boost::add_vertex(GraphVertex{VertexKind::Input, -1, name}, g);
        eg.inputs.push_back(name);
      }
      boost::add_edge(it->second, eg.layer_vertex[i], GraphEdge{name, -1, int(k)}, g);
    }
    for (size_t k = 0; k < layer.outputs.size(); ++k) {
      producer[layer.outputs[k].name] = Producer{int(i), int(k)};
    }
  }

  // Graph outputs: bindings that some layer produces, or (without bindings) unconsumed outputs.
  auto add_output = [&](const std::string& name) {
    auto it = producer.find(name);
    if (it == producer.end()) return;
    auto v = boost::add_vertex(GraphVertex{VertexKind::Output, -1, name}, g);
    boost::add_edge(eg.layer_vertex[it->second.layer], v, GraphEdge{name, it->second.output, -1}, g);
    eg.outputs.push_back(name);
  };
  if (!bindings.empty()) {
    for (const auto& b : bindings) {
      if (b.io_mode == "Input" || input_vertex.count(b.name)) continue;
      add_output(b.name);
    }
  } else {
    for (const auto& layer : layers) {
      for (const auto& t : layer.outputs) {
        if (!consumed.count(t.name) && producer.count(t.name)) {
          add_output(t.name);
          consumed.insert(t.name);  // once per name
        }
      }
    }
  }
  return eg;
}

}  // namespace trtlens
