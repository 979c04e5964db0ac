// The narrow interface through which ingesters put records into the model. Ingesters know
// nothing of each other or of the Capture's layout; the assembler decides how records combine
// (which listing is a build of its own, which one enriches another, which build is final).
#pragma once

#include <string>

#include "model/capture.h"

namespace trtlens {

class Assembler {
 public:
  explicit Assembler(Capture& capture) : capture_(capture) {}

  // One input file (or stdin) at a time.
  void begin_input(const std::string& path, const std::string& kind, bool gzip);
  void end_input(uint64_t lines);

  // A layer listing: begin, layers and bindings, end.
  void begin_listing(ListingKind kind, SourceLoc where);
  void add_layer(Layer layer);
  void add_binding(Binding binding);
  void set_names_only();
  void end_listing();
  bool in_listing() const { return listing_open_; }

  // Context lines.
  void trt_version(const std::string& version);
  void new_run();  // "&&&& RUNNING": later listings belong to another trtexec run

  void diagnostic(Severity severity, SourceLoc where, std::string message);
  // A line inside a section the ingester owns that it could not read: counted and reported.
  void unrecognized(SourceLoc where, std::string message);

  // After every input: mark the final build and wire the engine graphs.
  void finish();

  // The build records go to: the open listing, else the last build of this input, else null.
  Build* current_build();

  // --- memory records (issue 3): add methods below this line ---

  // --- end of memory records ---

  // --- timing and runtime records (issue 4): add methods below this line ---

  // --- end of timing records ---

  // --- ONNX records (issue 5): add methods below this line ---
  void onnx_event(FusionEvent event);        // fusion / elimination line
  void onnx_layer_count(LayerCount count);   // "After ...: N layers"
  void onnx_model(OnnxModel model);          // a .onnx file (its graph order wins)

  // --- end of ONNX records ---

  Capture& capture() { return capture_; }
  const std::string& current_path() const { return path_; }

 private:
  Build* enrichment_target(const Build& listing);

  Capture& capture_;
  std::string path_;
  int run_ = 0;
  std::string version_;
  bool listing_open_ = false;
  Build pending_;
  size_t first_build_of_input_ = 0;
};

// Copies what `from` knows and `into` lacks (formats, tactic names, metadata, attributes).
void enrich_layer(Layer& into, const Layer& from);

}  // namespace trtlens
