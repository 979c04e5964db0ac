#include "analysis/remarks.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace trtlens {
namespace {

bool low_precision(const std::string& dtype) {
  return dtype == "INT8" || dtype == "FP8" || dtype == "INT4" || dtype == "FP4";
}
bool float_dtype(const std::string& dtype) {
  return dtype == "FP32" || dtype == "FP16" || dtype == "BF16";
}
bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// Output spatial dims 1x1 from an input map larger than that.
bool global_pool(const Layer& l) {
  if (l.inputs.empty() || l.outputs.empty()) return false;
  const auto& in = l.inputs[0].dims;
  const auto& out = l.outputs[0].dims;
  if (in.size() < 3 || out.size() < 3 || in.size() != out.size()) return false;
  const size_t h = out.size() - 2, w = out.size() - 1;
  return out[h] == 1 && out[w] == 1 && (in[h] > 1 || in[w] > 1);
}

std::string first_dtype(const std::vector<Tensor>& ts) {
  for (const auto& t : ts)
    if (!t.dtype.empty()) return t.dtype;
  return "";
}

// Producers and consumers of each tensor of a build, by name.
struct Wiring {
  std::map<std::string, size_t> producer;
  std::map<std::string, std::vector<size_t>> consumers;
  explicit Wiring(const Build& b) {
    for (size_t i = 0; i < b.layers.size(); ++i) {
      for (const auto& t : b.layers[i].outputs) producer.emplace(t.name, i);
      for (const auto& t : b.layers[i].inputs) consumers[t.name].push_back(i);
    }
  }
  std::vector<size_t> before(const Layer& l) const {
    std::vector<size_t> out;
    for (const auto& t : l.inputs)
      if (auto it = producer.find(t.name); it != producer.end()) out.push_back(it->second);
    return out;
  }
  std::vector<size_t> after(const Layer& l) const {
    std::vector<size_t> out;
    for (const auto& t : l.outputs)
      if (auto it = consumers.find(t.name); it != consumers.end())
        out.insert(out.end(), it->second.begin(), it->second.end());
    return out;
  }
};

bool is_conv(const Layer& l) {
  return contains(l.type, "Convolution") && !contains(l.type, "Deconv");
}
bool is_qdq(const Layer& l) {
  return l.type == "Quantize" || l.type == "Dequantize" || contains(l.name, "QuantizeLinear");
}
bool runs(const Layer& l) { return l.role == LayerRole::Runs || l.role == LayerRole::Unknown; }

class Builder {
 public:
  explicit Builder(Capture& c) : c_(c) {}

  Remark& add(const char* kind, const char* category, const Build* b, const Layer* l,
              std::string reason) {
    Remark r;
    r.kind = kind;
    r.category = category;
    r.build = b ? b->id : -1;
    if (l) {
      r.layer = l->name;
      r.onnx_nodes = l->onnx_nodes;
      if (l->source.line) r.evidence.push_back(l->source);
    }
    r.reason = std::move(reason);
    c_.remarks.push_back(std::move(r));
    return c_.remarks.back();
  }

  // The engine layer of `b` that computes network layer / ONNX node `name`.
  Layer* layer_for(Build& b, const std::string& name) {
    for (auto& l : b.layers)
      if (l.name == name) return &l;
    for (auto& l : b.layers)
      if (std::find(l.onnx_nodes.begin(), l.onnx_nodes.end(), name) != l.onnx_nodes.end())
        return &l;
    return nullptr;
  }

  Build* build_of(const std::string& path, int run) {
    Build* found = nullptr;
    for (auto& b : c_.builds)
      if (b.source.path == path && b.run == run) found = &b;
    return found ? found : const_cast<Build*>(c_.final_build());
  }

  void dla() {
    for (const auto& f : c_.dla_fallbacks) {
      Build* b = build_of(f.source.path, f.run);
      Layer* l = b ? layer_for(*b, f.layer) : nullptr;
      std::string reason = f.reason.empty() ? "TensorRT printed no reason" : f.reason;
      Remark& r =
          add("missed", "dla", b, nullptr,
              (f.kind.empty() ? "" : f.kind + " ") + "falls back from DLA to GPU: " + reason);
      r.layer = l ? l->name : f.layer;
      r.onnx_nodes =
          l && !l->onnx_nodes.empty() ? l->onnx_nodes : std::vector<std::string>{f.layer};
      r.evidence.push_back(f.source);
      if (f.reason_source.line) r.evidence.push_back(f.reason_source);
      if (l) {
        l->device = "GPU";
        l->fallback_reason = reason;
      }
    }
    for (const auto& p : c_.placements) {
      if (p.device != "DLA") continue;
      Build* b = build_of(p.source.path, p.run);
      Remark& r = add("passed", "dla", b, nullptr, "runs on DLA");
      r.layer = p.layer;
      r.evidence.push_back(p.source);
    }
  }

  void precision(Build& b, const Wiring& w) {
    for (const auto& p : c_.precision_fallbacks) {
      if (p.source.path != b.source.path || p.run != b.run) continue;
      bool any = false;
      for (auto& l : b.layers) {
        bool touches = false;
        for (const auto* ts : {&l.inputs, &l.outputs})
          for (const auto& t : *ts) touches |= t.name == p.tensor;
        if (!touches) continue;
        any = true;
        Remark& r = add("missed", "precision", &b, &l, p.reason);
        r.evidence.insert(r.evidence.begin(), p.source);
      }
      if (!any) {
        Remark& r = add("missed", "precision", &b, nullptr, p.reason);
        r.onnx_nodes = {p.tensor};
        r.evidence.push_back(p.source);
      }
    }
    bool low = false;
    for (const auto& l : b.layers) low |= low_precision(first_dtype(l.outputs));
    if (!low) return;
    for (const auto& l : b.layers) {
      if (!runs(l) || is_qdq(l)) continue;
      const std::string out = first_dtype(l.outputs), in = first_dtype(l.inputs);
      if (is_conv(l) && low_precision(in) && float_dtype(out)) {
        add("analysis", "precision", &b, &l,
            "INT8 convolution writes " + out + " output (its consumer needs float)");
        continue;
      }
      if (!float_dtype(out) || l.role == LayerRole::Reformat) continue;
      std::vector<size_t> before = w.before(l), after = w.after(l);
      auto all_low = [&](const std::vector<size_t>& v) {
        if (v.empty()) return false;
        for (size_t i : v)
          if (!low_precision(first_dtype(b.layers[i].outputs)) &&
              !low_precision(first_dtype(b.layers[i].inputs)))
            return false;
        return true;
      };
      if (all_low(before) && all_low(after))
        add("missed", "precision", &b, &l,
            "stays " + out + " between " + first_dtype(b.layers[before[0]].outputs) +
                " neighbours '" + b.layers[before[0]].name + "' and '" + b.layers[after[0]].name +
                "' (no INT8 implementation chosen, or no scales; TensorRT printed no reason)");
    }
  }

  void fusion(Build& b, const Wiring& w) {
    for (const auto& e : c_.onnx.events) {
      if (e.kind == "run") continue;
      std::string what = e.kind == "fuse"     ? "fused " + e.subject + " with " + e.other
                         : e.kind == "remove" ? "removed " + e.subject
                         : e.kind == "fold"   ? "folded " + e.subject
                                              : "eliminated concatenation " + e.subject;
      Remark& r =
          add("passed", "fusion", &b, nullptr, (e.pass.empty() ? "" : e.pass + ": ") + what);
      r.onnx_nodes = {e.subject};
      if (!e.other.empty()) r.onnx_nodes.push_back(e.other);
      if (Layer* l = layer_for(b, e.subject)) r.layer = l->name;
      r.evidence.push_back(e.source);
    }
    for (const auto& l : b.layers) {
      if (!runs(l)) continue;
      if (is_qdq(l) || (l.type == "Scale" && (low_precision(first_dtype(l.inputs)) !=
                                              low_precision(first_dtype(l.outputs))))) {
        add("missed", "fusion", &b, &l,
            "Quantize/Dequantize left unfused (runs as its own " + l.type + " layer)");
        continue;
      }
      if (!is_conv(l)) continue;
      std::vector<size_t> next = w.after(l);
      if (next.size() != 1) continue;
      const Layer& n = b.layers[next[0]];
      const std::string t = n.type;
      std::string pattern;
      if (contains(t, "Pooling")) {
        // A global pool (1x1 output from a larger map) is a reduction, never a ConvActPool
        // candidate; an INT8 pair that stayed apart did not miss the precision precondition.
        if (global_pool(n)) continue;
        pattern = first_dtype(l.inputs) == "INT8"
                      ? "convolution and the pooling after it stayed apart"
                      : "convolution and the pooling after it stayed apart (ConvActPool fuses "
                        "only in INT8)";
      } else if (contains(t, "Activation"))
        pattern = "convolution and the activation after it stayed apart";
      else if (contains(t, "ElementWise"))
        pattern = "convolution and the element-wise layer after it stayed apart";
      if (pattern.empty()) continue;
      Remark& r = add("missed", "fusion", &b, &l, pattern + " ('" + n.name + "')");
      for (const auto& node : n.onnx_nodes) r.onnx_nodes.push_back(node);
    }
  }

  void reformats(Build& b, const Wiring& w) {
    std::set<std::string> inputs, outputs;
    for (const auto& bd : b.bindings) (bd.io_mode == "Output" ? outputs : inputs).insert(bd.name);
    for (const auto& l : b.layers) {
      if (l.role != LayerRole::Reformat) continue;
      std::vector<size_t> before = w.before(l), after = w.after(l);
      const Layer* prev = before.empty() ? nullptr : &b.layers[before[0]];
      const Layer* next = after.empty() ? nullptr : &b.layers[after[0]];
      const std::string in = first_dtype(l.inputs), out = first_dtype(l.outputs);
      auto boundary = [&](const Layer* n) -> std::string {
        if (!n) return "";
        if (contains(n->type, "Plugin")) return "plugin boundary ('" + n->name + "')";
        if (n->device == "DLA" || l.device == "DLA" || contains(n->name, "DLA"))
          return "DLA boundary ('" + n->name + "')";
        if (contains(n->type, "Myelin")) return "Myelin boundary ('" + n->name + "')";
        if (is_qdq(*n)) return "Q/DQ ('" + n->name + "')";
        return "";
      };
      std::string cause;
      if (!prev && (!l.inputs.empty() && (inputs.count(l.inputs[0].name) || before.empty())))
        cause = "network input '" + (l.inputs.empty() ? std::string() : l.inputs[0].name) + "'";
      else if (!next)
        cause = "network output '" + (l.outputs.empty() ? std::string() : l.outputs[0].name) + "'";
      if (cause.empty()) cause = boundary(next);
      if (cause.empty()) cause = boundary(prev);
      if (cause.empty() && !in.empty() && !out.empty() && in != out)
        cause = "cast " + in + " -> " + out + (next ? " for '" + next->name + "'" : "");
      if (cause.empty())
        cause = "layout change" +
                (l.inputs.empty() || l.outputs.empty()
                     ? std::string()
                     : " (" + l.inputs[0].format + " -> " + l.outputs[0].format + ")") +
                (next ? " for '" + next->name + "'" : "");
      Remark& r = add("analysis", "reformat", &b, &l, "reformat by cause: " + cause);
      r.time_ms = l.time.average_ms;
      if (l.memory.input_bytes && l.memory.output_bytes)
        r.bytes = *l.memory.input_bytes + *l.memory.output_bytes;
      if (next)
        for (const auto& node : next->onnx_nodes) r.onnx_nodes.push_back(node);
    }
  }

 private:
  Capture& c_;
};

int kind_rank(const std::string& k) { return k == "missed" ? 0 : k == "analysis" ? 1 : 2; }

}  // namespace

std::string onnx_scope(const std::string& node) {
  size_t slash = node.rfind('/');
  if (slash == std::string::npos || slash == 0) return node;
  return node.substr(0, slash);
}

void compute_remarks(Capture& c) {
  c.remarks.clear();
  Builder r(c);
  r.dla();
  if (Build* b = const_cast<Build*>(c.final_build())) {
    Wiring w(*b);
    r.precision(*b, w);
    r.fusion(*b, w);
    r.reformats(*b, w);
  }
  for (auto& rem : c.remarks)
    rem.scope = onnx_scope(rem.onnx_nodes.empty() ? rem.layer : rem.onnx_nodes.front());
  std::stable_sort(c.remarks.begin(), c.remarks.end(), [](const Remark& a, const Remark& b) {
    return kind_rank(a.kind) < kind_rank(b.kind);
  });
  std::map<std::tuple<std::string, std::string, std::string, std::string>, size_t> first;
  for (size_t i = 0; i < c.remarks.size(); ++i) {
    Remark& rem = c.remarks[i];
    auto key = std::make_tuple(rem.kind, rem.category, rem.scope, rem.reason);
    auto [it, fresh] = first.emplace(key, i);
    if (!fresh) {
      ++c.remarks[it->second].repeats;
      rem.repeats = 0;
    }
  }
}

}  // namespace trtlens
