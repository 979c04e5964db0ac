#include "analysis/memory.h"

#include <set>
#include <unordered_set>

#include "analysis/layer_names.h"
#include "analysis/liveness.h"
#include "analysis/shapes.h"
#include "model/parallel.h"
#include "model/values.h"

namespace trtlens {
namespace {

constexpr uint64_t kMaxBytes = uint64_t(1) << 62;

// The stored element type of a JSON "Weights"/"Bias" entry and its count.
struct WeightsEntry {
  std::string dtype;
  uint64_t count = 0;
};
std::optional<WeightsEntry> weights_entry(const nlohmann::ordered_json& value) {
  if (value.is_string()) {  // the one-line dump may keep "{Type: Int8, Count: 864}" as text
    std::string text = value.get<std::string>();
    auto tp = text.find("Type"), cp = text.find("Count");
    if (cp == std::string::npos) return std::nullopt;
    WeightsEntry e;
    size_t d = text.find_first_of("0123456789", cp);
    if (d == std::string::npos) return std::nullopt;
    e.count = std::stoull(text.substr(d, text.find_first_not_of("0123456789", d) - d));
    if (tp != std::string::npos) {
      size_t a = text.find_first_not_of(" \":=", tp + 4);
      size_t z = a == std::string::npos ? a : text.find_first_of(" \",}", a);
      if (a != std::string::npos) e.dtype = canonical_dtype(text.substr(a, z - a)).dtype;
    }
    return e;
  }
  if (!value.is_object()) return std::nullopt;
  auto type = value.find("Type");
  auto count = value.find("Count");
  if (count == value.end() || !count->is_number_integer()) return std::nullopt;
  int64_t c = count->get<int64_t>();
  if (c < 0) return std::nullopt;
  WeightsEntry e;
  e.count = uint64_t(c);
  if (type != value.end() && type->is_string())
    e.dtype = canonical_dtype(type->get<std::string>()).dtype;
  return e;
}

// Every weight-bearing key of a layer: "Weights" / "Bias", and the prefixed keys of fused
// layers (a ConvActPool layer has "ConvWeights" and "ConvBias"). Biases are kept apart, as
// TREx's weights figure leaves them out.
struct StoredWeights {
  std::optional<uint64_t> weight_count;  // elements of the weights keys
  std::optional<uint64_t> weight_bytes, bias_bytes;
};
bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}
StoredWeights stored_weights(const Attributes& attrs) {
  StoredWeights out;
  auto add = [](std::optional<uint64_t>& sum, std::optional<uint64_t> v) {
    sum = sum.value_or(0) + v.value_or(0);
  };
  for (const auto& member : attrs) {
    const std::string key = member.key();
    const bool weights = ends_with(key, "Weights");
    const bool bias = ends_with(key, "Bias");
    if (!weights && !bias) continue;
    auto e = weights_entry(member.value());
    if (!e) continue;
    if (weights) {
      add(out.weight_count, e->count);
      add(out.weight_bytes, element_bytes(e->dtype, e->count));
    } else {
      add(out.bias_bytes, element_bytes(e->dtype, e->count));
    }
  }
  return out;
}

std::optional<int64_t> int_attr(const Attributes& attrs, const char* key) {
  return attrs.integer(key);
}

// Layer kinds that carry no weights of their own (a point-wise chain, a reformat, a copy ...):
// their weights are zero, not unknown.
bool weightless_type(const Layer& l) {
  // Hashed views of literals: a set of strings compared a few names per lookup, on every layer.
  static const std::unordered_set<std::string_view> kinds = {
      "Reformat", "PointWise",    "PointWiseV2", "ElementWise",   "Shuffle", "NoOp",
      "Pooling",  "Activation",   "Softmax",     "Concatenation", "Slice",   "Reduce",
      "Padding",  "Identity",     "Resize",      "Gather",        "Shape",   "TopK",
      "Unary",    "CudnnPooling", "CaskPooling", "Cast",          "Select"};
  if (kinds.count(std::string_view(l.type))) return true;
  // Names such as "PWN(Add_133)" or "Reformatting CopyNode for ..." say so even without a type.
  return l.name.rfind("PWN(", 0) == 0 && l.name.find(" + ") == std::string::npos &&
         l.name.find(" || ") == std::string::npos;
}

struct WeightCount {
  uint64_t elements = 0;
  std::vector<std::string> nodes;
};

// Weight elements of the ONNX nodes fused into `layer` (the parse section's tensors); nullopt
// unless every node of the name is known.
// `names` is scratch space the caller keeps from layer to layer.
std::optional<WeightCount> onnx_weights(const Layer& layer, const OnnxModel& onnx,
                                        std::vector<std::string_view>& names) {
  if (onnx.nodes.empty()) return std::nullopt;
  fused_node_views(layer.name, names);
  if (names.empty()) return std::nullopt;
  WeightCount w;
  for (std::string_view name : names) {
    const OnnxNode* node = onnx.find(name);
    if (!node) return std::nullopt;
    if (node->inputs.empty() && node->outputs.empty()) {
      // The parse trace was cut before the node's tensors: only ops that never carry weights
      // are known.
      static const std::unordered_set<std::string_view> weightless = {"Clip",
                                                                      "Relu",
                                                                      "LeakyRelu",
                                                                      "Sigmoid",
                                                                      "Tanh",
                                                                      "HardSigmoid",
                                                                      "HardSwish",
                                                                      "Softmax",
                                                                      "MaxPool",
                                                                      "AveragePool",
                                                                      "GlobalAveragePool",
                                                                      "Reshape",
                                                                      "Transpose",
                                                                      "Flatten",
                                                                      "Identity",
                                                                      "Concat",
                                                                      "Split",
                                                                      "Slice",
                                                                      "Squeeze",
                                                                      "Unsqueeze",
                                                                      "Cast",
                                                                      "Elu",
                                                                      "Selu"};
      if (!weightless.count(std::string_view(node->op))) return std::nullopt;
      w.nodes.emplace_back(name);
      continue;
    }
    const bool weighted_op = node->op == "Conv" || node->op == "ConvTranspose" ||
                             node->op == "Gemm" || node->op == "MatMul";
    for (size_t i = 0; i < node->inputs.size(); ++i) {
      const OnnxValue& v = node->inputs[i];
      // The seed's convention counts K·C·R·S/G: a convolution's or Gemm's bias is left out.
      if (weighted_op && i == 2) continue;
      bool is_weight = weighted_op
                           ? (i == 1 && (node->op != "MatMul" || onnx.is_initializer(v.name)))
                           : onnx.is_initializer(v.name);
      if (!is_weight) continue;
      if (!v.has_dims) return std::nullopt;
      auto vol = volume(v.dims);
      if (!vol) return std::nullopt;
      w.elements += *vol;
    }
    w.nodes.emplace_back(name);
  }
  return w;
}

}  // namespace

std::optional<std::pair<std::string, std::vector<int64_t>>> parse_shape_option(
    const std::string& spec) {
  size_t eq = spec.rfind('=');
  if (eq == std::string::npos || eq == 0) return std::nullopt;
  auto dims = parse_x_dims(spec.substr(eq + 1));
  if (!dims) return std::nullopt;
  return std::make_pair(spec.substr(0, eq), *dims);
}

std::optional<uint64_t> volume(const std::vector<int64_t>& dims) {
  uint64_t v = 1;
  for (int64_t d : dims) {
    if (d < 0) return std::nullopt;
    if (d != 0 && v > kMaxBytes / uint64_t(d)) return std::nullopt;
    v *= uint64_t(d);
  }
  return v;
}

std::optional<uint64_t> element_bytes(const std::string& dtype, uint64_t count) {
  auto bits = dtype_bits(dtype);
  if (!bits || count > kMaxBytes / 8) return std::nullopt;
  return (count * uint64_t(*bits) + 7) / 8;
}

ShapeResolver::ShapeResolver(const Build& b,
                             const std::map<std::string, std::vector<int64_t>>& shapes,
                             const std::map<std::string, std::vector<int64_t>>* onnx)
    : shapes_(shapes), onnx_(onnx) {
  std::map<int64_t, std::set<int64_t>> values;
  auto consider = [&](const std::map<std::string, std::vector<int64_t>>& given, const Tensor& t) {
    auto it = given.find(t.name);
    if (it == given.end() || !t.has_dims || it->second.size() != t.dims.size()) return;
    for (size_t i = 0; i < t.dims.size(); ++i)
      if (t.dims[i] < 0) values[t.dims[i]].insert(it->second[i]);
  };
  auto each_tensor = [&](auto&& f) {
    for (const auto& l : b.layers) {
      for (const auto& t : l.inputs) f(t);
      for (const auto& t : l.outputs) f(t);
    }
    for (const auto& bd : b.bindings) f(bd.tensor);
  };
  each_tensor([&](const Tensor& t) { consider(shapes_, t); });
  for (const auto& [symbol, v] : values)
    if (v.size() == 1) symbols_[symbol] = *v.begin();
  if (!onnx_) return;
  for (const auto& [name, dims] : *onnx_) onnx_names_.push_back(name);  // a map: sorted
  each_tensor([&](const Tensor& t) {
    if (shapes_.count(t.name) || !t.has_dims) return;
    const std::vector<int64_t>* d = onnx_dims(t.name);
    if (!d || d->size() != t.dims.size() || !agrees(t, *d)) return;
    for (size_t i = 0; i < t.dims.size(); ++i)
      if (t.dims[i] < 0) values[t.dims[i]].insert((*d)[i]);
  });
  for (const auto& [symbol, v] : values)
    if (v.size() == 1) onnx_symbols_[symbol] = *v.begin();
}

const std::vector<int64_t>* ShapeResolver::onnx_dims(const std::string& name) const {
  if (!onnx_) return nullptr;
  auto it = onnx_->find(name);
  if (it == onnx_->end())
    if (auto full = unique_prefix_match(onnx_names_, name)) it = onnx_->find(*full);
  return it == onnx_->end() ? nullptr : &it->second;
}

// The ONNX dims fit what TensorRT printed: same rank, same concrete dims (also those a given
// shape fixed).
bool ShapeResolver::agrees(const Tensor& t, const std::vector<int64_t>& dims) const {
  if (!t.has_dims || dims.size() != t.dims.size()) return false;
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = t.dims[i];
    if (d < 0)
      if (auto it = symbols_.find(d); it != symbols_.end()) d = it->second;
    if (d >= 0 && d != dims[i]) return false;
  }
  return true;
}

std::optional<std::vector<int64_t>> ShapeResolver::resolve(const Tensor& t, Source& how) const {
  how = Source::Unknown;
  if (auto it = shapes_.find(t.name); it != shapes_.end()) {
    how = Source::Given;
    return it->second;
  }
  if (!t.has_dims) return std::nullopt;
  auto substitute =
      [&](const std::map<int64_t, int64_t>& symbols) -> std::optional<std::vector<int64_t>> {
    std::vector<int64_t> d = t.dims;
    for (auto& x : d) {
      if (x >= 0) continue;
      auto it = symbols.find(x);
      if (it == symbols.end()) return std::nullopt;
      x = it->second;
    }
    return d;
  };
  if (auto d = substitute(symbols_)) {
    how = d == t.dims ? Source::Printed : Source::Given;
    return d;
  }
  if (!onnx_) return std::nullopt;
  if (const auto* d = onnx_dims(t.name); d && agrees(t, *d)) {
    how = Source::Onnx;
    return *d;
  }
  if (auto d = substitute(onnx_symbols_)) {
    how = Source::Onnx;
    return d;
  }
  return std::nullopt;
}

std::optional<std::vector<int64_t>> ShapeResolver::dims(const Tensor& t) const {
  Source how;
  return resolve(t, how);
}

ShapeResolver::Source ShapeResolver::source(const Tensor& t) const {
  Source how;
  resolve(t, how);
  return how;
}

namespace {

// What one build's analysis says, kept apart while builds run on several threads and added to
// the capture's diagnostics in build order afterwards.
struct BuildNotes {
  std::vector<Diagnostic> said;
  // Unknown dtypes in order of first use, each with its warning: the capture warns once per
  // dtype, in the first build that uses it.
  std::vector<std::pair<std::string, Diagnostic>> dtypes;
};

void analyze_build_memory(const Capture& c, Build& b,
                          const std::map<std::string, std::vector<int64_t>>& shapes,
                          const InferredShapes* inferred, BuildNotes& notes);

}  // namespace

void analyze_memory(Capture& c, const std::vector<std::string>& shape_options, unsigned threads,
                    const std::vector<bool>& only) {
  std::map<std::string, std::vector<int64_t>> given;
  for (const auto& spec : shape_options) {
    if (auto s = parse_shape_option(spec))
      given[s->first] = s->second;
    else
      c.diagnostics.push_back(
          {Severity::Error, {"--shape", 0}, "--shape '" + spec + "': expected name=1x3x224x224"});
  }
  const size_t n = c.builds.size();
  std::vector<std::map<std::string, std::vector<int64_t>>> shapes_of(n);
  std::vector<const InferredShapes*> inferred_of(n, nullptr);
  std::vector<BuildNotes> notes(n);
  std::map<std::map<std::string, std::vector<int64_t>>, InferredShapes> inferred_by_shapes;
  for (size_t i = 0; i < n; ++i) {
    const Build& b = c.builds[i];
    // The log's profile shapes first; --shape overrides them.
    auto& shapes = shapes_of[i];
    for (const auto& [name, text] : b.memory.profile_shapes)
      if (auto d = parse_x_dims(text)) shapes[name] = *d;
    for (const auto& [name, d] : given) shapes[name] = d;
    // With a model file, the ONNX library's shape inference follows the given shapes through
    // the graph (one run per distinct set of shapes).
    if (!shapes.empty() && !c.onnx.shape_model.empty()) {
      auto it = inferred_by_shapes.find(shapes);
      if (it == inferred_by_shapes.end()) {
        it =
            inferred_by_shapes.emplace(shapes, infer_onnx_shapes(c.onnx.shape_model, shapes)).first;
        if (!it->second.error.empty())
          notes[i].said.push_back(
              {Severity::Warning, SourceLoc{b.source.path, b.source.line}, it->second.error});
      }
      inferred_of[i] = &it->second;
    }
  }
  c.onnx.index();  // built here: the builds' threads only read it
  parallel_for(n, threads, [&](size_t i) {
    if (!only.empty() && !only[i]) return;
    analyze_build_memory(c, c.builds[i], shapes_of[i], inferred_of[i], notes[i]);
  });
  std::set<std::string> unknown_dtypes;
  for (BuildNotes& k : notes) {
    for (Diagnostic& d : k.said) c.diagnostics.push_back(std::move(d));
    for (auto& [dtype, d] : k.dtypes)
      if (unknown_dtypes.insert(dtype).second) c.diagnostics.push_back(std::move(d));
  }
}

namespace {

void analyze_build_memory(const Capture& c, Build& b,
                          const std::map<std::string, std::vector<int64_t>>& shapes,
                          const InferredShapes* inferred, BuildNotes& notes) {
  std::set<std::string> unknown_dtypes;
  ShapeResolver resolve(b, shapes, inferred ? &inferred->dims : nullptr);
  b.memory.tensors_dims_from_onnx.reset();
  b.memory.tensors_dims_unknown.reset();
  if (!shapes.empty()) {
    // Say how many dynamic tensors no given shape resolves (their sizes stay unknown), and
    // how many the ONNX model's shape inference resolved.
    std::set<std::string> open, from_onnx;
    std::set<int64_t> symbols;
    auto check_dims = [&](const Tensor& t) {
      if (!t.has_dims) return;
      auto how = resolve.source(t);
      if (how == ShapeResolver::Source::Onnx) from_onnx.insert(t.name);
      if (how != ShapeResolver::Source::Unknown) return;
      open.insert(t.name);
      for (int64_t d : t.dims)
        if (d < 0 && !resolve.fixes(d)) symbols.insert(d);
      // Every symbol fixed, but by shapes that disagree: name them all.
      if (symbols.empty())
        for (int64_t d : t.dims)
          if (d < 0) symbols.insert(d);
    };
    for (const auto& l : b.layers) {
      for (const auto& t : l.inputs) check_dims(t);
      for (const auto& t : l.outputs) check_dims(t);
    }
    b.memory.tensors_dims_unknown = open.size();
    if (inferred) {
      b.memory.tensors_dims_from_onnx = from_onnx.size();
      notes.said.push_back(
          {Severity::Info, SourceLoc{b.source.path, b.source.line},
           "build " + std::to_string(b.id) + ": " + std::to_string(from_onnx.size()) +
               " tensor(s) take their dims from the ONNX model's shape inference"});
    }
    if (!open.empty()) {
      std::string list;
      size_t shown = 0;
      for (auto it = symbols.rbegin(); it != symbols.rend() && shown < 6; ++it, ++shown)
        list += (shown ? ", " : "") + std::to_string(*it);
      if (symbols.size() > shown) list += ", ...";
      notes.said.push_back(
          {Severity::Warning, SourceLoc{b.source.path, b.source.line},
           "build " + std::to_string(b.id) + ": " + std::to_string(open.size()) +
               " tensor(s) keep dynamic dims no given shape fixes (symbols " + list +
               "): their sizes are unknown; give --shape for the tensors that carry them" +
               (c.onnx.shape_model.empty() ? ", or --onnx MODEL to infer them" : "")});
    }
  }

  auto tensor_size = [&](const Tensor& t) -> std::optional<uint64_t> {
    if (t.dtype.empty()) return std::nullopt;
    if (!dtype_bits(t.dtype)) {
      if (unknown_dtypes.insert(t.dtype).second)
        notes.dtypes.emplace_back(
            t.dtype, Diagnostic{Severity::Warning, SourceLoc{b.source.path, b.source.line},
                                "dtype '" + t.dtype + "' has no known element size: " +
                                    "sizes of its tensors are unknown"});
      return std::nullopt;
    }
    auto d = resolve.dims(t);
    if (!d) return std::nullopt;
    auto v = volume(*d);
    if (!v) return std::nullopt;
    return element_bytes(t.dtype, *v);
  };
  auto sum_sizes = [&](const std::vector<Tensor>& ts) -> std::optional<uint64_t> {
    uint64_t s = 0;
    for (const auto& t : ts) {
      auto n = tensor_size(t);
      if (!n) return std::nullopt;
      s += *n;
    }
    return s;
  };

  // Words in a dtype position that name no dtype: one diagnostic per build, not per tensor.
  size_t no_dtype = 0;
  const Tensor* example = nullptr;
  auto check = [&](const Tensor& t) {
    if (!t.dtype.empty() || t.dtype_known) return;
    ++no_dtype;
    if (!example) example = &t;
  };
  for (const auto& l : b.layers) {
    for (const auto& t : l.inputs) check(t);
    for (const auto& t : l.outputs) check(t);
  }
  if (no_dtype)
    notes.said.push_back({Severity::Warning, SourceLoc{b.source.path, b.source.line},
                          "build " + std::to_string(b.id) + ": " + std::to_string(no_dtype) +
                              " tensor(s) give no dtype (e.g. '" + example->name + "': '" +
                              example->format + "'): their dtype and sizes are unknown"});

  BuildMemory& bm = b.memory;
  uint64_t in_sum = 0, w_sum = 0, out_sum = 0, ws_sum = 0, bs_sum = 0;
  bool any_ws = false, any_bs = false;
  bm.layers_with_unknown_size = 0;
  std::vector<std::string_view> node_names;
  for (Layer& l : b.layers) {
    LayerMemory& m = l.memory;
    // A layer without tensors (a stream event) moves 0 bytes; a names-only listing says
    // nothing either way.
    m.input_bytes = b.names_only ? std::nullopt : sum_sizes(l.inputs);
    m.output_bytes = b.names_only ? std::nullopt : sum_sizes(l.outputs);

    // The seed sizes weights at the layer's first input element size.
    std::optional<int> in_bits;
    if (!l.inputs.empty()) in_bits = dtype_bits(l.inputs.front().dtype);
    auto at_input_size = [&](uint64_t elements) -> std::optional<uint64_t> {
      if (!in_bits) return std::nullopt;
      return element_bytes(l.inputs.front().dtype, elements);
    };
    m.weight_bytes.reset();
    m.weight_source = {};
    m.weight_nodes.clear();
    const auto& attrs = l.attributes;
    auto stored = stored_weights(attrs);
    m.weights_stored_bytes = stored.weight_bytes;
    m.bias_stored_bytes = stored.bias_bytes;
    if (stored.weight_count) {
      m.weight_bytes = at_input_size(*stored.weight_count);
      m.weight_source = "layer-json";
    } else if (auto k = int_attr(attrs, "OutMaps"); k && attrs.contains("Kernel") &&
                                                    !l.inputs.empty() &&
                                                    l.inputs.front().dims.size() >= 2) {
      // K·C·R·S/G from the convolution's parameters.
      int64_t g = int_attr(attrs, "Groups").value_or(1);
      int64_t ch = l.inputs.front().dims[1];
      std::vector<int64_t> dims{*k, ch};
      auto kernel = attrs.get("Kernel");
      if (kernel && kernel->is_array())
        for (const auto& r : *kernel)
          if (r.is_number_integer()) dims.push_back(r.get<int64_t>());
      auto v = volume(dims);
      if (v && g > 0) {
        m.weight_bytes = at_input_size(*v / uint64_t(g));
        m.weight_source = "layer-json";
      }
    } else if (attrs.contains("ParameterType")) {
      m.weight_bytes = 0;  // detailed JSON lists Weights for every layer that has them
      m.weight_source = "layer-json";
    }
    if (m.weight_source.empty()) {
      if (auto w = onnx_weights(l, c.onnx, node_names)) {
        m.weight_bytes = at_input_size(w->elements);
        m.weight_source = "onnx-parse";
        m.weight_nodes = w->nodes;
      } else if (weightless_type(l)) {
        m.weight_bytes = 0;
        m.weight_source = "layer-type";
      }
    }
    if (m.input_bytes && m.weight_bytes && m.output_bytes)
      m.total_bytes = *m.input_bytes + *m.weight_bytes + *m.output_bytes;
    else
      m.total_bytes.reset();
    // Known weights alone say nothing of the footprint (they are often 0): a floor needs a
    // tensor side.
    if (m.input_bytes || m.output_bytes)
      m.footprint_floor_bytes =
          m.input_bytes.value_or(0) + m.weight_bytes.value_or(0) + m.output_bytes.value_or(0);
    else
      m.footprint_floor_bytes.reset();

    if (!m.total_bytes) ++bm.layers_with_unknown_size;
    in_sum += m.input_bytes.value_or(0);
    w_sum += m.weight_bytes.value_or(0);
    out_sum += m.output_bytes.value_or(0);
    if (m.weights_stored_bytes) {
      ws_sum += *m.weights_stored_bytes;
      any_ws = true;
    }
    if (m.bias_stored_bytes) {
      bs_sum += *m.bias_stored_bytes;
      any_bs = true;
    }
  }
  if (!b.layers.empty()) {
    bm.sum_input_bytes = in_sum;
    bm.sum_weight_bytes = w_sum;
    bm.sum_output_bytes = out_sum;
  }
  if (any_ws) bm.sum_weights_stored_bytes = ws_sum;
  if (any_bs) bm.sum_bias_stored_bytes = bs_sum;
  estimate_liveness(b, tensor_size);
}

}  // namespace

}  // namespace trtlens
