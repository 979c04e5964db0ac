#include "render/onnx_export.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "analysis/summary.h"
#include "model/values.h"

namespace trtlens {
namespace {

constexpr const char* kDomain = "trtlens.engine";

// Protobuf strings read back by other tools (Python) must be UTF-8: invalid bytes become U+FFFD.
std::string utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_sequence_length(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s, i, n);
      i += n;
    }
  }
  return out;
}

int onnx_elem_type(const std::string& dtype) {
  static const std::unordered_map<std::string, int> types = {
      {"FP32", onnx::TensorProto::FLOAT},    {"FP16", onnx::TensorProto::FLOAT16},
      {"BF16", onnx::TensorProto::BFLOAT16}, {"INT8", onnx::TensorProto::INT8},
      {"UINT8", onnx::TensorProto::UINT8},   {"INT32", onnx::TensorProto::INT32},
      {"INT64", onnx::TensorProto::INT64},   {"BOOL", onnx::TensorProto::BOOL}};
  auto it = types.find(dtype);
  // FP8/FP4/INT4 have no type in the ONNX version Debian ships: UNDEFINED, named in the doc.
  return it == types.end() ? onnx::TensorProto::UNDEFINED : it->second;
}

void set_type(onnx::ValueInfoProto* vi, const Tensor& t) {
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx_elem_type(t.dtype));
  auto* shape = tt->mutable_shape();
  for (int64_t d : t.dims) {
    auto* dim = shape->add_dim();
    if (d >= 0)
      dim->set_dim_value(d);
    else
      dim->set_dim_param("?");  // dynamic in the engine
  }
  std::string doc;
  if (!t.dtype.empty() && onnx_elem_type(t.dtype) == onnx::TensorProto::UNDEFINED)
    doc += "dtype " + t.dtype;
  if (!t.format.empty()) doc += (doc.empty() ? "" : "; ") + std::string("format ") + t.format;
  if (!t.has_dims) doc += (doc.empty() ? "" : "; ") + std::string("shape not given");
  if (!doc.empty()) vi->set_doc_string(utf8(doc));
}

void attr(onnx::NodeProto* n, const char* name, const std::string& v) {
  if (v.empty()) return;
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(utf8(v));
}

void attr(onnx::NodeProto* n, const char* name, double v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(float(v));
}

void attr(onnx::NodeProto* n, const char* name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

}  // namespace

OnnxExport engine_onnx(const Build& b, const std::string& producer_version) {
  OnnxExport out;
  onnx::ModelProto m;
  m.set_ir_version(onnx::IR_VERSION);
  m.set_producer_name("trtlens");
  m.set_producer_version(producer_version);
  m.set_doc_string(
      "TensorRT engine graph (one node per engine layer) drawn from its build log / exports");
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(13);
  op = m.add_opset_import();
  op->set_domain(kDomain);
  op->set_version(1);
  auto* g = m.mutable_graph();
  g->set_name(
      utf8("TensorRT engine" + (b.trt_version.empty() ? "" : " (TensorRT " + b.trt_version + ")")));

  // ONNX wants each name defined once, before its readers. Engine order already runs producers
  // first; a name written twice gets a " #2" suffix for the later writer and its readers, and a
  // name read before any layer writes it becomes a graph input.
  std::unordered_map<std::string, std::string> current;  // engine name -> ONNX name
  std::unordered_set<std::string> defined;
  std::unordered_set<std::string> binding_inputs(b.graph.inputs.begin(), b.graph.inputs.end());
  std::unordered_map<std::string, const Tensor*> first_view;
  size_t renamed = 0, extra_inputs = 0;
  auto define = [&](const std::string& name) {
    std::string onnx_name = utf8(name);
    for (int k = 2; defined.count(onnx_name); ++k)
      onnx_name = utf8(name) + " #" + std::to_string(k);
    if (onnx_name != utf8(name)) ++renamed;
    defined.insert(onnx_name);
    current[name] = onnx_name;
    return onnx_name;
  };
  // Graph inputs in the engine's order first, typed as their first reader sees them.
  std::unordered_map<std::string, const Tensor*> first_read;
  for (const auto& l : b.layers)
    for (const auto& t : l.inputs) first_read.emplace(t.name, &t);
  for (const auto& name : b.graph.inputs) {
    auto* vi = g->add_input();
    vi->set_name(define(name));
    if (auto it = first_read.find(name); it != first_read.end())
      set_type(vi, *it->second);
    else
      set_type(vi, Tensor{});
  }
  std::unordered_set<std::string> graph_outputs(b.graph.outputs.begin(), b.graph.outputs.end());
  std::vector<onnx::ValueInfoProto> extra;
  for (const auto& l : b.layers) {
    auto* n = g->add_node();
    n->set_name(utf8(l.name));
    n->set_op_type(utf8(l.type.empty() ? "Unknown" : l.type));
    n->set_domain(kDomain);
    for (const auto& t : l.inputs) {
      auto it = current.find(t.name);
      if (it == current.end()) {
        onnx::ValueInfoProto vi;
        vi.set_name(define(t.name));
        set_type(&vi, t);
        vi.set_doc_string(
            utf8("read but written by no layer (a constant, weights or a shape "
                 "tensor)" +
                 (vi.doc_string().empty() ? "" : "; " + vi.doc_string())));
        extra.push_back(std::move(vi));
        ++extra_inputs;
        it = current.find(t.name);
      }
      n->add_input(it->second);
    }
    for (const auto& t : l.outputs) {
      std::string name = define(t.name);
      n->add_output(name);
      if (!graph_outputs.count(t.name) && !(t.dtype.empty() && !t.has_dims)) {
        auto* vi = g->add_value_info();
        vi->set_name(name);
        set_type(vi, t);
      }
      first_view.emplace(t.name, &t);
    }
    if (l.tactic) attr(n, "tactic", *l.tactic);
    attr(n, "kernel", l.tactic_name);
    attr(n, "precision", output_precision(l));
    if (l.role != LayerRole::Unknown) attr(n, "role", std::string(to_string(l.role)));
    if (auto ms = l.time.average_ms ? l.time.average_ms : l.time.total_ms) attr(n, "time_ms", *ms);
    if (l.time.percentage) attr(n, "time_percent", *l.time.percentage);
    const LayerMemory& mem = l.memory;
    if (mem.output_bytes) attr(n, "output_bytes", int64_t(*mem.output_bytes));
    if (mem.weight_bytes) attr(n, "weight_bytes", int64_t(*mem.weight_bytes));
    if (mem.device_persistent) attr(n, "device_persistent_bytes", int64_t(*mem.device_persistent));
    if (mem.scratch) attr(n, "scratch_bytes", int64_t(*mem.scratch));
    if (!l.onnx_nodes.empty()) {
      auto* a = n->add_attribute();
      a->set_name("onnx_nodes");
      a->set_type(onnx::AttributeProto::STRINGS);
      for (const auto& s : l.onnx_nodes) a->add_strings(utf8(s));
    }
    if (l.stream_id) attr(n, "stream", int64_t(*l.stream_id));
  }
  for (auto& vi : extra) *g->add_input() = std::move(vi);
  for (const auto& name : b.graph.outputs) {
    auto* vi = g->add_output();
    auto it = current.find(name);
    vi->set_name(it != current.end() ? it->second : utf8(name));
    if (auto t = first_view.find(name); t != first_view.end()) set_type(vi, *t->second);
  }
  if (renamed)
    out.notes.push_back(std::to_string(renamed) +
                        " tensor name(s) written by more than one layer: later ones renamed "
                        "'NAME #2' (ONNX names are written once)");
  if (extra_inputs)
    out.notes.push_back(std::to_string(extra_inputs) +
                        " tensor(s) read but written by no layer and not engine bindings "
                        "(constants, shape tensors) added as graph inputs");
  if (!m.SerializeToString(&out.bytes)) throw std::runtime_error("cannot serialize the ONNX model");
  return out;
}

}  // namespace trtlens
