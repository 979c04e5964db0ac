// Memory figures: per layer (tensor bytes, TensorRT's persistent/scratch lines) and per build.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/maybe.h"
#include "model/shared_text.h"

namespace trtlens {

struct LayerMemory {
  // The seed's convention: bytes of inputs, weights (at the input's element size) and outputs.
  // nullopt = unknown (dynamic dims without shapes, unknown dtype, weights not given).
  Maybe<uint64_t> input_bytes;
  Maybe<uint64_t> weight_bytes;
  Maybe<uint64_t> output_bytes;
  // Weights and bias by their own stored type (JSON "Weights"/"Bias" {Type, Count}).
  Maybe<uint64_t> weights_stored_bytes;
  Maybe<uint64_t> bias_stored_bytes;
  std::string_view weight_source;  // "layer-json", "onnx-parse", "" (unknown): a literal
  // What TensorRT printed: "Layer: X Host Persistent: N Device Persistent: N Scratch Memory: N".
  Maybe<uint64_t> host_persistent;
  Maybe<uint64_t> device_persistent;
  Maybe<uint64_t> scratch;
  // The layer's footprint, the one per-layer memory figure every output shows: input + weights
  // + output. total_bytes when all three are known; footprint_floor_bytes is the sum of the
  // known parts (a lower bound, shown as ">= X" and ranked by that), nullopt when none is.
  Maybe<uint64_t> total_bytes;
  Maybe<uint64_t> footprint_floor_bytes;
  std::vector<std::string> weight_nodes;  // ONNX nodes whose initializers were counted
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
  // Runtime lines: "Total per-runner device/host persistent memory is N",
  // "Allocated activation device memory of size N", "Loaded engine with size: X MiB".
  std::optional<uint64_t> per_runner_device_persistent, per_runner_host_persistent,
      allocated_activation;
  std::optional<double> loaded_engine_mib;
  // TensorRT's per-layer/total block this build kept (several builds or backend strategies
  // print several blocks), where it started, and how many blocks were seen for this build.
  uint64_t block_line = 0;
  // "Input build shape: name=min+opt+max": the opt shape of profile 0, as "1x3x224x224".
  std::vector<std::pair<std::string, std::string>> profile_shapes;
  int blocks_seen = 0;
  std::vector<MemUsageChange> timeline;
  // Filled by analysis/memory: sums over the layers (nullopt when some layer is unknown).
  std::optional<uint64_t> sum_input_bytes, sum_weight_bytes, sum_output_bytes,
      sum_weights_stored_bytes, sum_bias_stored_bytes;
  int layers_with_unknown_size = 0;
  // Dynamic shapes: tensors whose dims the ONNX model's shape inference gave (--onnx with
  // --shape), and tensors whose dims stay unknown; nullopt when no shape was given.
  std::optional<size_t> tensors_dims_from_onnx, tensors_dims_unknown;
  // Activation estimate from tensor lifetimes (analysis/liveness).
  std::optional<uint64_t> peak_live_bytes;
  int peak_layer = -1;
  std::vector<std::string> peak_tensors;
  // Tensors left out of the estimate because their size is unknown (the peak is then a floor).
  int liveness_unknown_tensors = 0;
  // Why there is no estimate although sizes are known (an order no engine can run in), or "".
  std::string liveness_refused;
};

// What the log printed about memory before the assembler knows which build it belongs to
// (TensorRT prints the figures before the layer listing). Assembler::attach_memory decides.
struct MemoryRecord {
  enum class Kind { Layer, Figure, Change, Shape } kind = Kind::Figure;
  std::string key;   // Figure: BuildMemory field name; Layer: layer/tensor name
  std::string text;  // Shape: "1x3x224x224"
  double value = 0;  // Figure
  uint64_t host = 0, device = 0, scratch = 0;  // Layer
  MemUsageChange change;
  SharedText path;
  uint64_t line = 0;
  int run = 0;
};

}  // namespace trtlens
