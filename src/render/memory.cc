#include "render/memory.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "render/escape.h"

namespace trtlens {

using ojson = nlohmann::ordered_json;

namespace {

ojson opt(const std::optional<uint64_t>& v) { return v ? ojson(*v) : ojson(nullptr); }
ojson opt(const std::optional<double>& v) { return v ? ojson(*v) : ojson(nullptr); }

std::string cell(std::optional<uint64_t> v, bool human) {
  if (!v) return human ? "?" : "";
  return human ? human_bytes(v) : std::to_string(*v);
}

std::string mib(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g MiB", v);
  return buf;
}

// A partly known footprint ranks by its known lower bound, never below the unknowns.
std::optional<uint64_t> sort_value(const LayerMemory& m, const std::string& key) {
  if (key == "total" || key == "footprint") return m.footprint_floor_bytes;
  if (key == "input") return m.input_bytes;
  if (key == "weights") return m.weight_bytes;
  if (key == "output") return m.output_bytes;
  if (key == "host") return m.host_persistent;
  if (key == "device") return m.device_persistent;
  if (key == "scratch") return m.scratch;
  return std::nullopt;
}

}  // namespace

std::string footprint_cell(const LayerMemory& m, bool human) {
  if (m.total_bytes) return cell(m.total_bytes, human);
  if (!m.footprint_floor_bytes) return human ? "?" : "";
  return (human ? "≥ " : ">=") + cell(m.footprint_floor_bytes, human);
}

const std::vector<std::string>& memory_sort_keys() {
  static const std::vector<std::string> keys = {"order",   "footprint", "total", "input",
                                                "weights", "output",    "host",  "device",
                                                "scratch", "name"};
  return keys;
}

TextTable memory_table(const Build& b, const std::string& sort, size_t top, bool human) {
  std::vector<size_t> idx(b.layers.size());
  std::iota(idx.begin(), idx.end(), 0);
  if (sort == "name") {
    std::stable_sort(idx.begin(), idx.end(),
                     [&](size_t x, size_t y) { return b.layers[x].name < b.layers[y].name; });
  } else if (sort != "order") {
    // Largest first; unknown sizes last.
    std::stable_sort(idx.begin(), idx.end(), [&](size_t x, size_t y) {
      auto vx = sort_value(b.layers[x].memory, sort), vy = sort_value(b.layers[y].memory, sort);
      if (vx.has_value() != vy.has_value()) return vx.has_value();
      return vx && *vx > *vy;
    });
  }
  if (top && idx.size() > top) idx.resize(top);
  TextTable t;
  t.headers = {"#",         "layer", "input",           "weights",           "output",
               "footprint", "type",  "host persistent", "device persistent", "scratch"};
  t.right_align = {true, false, true, true, true, true, false, true, true, true};
  for (size_t i : idx) {
    const Layer& l = b.layers[i];
    const LayerMemory& m = l.memory;
    t.rows.push_back({std::to_string(i), l.name, cell(m.input_bytes, human),
                      cell(m.weight_bytes, human), cell(m.output_bytes, human),
                      footprint_cell(m, human), l.type, cell(m.host_persistent, human),
                      cell(m.device_persistent, human), cell(m.scratch, human)});
  }
  return t;
}

void write_memory_figures(const Build& b, std::ostream& os) {
  const BuildMemory& m = b.memory;
  auto line = [&](const char* label, const std::string& value) {
    os << "  " << label << ": " << value << '\n';
  };
  auto bytes = [&](const char* label, const std::optional<uint64_t>& v) {
    if (v) line(label, human_bytes(v) + " (" + std::to_string(*v) + " bytes)");
  };
  os << "tensor memory (input + weights at the input's element size + output):\n";
  bytes("inputs", m.sum_input_bytes);
  bytes("weights", m.sum_weight_bytes);
  bytes("outputs", m.sum_output_bytes);
  if (m.layers_with_unknown_size)
    line("layers of unknown size", std::to_string(m.layers_with_unknown_size) +
                                       " (the sums above hold only the known parts)");
  bytes("weights by stored type", m.sum_weights_stored_bytes);
  bytes("bias by stored type", m.sum_bias_stored_bytes);
  if (m.tensors_dims_from_onnx)
    line("dims from ONNX shape inference", std::to_string(*m.tensors_dims_from_onnx) + " tensors");
  if (m.tensors_dims_unknown)
    line("tensors of unknown dims", std::to_string(*m.tensors_dims_unknown));

  os << "TensorRT reported:";
  bool any = m.total_host_persistent || m.total_device_persistent || m.total_scratch ||
             m.total_activation || m.total_weights || m.block_assignment_bytes || m.peak_cpu_mib ||
             m.peak_gpu_mib || m.engine_size_mib || m.loaded_engine_mib || m.context_memory_mib ||
             m.generation_seconds || m.per_runner_device_persistent || m.allocated_activation ||
             !m.timeline.empty();
  os << (any ? "\n" : " nothing (a verbose build log has these figures)\n");
  bytes("host persistent", m.total_host_persistent);
  bytes("device persistent", m.total_device_persistent);
  bytes("scratch", m.total_scratch);
  bytes("activation", m.total_activation);
  bytes("weights", m.total_weights);
  bytes("block assignment", m.block_assignment_bytes);
  bytes("per-runner device persistent", m.per_runner_device_persistent);
  bytes("per-runner host persistent", m.per_runner_host_persistent);
  bytes("allocated activation", m.allocated_activation);
  if (m.skipped_zero_layers)
    line("layers with 0 memory (not printed)", std::to_string(*m.skipped_zero_layers));
  if (m.peak_cpu_mib || m.peak_gpu_mib)
    line("allocator peak", "CPU " + (m.peak_cpu_mib ? mib(*m.peak_cpu_mib) : "?") + ", GPU " +
                               (m.peak_gpu_mib ? mib(*m.peak_gpu_mib) : "?"));
  if (m.engine_size_mib) line("engine size", mib(*m.engine_size_mib));
  if (m.loaded_engine_mib) line("loaded engine size", mib(*m.loaded_engine_mib));
  if (m.context_memory_mib) line("execution context device memory", mib(*m.context_memory_mib));
  if (m.generation_seconds) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g s", *m.generation_seconds);
    line("engine generation", buf);
  }
  if (m.blocks_seen > 1)
    line("memory blocks", std::to_string(m.blocks_seen) +
                              " printed for this build; kept the one at line " +
                              std::to_string(m.block_line));
  if (!m.timeline.empty()) {
    os << "  [MemUsageChange] timeline:\n";
    for (const auto& c : m.timeline) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "CPU %+g, GPU %+g, now CPU %g, GPU %g MiB (line %llu)",
                    c.cpu_delta_mib, c.gpu_delta_mib, c.cpu_now_mib, c.gpu_now_mib,
                    static_cast<unsigned long long>(c.line));
      os << "    " << escape_terminal(c.phase) << ": " << buf << '\n';
    }
  }
  os << "activation estimate (tensor lifetimes):";
  if (!m.liveness_refused.empty()) {
    os << " not estimated: " << escape_terminal(m.liveness_refused) << '\n';
    return;
  }
  if (!m.peak_live_bytes) {
    os << " unknown (no tensors with known sizes)\n";
    return;
  }
  os << '\n';
  bytes("peak live", m.peak_live_bytes);
  if (m.peak_layer >= 0 && size_t(m.peak_layer) < b.layers.size())
    line("at layer",
         std::to_string(m.peak_layer) + " " + escape_terminal(b.layers[size_t(m.peak_layer)].name));
  std::string tensors;
  for (size_t i = 0; i < m.peak_tensors.size(); ++i)
    tensors += (i ? ", " : "") + escape_terminal(m.peak_tensors[i]);
  if (!tensors.empty()) line("live there", tensors);
  if (m.liveness_unknown_tensors)
    line("tensors of unknown size",
         std::to_string(m.liveness_unknown_tensors) + " (left out: the peak is a lower bound)");
  std::optional<uint64_t> trt = m.total_activation ? m.total_activation : m.block_assignment_bytes;
  if (trt && *trt > 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f", double(*m.peak_live_bytes) / double(*trt));
    line("estimate / TensorRT activation", std::string(buf));
  }
}

void write_memory_summary(const Build& b, std::ostream& os) {
  const BuildMemory& m = b.memory;
  if (m.sum_input_bytes || m.sum_weights_stored_bytes) {
    const char* floor = m.layers_with_unknown_size ? ">= " : "";
    os << "  memory: weights " << floor << human_bytes(m.sum_weight_bytes) << " at input size";
    if (m.sum_weights_stored_bytes)
      os << ", " << human_bytes(m.sum_weights_stored_bytes) << " stored";
    if (m.peak_live_bytes) os << "; activation estimate " << human_bytes(m.peak_live_bytes);
    if (m.layers_with_unknown_size) os << " (" << m.layers_with_unknown_size << " layers unknown)";
    os << '\n';
  }
  if (m.tensors_dims_from_onnx || m.tensors_dims_unknown) {
    os << "  dynamic dims:";
    if (m.tensors_dims_from_onnx)
      os << ' ' << *m.tensors_dims_from_onnx << " tensors resolved by ONNX shape inference,";
    os << ' ' << m.tensors_dims_unknown.value_or(0) << " stay unknown\n";
  }
  if (m.total_activation || m.total_device_persistent || m.peak_gpu_mib || m.engine_size_mib) {
    os << "  TensorRT memory:";
    const char* sep = " ";
    auto item = [&](const char* label, const std::string& v) {
      os << sep << label << ' ' << v;
      sep = ", ";
    };
    if (m.total_activation) item("activation", human_bytes(m.total_activation));
    if (m.total_device_persistent)
      item("device persistent", human_bytes(m.total_device_persistent));
    if (m.total_host_persistent) item("host persistent", human_bytes(m.total_host_persistent));
    if (m.total_scratch) item("scratch", human_bytes(m.total_scratch));
    if (m.peak_gpu_mib) item("peak GPU", mib(*m.peak_gpu_mib));
    if (m.engine_size_mib) item("engine", mib(*m.engine_size_mib));
    os << '\n';
  }
}

ojson layer_memory_json(const LayerMemory& m) {
  ojson j;
  j["input_bytes"] = opt(m.input_bytes);
  j["weight_bytes"] = opt(m.weight_bytes);
  j["output_bytes"] = opt(m.output_bytes);
  j["total_bytes"] = opt(m.total_bytes);
  j["footprint_floor_bytes"] = opt(m.footprint_floor_bytes);
  j["weights_stored_bytes"] = opt(m.weights_stored_bytes);
  j["bias_stored_bytes"] = opt(m.bias_stored_bytes);
  j["weight_source"] = m.weight_source.empty() ? ojson(nullptr) : ojson(m.weight_source);
  if (!m.weight_nodes.empty()) j["weight_nodes"] = m.weight_nodes;
  j["host_persistent"] = opt(m.host_persistent);
  j["device_persistent"] = opt(m.device_persistent);
  j["scratch"] = opt(m.scratch);
  return j;
}

ojson build_memory_json(const Build& b) {
  const BuildMemory& m = b.memory;
  ojson j;
  j["sum_input_bytes"] = opt(m.sum_input_bytes);
  j["sum_weight_bytes"] = opt(m.sum_weight_bytes);
  j["sum_output_bytes"] = opt(m.sum_output_bytes);
  j["sum_weights_stored_bytes"] = opt(m.sum_weights_stored_bytes);
  j["sum_bias_stored_bytes"] = opt(m.sum_bias_stored_bytes);
  j["layers_with_unknown_size"] = m.layers_with_unknown_size;
  j["tensors_dims_from_onnx"] = opt(m.tensors_dims_from_onnx);
  j["tensors_dims_unknown"] = opt(m.tensors_dims_unknown);
  j["total_host_persistent"] = opt(m.total_host_persistent);
  j["total_device_persistent"] = opt(m.total_device_persistent);
  j["total_scratch"] = opt(m.total_scratch);
  j["total_activation"] = opt(m.total_activation);
  j["total_weights"] = opt(m.total_weights);
  j["block_assignment_bytes"] = opt(m.block_assignment_bytes);
  j["skipped_zero_layers"] = opt(m.skipped_zero_layers);
  j["per_runner_device_persistent"] = opt(m.per_runner_device_persistent);
  j["per_runner_host_persistent"] = opt(m.per_runner_host_persistent);
  j["allocated_activation"] = opt(m.allocated_activation);
  j["engine_size_mib"] = opt(m.engine_size_mib);
  j["loaded_engine_mib"] = opt(m.loaded_engine_mib);
  j["context_memory_mib"] = opt(m.context_memory_mib);
  j["generation_seconds"] = opt(m.generation_seconds);
  j["peak_cpu_mib"] = opt(m.peak_cpu_mib);
  j["peak_gpu_mib"] = opt(m.peak_gpu_mib);
  j["blocks_seen"] = m.blocks_seen;
  j["block_line"] = m.block_line ? ojson(m.block_line) : ojson(nullptr);
  j["profile_shapes"] = ojson::object();
  for (const auto& [name, dims] : m.profile_shapes) j["profile_shapes"][name] = dims;
  j["timeline"] = ojson::array();
  for (const auto& c : m.timeline)
    j["timeline"].push_back({{"phase", c.phase},
                             {"cpu_delta_mib", c.cpu_delta_mib},
                             {"gpu_delta_mib", c.gpu_delta_mib},
                             {"cpu_now_mib", c.cpu_now_mib},
                             {"gpu_now_mib", c.gpu_now_mib},
                             {"line", c.line}});
  j["activation_estimate"] = {
      {"peak_live_bytes", opt(m.peak_live_bytes)},
      {"peak_layer", m.peak_layer >= 0 ? ojson(m.peak_layer) : ojson(nullptr)},
      {"peak_layer_name", m.peak_layer >= 0 && size_t(m.peak_layer) < b.layers.size()
                              ? ojson(b.layers[size_t(m.peak_layer)].name)
                              : ojson(nullptr)},
      {"peak_tensors", m.peak_tensors},
      {"unknown_tensors", m.liveness_unknown_tensors}};
  return j;
}

}  // namespace trtlens
