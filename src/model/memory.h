// Memory figures: per layer (tensor bytes, TensorRT's persistent/scratch lines) and per build.
// Owned by the memory work (issue 3); others read these fields.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trtlens {

struct LayerMemory {
  // The seed's convention: bytes of inputs, weights (at the input's element size) and outputs.
  // nullopt = unknown (dynamic dims without shapes, unknown dtype, weights not given).
  std::optional<uint64_t> input_bytes;
  std::optional<uint64_t> weight_bytes;
  std::optional<uint64_t> output_bytes;
  // Weights and bias by their own stored type (JSON "Weights"/"Bias" {Type, Count}).
  std::optional<uint64_t> weights_stored_bytes;
  std::optional<uint64_t> bias_stored_bytes;
  std::string weight_source;  // "layer-json", "onnx-parse", "" (unknown)
  // What TensorRT printed: "Layer: X Host Persistent: N Device Persistent: N Scratch Memory: N".
  std::optional<uint64_t> host_persistent;
  std::optional<uint64_t> device_persistent;
  std::optional<uint64_t> scratch;
};

struct MemUsageChange {
  std::string phase;  // "Init CUDA", "Init builder kernel library", ...
  double cpu_delta_mib = 0, gpu_delta_mib = 0, cpu_now_mib = 0, gpu_now_mib = 0;
  uint64_t line = 0;
};

struct BuildMemory {
  std::optional<uint64_t> total_host_persistent, total_device_persistent, total_scratch,
      total_activation, total_weights, block_assignment_bytes;
  std::optional<double> engine_size_mib, context_memory_mib, generation_seconds, peak_cpu_mib,
      peak_gpu_mib;
  std::optional<uint64_t> skipped_zero_layers;
  std::vector<MemUsageChange> timeline;
  // Activation estimate from tensor lifetimes (analysis/liveness).
  std::optional<uint64_t> peak_live_bytes;
  int peak_layer = -1;
  std::vector<std::string> peak_tensors;
};

}  // namespace trtlens
