// Quantization: Q/DQ left standalone, Q/DQ around float ops, INT8 layers with float outputs.
#include "analysis/findings/rules.h"
#include "analysis/summary.h"

namespace trtlens::findings {
namespace {

bool any_quantized(const Layer& l) {
  for (const auto* ts : {&l.inputs, &l.outputs})
    for (const auto& t : *ts)
      if (is_quantized(t.dtype)) return true;
  return false;
}

bool any_float(const Layer& l) {
  for (const auto* ts : {&l.inputs, &l.outputs})
    for (const auto& t : *ts)
      if (is_float(t.dtype)) return true;
  return false;
}

// The tensor is a graph output, directly or through no-op / reformat layers.
bool feeds_graph_output(const BuildView& v, const std::string& tensor, int depth = 0) {
  if (v.graph_outputs.count(tensor)) return true;
  auto c = v.consumers.find(tensor);
  if (depth > 4 || c == v.consumers.end() || c->second.empty()) return false;
  for (int j : c->second) {
    const Layer& l = v.build.layers[size_t(j)];
    bool pass_through = l.type == "NoOp" || is_reformat(l);  // layout-only on the way out
    if (!pass_through || l.outputs.empty()) return false;
    if (!feeds_graph_output(v, l.outputs.front().name, depth + 1)) return false;
  }
  return true;
}

}  // namespace

void quantization_rules(const BuildView& v, std::vector<Finding>& out) {
  const auto& layers = v.build.layers;
  for (size_t i = 0; i < layers.size(); ++i) {
    const Layer& l = layers[i];
    if (l.inputs.empty() || l.outputs.empty()) continue;
    const Tensor& in = l.inputs.front();
    const Tensor& o = l.outputs.front();
    if (is_qdq_layer(l)) {
      if (is_quantized(in.dtype) != is_quantized(o.dtype)) {
        Finding f = make_finding(
            v, "qdq-unfused", Severity::Warning,
            "standalone " + (parameter_type(l).empty() ? l.type.str() : parameter_type(l)) +
                " layer " + l.name + " converts " + in.dtype + " -> " + o.dtype +
                " instead of being fused into its neighbour",
            "Q/DQ should sit right on the inputs of quantizable ops (conv, GEMM) so TensorRT "
            "folds them; check the op after it has an INT8 kernel.");
        add_layer(f, l);
        f.evidence = {{"type", l.type}, {"from", in.dtype}, {"to", o.dtype}};
        out.push_back(std::move(f));
      }
      continue;
    }
    if (!is_reformat(l) && mentions_qdq(l) && !any_quantized(l) && any_float(l)) {
      Finding f = make_finding(
          v, "qdq-float-op", Severity::Warning,
          l.name + " has a Q/DQ node fused in but computes in " + compute_dtype(l),
          "The op has no quantized kernel here or the Q/DQ pair is on the wrong side; remove "
          "the Q/DQ around it or quantize its producer/consumer instead.");
      add_layer(f, l);
      f.evidence = {{"type", l.type}, {"compute", compute_dtype(l)}};
      out.push_back(std::move(f));
    }
    if ((is_convolution(l) || is_gemm(l)) && is_quantized(in.dtype) && is_float(o.dtype)) {
      bool to_output = feeds_graph_output(v, o.name);
      std::string kind = is_convolution(l) ? "convolution" : "GEMM";
      Finding f = make_finding(
          v, "int8-float-output", to_output ? Severity::Info : Severity::Warning,
          in.dtype + " " + kind + " " + l.name + " writes a " + o.dtype + " output" +
              (to_output ? " (a graph output)" : ""),
          to_output ? "Fine when the engine output must be float; otherwise ask for an INT8 "
                      "output format."
                    : "Add a Q/DQ pair after it so the output stays quantized, or check why the "
                      "consumer wants float.");
      add_layer(f, l);
      nlohmann::ordered_json consumers = nlohmann::ordered_json::array();
      if (auto c = v.consumers.find(o.name); c != v.consumers.end())
        for (int j : c->second) consumers.push_back(layers[size_t(j)].name);
      f.evidence = {{"input", in.dtype},
                    {"output", o.dtype},
                    {"output_tensor", o.name},
                    {"consumers", consumers},
                    {"graph_output", to_output}};
      out.push_back(std::move(f));
    }
  }
}

}  // namespace trtlens::findings
