#include "model/assembler.h"

#include <utility>

namespace trtlens {
namespace {

bool same_layer_names(const Build& a, const Build& b) {
  if (a.layers.size() != b.layers.size() || a.layers.empty()) return false;
  for (size_t i = 0; i < a.layers.size(); ++i)
    if (a.layers[i].name != b.layers[i].name) return false;
  return true;
}

void enrich_tensor(Tensor& into, const Tensor& from) {
  if (into.dtype.empty() && !from.dtype.empty()) {
    into.dtype = from.dtype;
    into.dtype_known = from.dtype_known;
  }
  if (!into.has_dims && from.has_dims) {
    into.dims = from.dims;
    into.has_dims = true;
  }
  if (into.vector_width == 0 && from.vector_width != 0) {
    into.vector_width = from.vector_width;
    into.vector_axis = from.vector_axis;
  }
  if (into.format.empty()) into.format = from.format;
  if (into.location.empty()) into.location = from.location;
}

void enrich_tensors(std::vector<Tensor>& into, const std::vector<Tensor>& from) {
  if (into.empty()) {
    into = from;
    return;
  }
  if (into.size() != from.size()) return;
  for (size_t i = 0; i < into.size(); ++i)
    if (into[i].name == from[i].name) enrich_tensor(into[i], from[i]);
}

}  // namespace

void enrich_layer(Layer& into, const Layer& from) {
  if (into.type.empty()) into.type = from.type;
  if (!into.tactic) into.tactic = from.tactic;
  if (into.tactic_name.empty()) into.tactic_name = from.tactic_name;
  if (into.metadata.empty()) into.metadata = from.metadata;
  if (!into.stream_id) into.stream_id = from.stream_id;
  for (const auto& [key, value] : from.attributes.items())
    if (!into.attributes.contains(key)) into.attributes[key] = value;
  enrich_tensors(into.inputs, from.inputs);
  enrich_tensors(into.outputs, from.outputs);
}

void Assembler::begin_input(const std::string& path, const std::string& kind, bool gzip) {
  path_ = path;
  run_ = 0;
  version_.clear();
  first_build_of_input_ = capture_.builds.size();
  capture_.inputs.push_back(InputFile{path, kind, 0, 0, gzip});
}

void Assembler::end_input(uint64_t lines) {
  if (listing_open_) end_listing();
  capture_.inputs.back().lines = lines;
  // A version printed after the listing (or only once per file) still describes its builds.
  for (size_t i = first_build_of_input_; i < capture_.builds.size(); ++i)
    if (capture_.builds[i].trt_version.empty()) capture_.builds[i].trt_version = version_;
}

void Assembler::begin_listing(ListingKind kind, SourceLoc where) {
  if (listing_open_) end_listing();
  pending_ = Build{};
  pending_.kind = kind;
  pending_.source = std::move(where);
  pending_.run = run_;
  pending_.trt_version = version_;
  listing_open_ = true;
}

void Assembler::add_layer(Layer layer) { pending_.layers.push_back(std::move(layer)); }

void Assembler::add_binding(Binding binding) { pending_.bindings.push_back(std::move(binding)); }

void Assembler::set_names_only() { pending_.names_only = true; }

Build* Assembler::enrichment_target(const Build& listing) {
  for (size_t i = capture_.builds.size(); i-- > 0;) {
    Build& b = capture_.builds[i];
    bool same_input = i >= first_build_of_input_;
    if (listing.kind == ListingKind::LayerInfoDump) {
      // --dumpLayerInfo after the verbose block of the same trtexec run describes that engine.
      if (same_input && b.run == listing.run && same_layer_names(b, listing)) return &b;
    } else if (listing.kind == ListingKind::LayerJson && !same_input) {
      if (same_layer_names(b, listing)) return &b;
    }
  }
  return nullptr;
}

void Assembler::end_listing() {
  if (!listing_open_) return;
  listing_open_ = false;
  // A header with nothing under it (a cut log, a kNONE build) is not an engine: it must not
  // become the final build and hide the real one before it.
  if (pending_.layers.empty()) {
    diagnostic(Severity::Warning, pending_.source, "layer listing without layers; ignored");
    return;
  }
  if (Build* target = enrichment_target(pending_)) {
    for (size_t i = 0; i < target->layers.size(); ++i)
      enrich_layer(target->layers[i], pending_.layers[i]);
    if (target->bindings.empty()) target->bindings = pending_.bindings;
    if (target->names_only && !pending_.names_only) target->names_only = false;
    target->enriched_by.push_back(pending_.source.path + ":" +
                                  std::to_string(pending_.source.line));
    return;
  }
  pending_.id = int(capture_.builds.size());
  capture_.builds.push_back(std::move(pending_));
}

void Assembler::trt_version(const std::string& version) {
  version_ = version;
  if (listing_open_ && pending_.trt_version.empty()) pending_.trt_version = version;
}

void Assembler::new_run() {
  if (listing_open_) end_listing();
  ++run_;
  version_.clear();
}

void Assembler::diagnostic(Severity severity, SourceLoc where, std::string message) {
  capture_.diagnostics.push_back(Diagnostic{severity, std::move(where), std::move(message)});
}

void Assembler::unrecognized(SourceLoc where, std::string message) {
  if (!capture_.inputs.empty()) ++capture_.inputs.back().unrecognized;
  diagnostic(Severity::Warning, std::move(where), std::move(message));
}

Build* Assembler::current_build() {
  if (listing_open_) return &pending_;
  if (capture_.builds.size() > first_build_of_input_) return &capture_.builds.back();
  return nullptr;
}

// --- memory records (issue 3) ---

// --- end of memory records ---

// --- timing and runtime records (issue 4) ---

// --- end of timing records ---

// --- ONNX records (issue 5) ---
void Assembler::onnx_event(FusionEvent event) { capture_.onnx.events.push_back(std::move(event)); }

void Assembler::onnx_layer_count(LayerCount count) {
  capture_.onnx.layer_counts.push_back(std::move(count));
}

void Assembler::onnx_model(OnnxModel model) { merge_onnx_model(capture_.onnx, std::move(model)); }

// --- end of ONNX records ---

void Assembler::finish() {
  if (listing_open_) end_listing();
  for (auto& b : capture_.builds) {
    b.final = false;
    b.graph = build_engine_graph(b.layers, b.bindings);
  }
  if (!capture_.builds.empty()) capture_.builds.back().final = true;
}

}  // namespace trtlens
