#include "model/engine_graph.h"

#include <string_view>
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

const std::string& EngineGraph::tensor_of(const GraphVertex& v) const {
  static const std::string none;
  const auto& names = v.kind == VertexKind::Input ? inputs : outputs;
  return v.kind != VertexKind::Layer && v.tensor >= 0 && size_t(v.tensor) < names.size()
             ? names[size_t(v.tensor)]
             : none;
}

const std::string& EngineGraph::tensor_of(EngineGraphImpl::edge_descriptor e,
                                          const std::vector<Layer>& layers) const {
  const GraphVertex& from = g()[boost::source(e, g())];
  const int out = g()[e].producer_output;
  if (from.kind == VertexKind::Layer && from.layer >= 0 && size_t(from.layer) < layers.size() &&
      out >= 0 && size_t(out) < layers[size_t(from.layer)].outputs.size())
    return layers[size_t(from.layer)].outputs[size_t(out)].name;
  return tensor_of(from);
}

EngineGraph build_engine_graph(const std::vector<Layer>& layers,
                               const std::vector<Binding>& bindings) {
  EngineGraph eg;
  auto& g = eg.g();
  eg.layer_vertex.reserve(layers.size());
  for (size_t i = 0; i < layers.size(); ++i) {
    eg.layer_vertex.push_back(boost::add_vertex(GraphVertex{VertexKind::Layer, int(i), -1}, g));
  }

  struct Producer {
    int layer;
    int output;
  };
  // The last producer of a name wins, as later layers overwrite reused names in engine order.
  // Keys view the layers' and bindings' own names, which outlive these indexes, rather than
  // copy each (an allocation a tensor for names longer than 15 bytes, as real engines' are).
  std::unordered_map<std::string_view, Producer> producer;
  std::unordered_set<std::string_view> consumed;
  std::unordered_set<std::string_view> binding_names;
  for (const auto& b : bindings) binding_names.insert(b.name);

  std::unordered_map<std::string_view, EngineGraphImpl::vertex_descriptor> input_vertex;
  std::vector<std::pair<std::string_view, int>> unproduced;  // (tensor, reader), no producer yet
  size_t outputs = 0, inputs = 0;
  for (const auto& layer : layers) {
    outputs += layer.outputs.size();
    inputs += layer.inputs.size();
  }
  producer.reserve(outputs);
  consumed.reserve(inputs);
  constexpr size_t kMaxProblems = 100;  // a mixed-up listing says so; it need not list all
  for (size_t i = 0; i < layers.size(); ++i) {
    const Layer& layer = layers[i];
    for (const auto& out : layer.outputs) {
      bool self = false;
      for (const auto& in : layer.inputs) self = self || in.name == out.name;
      if (self && eg.problems.size() < kMaxProblems)
        eg.problems.push_back({EngineGraph::Problem::SelfLoop, out.name, int(i), int(i)});
    }
    for (size_t k = 0; k < layer.inputs.size(); ++k) {
      const std::string& name = layer.inputs[k].name;
      consumed.insert(name);
      if (!producer.count(name)) unproduced.emplace_back(name, int(i));
      if (auto it = producer.find(name); it != producer.end()) {
        boost::add_edge(eg.layer_vertex[it->second.layer], eg.layer_vertex[i],
                        GraphEdge{it->second.output, int(k)}, g);
        continue;
      }
      if (!binding_names.empty() && !binding_names.count(name)) {
        ++eg.dangling_inputs;
        continue;
      }
      auto [it, fresh] = input_vertex.try_emplace(name);
      if (fresh) {
        it->second =
            boost::add_vertex(GraphVertex{VertexKind::Input, -1, int(eg.inputs.size())}, g);
        eg.inputs.push_back(name);
      }
      boost::add_edge(it->second, eg.layer_vertex[i], GraphEdge{-1, int(k)}, g);
    }
    for (size_t k = 0; k < layer.outputs.size(); ++k) {
      auto [it, fresh] = producer.try_emplace(layer.outputs[k].name, Producer{int(i), int(k)});
      if (fresh) continue;
      if (it->second.layer != int(i) && eg.problems.size() < kMaxProblems)
        eg.problems.push_back(
            {EngineGraph::Problem::TwoProducers, layer.outputs[k].name, int(i), it->second.layer});
      it->second = Producer{int(i), int(k)};
    }
  }

  // A reader before its producer: a cycle when the producer depends on the reader.
  for (const auto& [name, reader] : unproduced) {
    auto it = producer.find(name);
    if (it == producer.end() || it->second.layer == reader) continue;  // input, or a self-loop
    if (eg.problems.size() >= kMaxProblems) break;
    const int writer = it->second.layer;
    std::vector<bool> seen(layers.size(), false);
    std::vector<EngineGraphImpl::vertex_descriptor> stack{eg.layer_vertex[size_t(reader)]};
    bool cycle = false;
    while (!stack.empty() && !cycle) {
      auto v = stack.back();
      stack.pop_back();
      for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
        const GraphVertex& t = g[boost::target(*e, g)];
        if (t.kind != VertexKind::Layer || seen[size_t(t.layer)]) continue;
        seen[size_t(t.layer)] = true;
        if (t.layer == writer) cycle = true;
        stack.push_back(boost::target(*e, g));
      }
    }
    eg.problems.push_back(
        {cycle ? EngineGraph::Problem::Cycle : EngineGraph::Problem::UseBeforeDefinition,
         std::string(name), reader, writer});
  }

  // Graph outputs: bindings that some layer produces, or (without bindings) unconsumed outputs.
  auto add_output = [&](const std::string& name) {
    auto it = producer.find(name);
    if (it == producer.end()) return;
    auto v = boost::add_vertex(GraphVertex{VertexKind::Output, -1, int(eg.outputs.size())}, g);
    boost::add_edge(eg.layer_vertex[it->second.layer], v, GraphEdge{it->second.output, -1}, g);
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

namespace trtlens {

std::string describe(const EngineGraph::Problem& p, const std::vector<Layer>& layers) {
  auto layer = [&](int i) {
    return "layer " + std::to_string(i) + " '" +
           (i >= 0 && size_t(i) < layers.size() ? layers[size_t(i)].name : std::string()) + "'";
  };
  const std::string t = "tensor '" + p.tensor + "'";
  switch (p.kind) {
    case EngineGraph::Problem::UseBeforeDefinition:
      return layer(p.layer) + " reads " + t + " before " + layer(p.other) + " writes it";
    case EngineGraph::Problem::Cycle:
      return "cycle: " + layer(p.layer) + " reads " + t + " from " + layer(p.other) +
             ", which depends on it";
    case EngineGraph::Problem::TwoProducers:
      return t + " is written by two layers: " + layer(p.other) + " and " + layer(p.layer);
    case EngineGraph::Problem::SelfLoop:
      return layer(p.layer) + " reads its own output " + t;
  }
  return t;
}

}  // namespace trtlens
