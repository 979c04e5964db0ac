#include "analysis/shapes.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <exception>

namespace trtlens {
namespace {

void fix_dims(onnx::ValueInfoProto& v, const std::vector<int64_t>& dims) {
  auto* shape = v.mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->clear_dim();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

bool concrete(const onnx::ValueInfoProto& v, std::vector<int64_t>& out) {
  if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return false;
  out.clear();
  for (const auto& d : v.type().tensor_type().shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0) return false;
    out.push_back(d.dim_value());
  }
  return true;
}

}  // namespace

InferredShapes infer_onnx_shapes(const std::string& shape_model,
                                 const std::map<std::string, std::vector<int64_t>>& inputs) {
  InferredShapes out;
  onnx::ModelProto m;
  if (shape_model.empty() || !m.ParseFromString(shape_model)) {
    out.error = "no ONNX model to infer shapes from";
    return out;
  }
  auto* g = m.mutable_graph();
  for (auto& in : *g->mutable_input()) {
    auto it = inputs.find(in.name());
    if (it == inputs.end() || !in.type().has_tensor_type()) continue;
    const auto& tt = in.type().tensor_type();
    if (tt.has_shape() && size_t(tt.shape().dim_size()) != it->second.size()) continue;
    fix_dims(in, it->second);
  }
  // What the exporter stored for intermediates and outputs was computed for other (symbolic)
  // shapes: inference starts from the inputs alone, so stored dims cannot contradict it.
  g->clear_value_info();
  for (auto& o : *g->mutable_output())
    if (o.type().has_tensor_type()) o.mutable_type()->mutable_tensor_type()->clear_shape();
  try {
    // Node-level failures (an op the library does not know, a custom domain) leave those
    // tensors without shapes instead of stopping inference.
    onnx::ShapeInferenceOptions options(false, 0, true);
    onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    out.error = std::string("ONNX shape inference failed: ") + e.what();
    return out;
  }
  std::vector<int64_t> dims;
  for (const auto* list : {&g->input(), &g->value_info(), &g->output()})
    for (const auto& v : *list)
      if (concrete(v, dims)) out.dims[v.name()] = dims;
  return out;
}

}  // namespace trtlens
