// The model: everything known about one run on a target (ARCHITECTURE §1 "assemble").
// Ingesters fill it through model/assembler.h; analyses annotate it; renderers read it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/engine_graph.h"
#include "model/findings.h"
#include "model/memory.h"
#include "model/onnx.h"
#include "model/source.h"
#include "model/timing.h"

namespace trtlens {

struct Diagnostic {
  Severity severity = Severity::Warning;
  SourceLoc where;
  std::string message;
};

struct Tensor {
  std::string name;
  std::string dtype;  // canonical (values.h); empty when the input did not say
  bool dtype_known = true;
  std::vector<int64_t> dims;
  bool has_dims = false;
  int vector_axis = -1;
  int vector_width = 0;
  std::string format;    // verbatim format string where the input gave one
  std::string location;  // "Device" / "Host" where given
};

struct Layer {
  std::string name;  // verbatim
  std::string type;  // implementation class: Layer(<type>) / LayerType
  std::optional<std::string> tactic;  // canonical 0x%016x
  std::string tactic_name;
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
  std::string metadata;  // verbatim (TRT 8.6+; may contain \x1E/\x1F)
  std::optional<int> stream_id;
  nlohmann::ordered_json attributes = nlohmann::ordered_json::object();  // other keys, as given
  SourceLoc source;

  // Annotations added by later stages.
  LayerMemory memory;
  LayerTime time;
  std::vector<std::string> onnx_nodes;
};

// Where a layer listing came from.
enum class ListingKind {
  EngineLayerInfo,  // "Engine Layer Information:" block, Layer(T): lines
  LayerInfoDump,    // --dumpLayerInfo text ("Layer Information:" / "Layers:")
  LayerJson,        // --exportLayerInfo JSON
  Profile,          // only a profile was given: layers are its rows
};
const char* to_string(ListingKind k);

struct Binding {
  std::string name;
  std::string io_mode;  // "Input"/"Output" where given (TRT 11)
  Tensor tensor;        // dtype/dims where given
};

struct Build {
  int id = 0;
  bool final = false;
  ListingKind kind = ListingKind::EngineLayerInfo;
  SourceLoc source;
  std::string trt_version;
  int run = 0;              // index of the trtexec run (&&&& RUNNING) within its file
  bool names_only = false;  // layer names without tensors (layer_names_only verbosity)
  std::vector<Layer> layers;
  std::vector<Binding> bindings;
  std::vector<std::string> enriched_by;  // other listings merged into this one ("path:line")
  EngineGraph graph;

  BuildMemory memory;
  BuildProfile profile;
};

struct InputFile {
  std::string path;
  std::string kind;  // build-log, layer-json, profile-json, times-json, onnx, bundle
  uint64_t lines = 0;
  uint64_t unrecognized = 0;
  bool gzip = false;
};

struct Capture {
  std::vector<InputFile> inputs;
  std::vector<Build> builds;
  std::vector<Diagnostic> diagnostics;

  std::vector<RunInfo> runs;  // one per trtexec run / runtime log section group
  OnnxModel onnx;
  std::vector<Finding> findings;

  const Build* final_build() const;
};

}  // namespace trtlens
