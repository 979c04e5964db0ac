#include "ingest/onnx_model.h"

#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/onnx_pb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <map>
#include <set>

#include "io/input.h"
#include "model/values.h"

namespace trtlens {
namespace {

std::string dtype_name(int type) {
  if (!onnx::TensorProto_DataType_IsValid(type)) {
    switch (type) {  // types newer than the library (ONNX 1.14+)
      case 17:
      case 18:
      case 19:
      case 20:
        return "FP8";
      case 21:
        return "UINT4";
      case 22:
        return "INT4";
      case 23:
        return "FP4";
    }
    return "DATATYPE_" + std::to_string(type);
  }
  if (type == onnx::TensorProto_DataType_UNDEFINED) return "";
  return canonical_dtype(onnx::TensorProto_DataType_Name(type)).dtype;
}

OnnxValue value_of(const onnx::ValueInfoProto& v) {
  OnnxValue out;
  out.name = v.name();
  if (v.type().has_tensor_type()) {
    const auto& tt = v.type().tensor_type();
    out.dtype = dtype_name(tt.elem_type());
    if (tt.has_shape()) {
      out.has_dims = true;
      for (const auto& d : tt.shape().dim())
        out.dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
    }
  }
  return out;
}

// The graph for shape inference: tensor data other than small constants (the shapes Reshape,
// Slice and friends read) is dropped, so a model of many GB keeps a few MB for later.
std::string shape_model(onnx::ModelProto& proto) {
  constexpr size_t kSmall = 4096;  // bytes of data an initializer may keep
  auto strip = [](onnx::TensorProto& t) {
    size_t n = t.raw_data().size() + size_t(t.int64_data_size()) * 8 +
               size_t(t.int32_data_size()) * 4 + size_t(t.float_data_size()) * 4 +
               size_t(t.double_data_size()) * 8 + size_t(t.uint64_data_size()) * 8;
    if (n <= kSmall) return;
    t.clear_raw_data();
    t.clear_int64_data();
    t.clear_int32_data();
    t.clear_float_data();
    t.clear_double_data();
    t.clear_uint64_data();
    t.clear_string_data();
  };
  auto* g = proto.mutable_graph();
  for (auto& t : *g->mutable_initializer()) strip(t);
  for (auto& n : *g->mutable_node())
    for (auto& a : *n.mutable_attribute())
      if (a.has_t()) strip(*a.mutable_t());
  return proto.SerializeAsString();
}

}  // namespace

OnnxModel read_onnx_model(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(path, "cannot open");
  return read_onnx_model_fd(path, fd);
}

OnnxModel read_onnx_model_fd(const std::string& path, int fd) {
  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_size > INT_MAX) {
    ::close(fd);
    throw InputError(path,
                     "ONNX model larger than 2 GB: protobuf cannot read it in one piece; "
                     "save it with external data (onnx.save_model(..., "
                     "save_as_external_data=True)) and pass the small .onnx file");
  }
  onnx::ModelProto proto;
  bool ok = false;
  {
    google::protobuf::io::FileInputStream raw(fd);
    google::protobuf::io::CodedInputStream coded(&raw);
    coded.SetTotalBytesLimit(INT_MAX);
    ok = proto.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  }
  ::close(fd);
  if (!ok || !proto.has_graph())
    throw InputError(path, "not a readable ONNX model (protobuf parse failed or no graph)");

  OnnxModel m;
  m.sources.push_back("onnx-file:" + path);
  const auto& g = proto.graph();
  std::set<std::string> init_names;
  for (const auto& t : g.initializer()) {
    OnnxValue v;
    v.name = t.name();
    v.dtype = dtype_name(t.data_type());
    v.has_dims = true;
    for (int64_t d : t.dims()) v.dims.push_back(d);
    init_names.insert(v.name);
    m.initializers.push_back(std::move(v));
  }
  for (const auto& in : g.input())
    if (!init_names.count(in.name())) m.graph_inputs.push_back(value_of(in));
  for (const auto& out : g.output()) m.graph_outputs.push_back(value_of(out));

  std::map<std::string, OnnxValue> infos;  // dims of intermediate tensors where the model has them
  for (const auto& v : g.value_info()) infos[v.name()] = value_of(v);
  for (const auto& v : m.graph_inputs) infos[v.name] = v;
  for (const auto& v : m.graph_outputs) infos[v.name] = v;
  for (const auto& v : m.initializers) infos[v.name] = v;
  auto value = [&](const std::string& name) {
    auto it = infos.find(name);
    if (it != infos.end()) return it->second;
    OnnxValue v;
    v.name = name;
    return v;
  };

  // One origin for every node of the file.
  auto origin = std::make_shared<const OnnxNodeOrigin>(OnnxNodeOrigin{SourceLoc{path, 0}, {}});
  std::set<std::string> names;
  for (const auto& n : g.node())
    if (!n.name().empty()) names.insert(n.name());
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    OnnxNode node;
    node.index = i;
    node.op = n.op_type();
    node.name = n.name();
    if (node.name.empty()) {
      // Stable across runs: op and graph position; avoid clashing with a real name.
      node.name = node.op + "_" + std::to_string(i);
      while (names.count(node.name)) node.name += "_unnamed";
      node.unnamed = true;
    }
    for (const auto& in : n.input())
      if (!in.empty()) node.inputs.push_back(value(in));
    for (const auto& out : n.output())
      if (!out.empty()) node.outputs.push_back(value(out));
    node.origin = origin;
    m.nodes.push_back(std::move(node));
  }
  m.shape_model = shape_model(proto);
  return m;
}

}  // namespace trtlens
