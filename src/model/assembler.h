// The narrow interface through which ingesters put records into the model. Ingesters know
// nothing of each other or of the Capture's layout; the assembler decides how records combine
// (which listing is a build of its own, which one enriches another, which build is final).
#pragma once

#include <deque>
#include <string>
#include <unordered_map>

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
  void reserve_layers(size_t count);  // the listing's size, when the reader knows it
  void add_binding(Binding binding);
  void set_names_only();
  void end_listing();
  bool in_listing() const { return listing_open_; }

  // Context lines. `from` names the kind of line that stated the version ("banner", ...).
  void trt_version(const std::string& version, const std::string& from = "");
  void new_run();  // "&&&& RUNNING": later listings belong to another trtexec run
  // A shell command line starting trtexec or Polygraphy: a new run, which a banner right after
  // it continues.
  void run_command(const std::string& command_line, SourceLoc where);

  // What the current run did and how it ended.
  void run_record(LogRecord record);  // an error or warning line
  void run_stop(RunStop stop, SourceLoc where);
  void run_phase(RunPhase phase, SourceLoc where, std::string text);
  void run_phase(RunPhase phase, uint64_t line, std::string_view text);  // reuses buffers
  // The tactic selection under way: `attempt` itself, read when a run or record needs it, not
  // a copy on each of a verbose log's hundreds of thousands of timing banners. The caller keeps
  // it alive and current until forget_tactic(), a new run or a new input.
  void run_tactic(const TacticAttempt& attempt);
  void forget_tactic(const TacticAttempt& attempt);  // copies it, if followed: it goes away
  void run_ends_mid_line(SourceLoc where);        // the input's last line has no line end

  // Each input keeps its first kDiagnosticsPerInput diagnostics; the rest are counted and
  // reported in one more at the input's end (a hostile file of millions of bad entries must
  // not keep a message for each).
  static constexpr size_t kDiagnosticsPerInput = 10000;
  void diagnostic(Severity severity, SourceLoc where, std::string message);
  // What a capture says of itself (a bundle manifest's model, trt_version, date); the last
  // value given for a key wins.
  void label(const std::string& key, const std::string& value);
  // A line inside a section the ingester owns that it could not read: counted and reported.
  void unrecognized(SourceLoc where, std::string message);
  // `count` lines a section skipped (other messages logged into it), reported once.
  void skipped(SourceLoc where, uint64_t count, std::string message);

  // After every input: mark the final build and wire the engine graphs (on up to `threads`
  // threads, 0: one per core).
  void finish(unsigned threads = 0);

  // The build records go to: the open listing, else the last build of this input, else null.
  Build* current_build();

  // Memory records.
  // TensorRT prints its memory block before the layer listing it describes; records are kept
  // with their position and attached to builds by attach_memory() once every input is read.
  void memory_layer(const std::string& name, uint64_t host, uint64_t device, uint64_t scratch,
                    SourceLoc where);
  // `field` names a BuildMemory member ("total_activation", "peak_gpu_mib", ...).
  void memory_figure(const std::string& field, double value, SourceLoc where);
  void memory_usage_change(MemUsageChange change, SourceLoc where);
  void memory_shape(const std::string& tensor, const std::string& dims, SourceLoc where);
  void attach_memory(unsigned threads);
  // A deque: a log holds one record per layer per build, and a vector moved them all as it grew.
  std::deque<MemoryRecord> memory_records_;


  // Timing and runtime records.
  // A per-layer profile (an --exportProfile file, or a --dumpProfile table or exported array
  // inside a log). Held until finish(), which attaches it to the build it describes: a log's
  // own profile to that log's final build of the same run, a profile file to the build whose
  // layer names it matches best (ties: the later build); alone, it becomes a build of its own.
  void add_profile(BuildProfile profile);
  // The trtexec run of the current input and run (created on first use).
  RunInfo& run_info(SourceLoc where);
  // "&&&& RUNNING|PASSED|FAILED <name> [TensorRT vNNNN] # <command line>" (after new_run()).
  void run_banner(const std::string& status, const std::string& version,
                  const std::string& command_line, SourceLoc where);
  // An --exportTimes trace: a run of its own.
  void add_times(TimingTrace trace);

 private:
  struct PendingProfile {
    BuildProfile profile;
    int run = 0;
    bool from_log = false;
  };
  void attach_profiles();
  std::vector<PendingProfile> profiles_;

 public:


  // ONNX records.
  void onnx_event(FusionEvent event);        // fusion / elimination line
  void onnx_layer_count(LayerCount count);   // "After ...: N layers"
  void onnx_model(OnnxModel model);          // a .onnx file (its graph order wins)
  // The verbose log's ONNX parse section. A node parsed
  // again (a second trtexec run of the same model) updates the node of that name.
  void onnx_parse_node(const std::string& name, const std::string& op, SourceLoc where);
  // Tensors of the node last begun (or the last node called `node`).
  void onnx_parse_node_io(const std::string& node, bool outputs, std::vector<OnnxValue> values);
  void onnx_parse_kernel(std::vector<int64_t> kernel, int64_t num_outputs);
  void onnx_parse_initializer(const std::string& name);
  void onnx_parse_graph_input(OnnxValue value);
  void onnx_parse_graph_output(const std::string& name);
  int onnx_parse_current_ = -1;  // index into capture().onnx.nodes of the node being parsed


  // --- device placement, DLA fallbacks, build tuner ---
  // "[GpuLayer]/[DlaLayer]" lines: at finish() they give their device to the layers of a
  // listing of the same input and run, or become a names-and-kinds build when there is none.
  void device_placement(DevicePlacement p);
  void dla_fallback(DlaFallback f);
  DlaFallback* last_dla_fallback();
  void precision_fallback(PrecisionFallback f);
  // The tuning run of the current input (created on first use).
  TuningRun& tuning_run(SourceLoc where, const std::string& from);

  Capture& capture() { return capture_; }
  const std::string& current_path() const { return path_; }

 private:
  // The parse trace's names: a log of a large model names tens of thousands of nodes and
  // initializers, and a scan of the lists per line was quadratic. Caught up with the lists as the
  // trace appends to them; cleared when a model file's lists replace them.
  struct ParseIndex {
    std::unordered_map<std::string, size_t> nodes;         // name -> its last node
    std::unordered_map<std::string, size_t> initializers;  // name -> its first initializer
    size_t nodes_seen = 0, initializers_seen = 0;
  };
  ParseIndex parse_index_;
  ParseIndex& parse_index();
  int find_parse_node(const std::string& name);
  OnnxValue* find_parse_initializer(const std::string& name);
  Build* enrichment_target(const Build& listing);
  void attach_devices();
  RunInfo* open_run();  // the run of the current input and trtexec run, if one was made

  PhaseMark phase_;
  // The tactic attempt under way: the reader's own while it is followed, else tactic_.
  std::optional<TacticAttempt> tactic_;
  const TacticAttempt* followed_ = nullptr;
  const TacticAttempt* current_tactic() const;  // null when none
  std::optional<TacticAttempt> tactic_copy() const;
  void clear_tactic();
  // The open run's last phase and tactic attempt are copied into it when it stops being the open
  // run (a new run, input or times trace) and at an input's end: not on each of a verbose log's
  // hundreds of thousands of timing banners.
  bool run_follows_ = false;
  void sync_open_run();
  std::string version_from_, pending_command_;
  uint64_t pending_command_line_ = 0;
  bool run_used_ = false;  // something was recorded since the run began
  size_t input_diagnostics_ = 0;     // kept for the current input
  uint64_t dropped_diagnostics_ = 0;  // and counted only

  Capture& capture_;
  SharedText path_;
  int run_ = 0;
  std::string version_;
  bool listing_open_ = false;
  Build pending_;
  size_t first_build_of_input_ = 0;
};

// Copies what `from` knows and `into` lacks (formats, tactic names, metadata, attributes).
void enrich_layer(Layer& into, const Layer& from);

}  // namespace trtlens
