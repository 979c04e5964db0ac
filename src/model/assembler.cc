#include "model/assembler.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "model/parallel.h"

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
  into.attributes.merge_missing(from.attributes);
  enrich_tensors(into.inputs, from.inputs);
  enrich_tensors(into.outputs, from.outputs);
}

void Assembler::begin_input(const std::string& path, const std::string& kind, bool gzip) {
  sync_open_run();
  path_ = path;
  run_ = 0;
  version_.clear();
  version_from_.clear();
  pending_command_.clear();
  phase_ = {};
  clear_tactic();
  run_used_ = false;
  input_diagnostics_ = 0;
  dropped_diagnostics_ = 0;
  first_build_of_input_ = capture_.builds.size();
  capture_.inputs.push_back(InputFile{path, kind, 0, 0, gzip});
}

void Assembler::end_input(uint64_t lines) {
  if (listing_open_) end_listing();
  sync_open_run();
  capture_.inputs.back().lines = lines;
  if (dropped_diagnostics_ > 0) {
    capture_.diagnostics.push_back(Diagnostic{
        Severity::Warning, SourceLoc{path_, 0},
        std::to_string(dropped_diagnostics_) + " more diagnostics not kept (each input keeps its first " +
            std::to_string(kDiagnosticsPerInput) + ")"});
    dropped_diagnostics_ = 0;
  }
  // A version printed after the listing (or only once per file) still describes its builds.
  for (size_t i = first_build_of_input_; i < capture_.builds.size(); ++i)
    if (capture_.builds[i].trt_version.empty()) {
      capture_.builds[i].trt_version = version_;
      capture_.builds[i].trt_version_from = version_from_;
    }
}

void Assembler::begin_listing(ListingKind kind, SourceLoc where) {
  if (listing_open_) end_listing();
  pending_ = Build{};
  pending_.kind = kind;
  pending_.source = std::move(where);
  pending_.run = run_;
  pending_.trt_version = version_;
  pending_.trt_version_from = version_from_;
  // A log's builds are mostly of one network: room for the last one's layers saves growing the
  // vector (each step moves every layer) for each of them. The first build takes the count the
  // optimizer printed before it ("After reformat layers: N layers"), within reason: the line
  // is untrusted, and this is a hint.
  if (capture_.builds.size() > first_build_of_input_) {
    pending_.layers.reserve(capture_.builds.back().layers.size());
  } else if (const auto& counts = capture_.onnx.layer_counts;
             !counts.empty() && counts.back().source.path == path_ && counts.back().layers > 0) {
    constexpr int64_t kMostReserved = 65536;
    pending_.layers.reserve(size_t(std::min(counts.back().layers, kMostReserved)));
  }
  listing_open_ = true;
  run_used_ = true;
  // The verbose build prints its engine's layers when the engine is laid out.
  if (kind == ListingKind::EngineLayerInfo)
    run_phase(RunPhase::EngineGeneration, pending_.source, "Engine Layer Information:");
}

void Assembler::add_layer(Layer layer) { pending_.layers.push_back(std::move(layer)); }

void Assembler::reserve_layers(size_t count) { pending_.layers.reserve(count); }

void Assembler::add_binding(Binding binding) { pending_.bindings.push_back(std::move(binding)); }

void Assembler::set_names_only() { pending_.names_only = true; }

Build* Assembler::enrichment_target(const Build& listing) {
  // Looks back over a few builds only: a log of many listings must not make this quadratic.
  constexpr size_t kLookBack = 16;
  auto& builds = capture_.builds;
  if (listing.kind == ListingKind::LayerInfoDump) {
    // --dumpLayerInfo after the verbose block of the same trtexec run describes that engine.
    for (size_t i = builds.size(), k = 0; i-- > first_build_of_input_ && k < kLookBack; ++k) {
      if (builds[i].run != listing.run) break;
      if (same_layer_names(builds[i], listing)) return &builds[i];
    }
  } else if (listing.kind == ListingKind::LayerJson) {
    for (size_t i = std::min(first_build_of_input_, builds.size()), k = 0; i-- > 0 && k < kLookBack;
         ++k)
      if (same_layer_names(builds[i], listing)) return &builds[i];
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

void Assembler::trt_version(const std::string& version, const std::string& from) {
  if (version.empty() || version == version_) return;  // the first line that named it stays
  // "10.16.2" after "10.16.2.5" (banner after Polygraphy) says less: keep the longer.
  if (version_.rfind(version + ".", 0) == 0) return;
  version_ = version;
  version_from_ = from;
  if (listing_open_ && pending_.trt_version.empty()) {
    pending_.trt_version = version;
    pending_.trt_version_from = from;
  }
  if (RunInfo* r = open_run();
      r && (r->trt_version.empty() || version.rfind(r->trt_version + ".", 0) == 0)) {
    r->trt_version = version;
    r->trt_version_from = from;
  }
}

void Assembler::new_run() {
  if (listing_open_) end_listing();
  // The banner right after a command line belongs to that command's run.
  if (!run_used_ && !pending_command_.empty()) return;
  sync_open_run();
  ++run_;
  version_.clear();
  version_from_.clear();
  pending_command_.clear();
  phase_ = {};
  clear_tactic();
  run_used_ = false;
}

void Assembler::run_command(const std::string& command_line, SourceLoc where) {
  pending_command_.clear();
  new_run();
  pending_command_ = command_line;
  pending_command_line_ = where.line;
}

void Assembler::sync_open_run() {
  if (!run_follows_) return;
  run_follows_ = false;
  if (RunInfo* r = open_run()) {
    r->last_phase = phase_;
    r->tactic = tactic_copy();
  }
}

RunInfo* Assembler::open_run() {
  auto& runs = capture_.runs;
  if (runs.empty() || runs.back().path != path_ || runs.back().build_run != run_ ||
      runs.back().times)
    return nullptr;
  return &runs.back();
}

void Assembler::run_record(LogRecord record) {
  // During tactic selection TensorRT's messages that name no node are about the node being
  // timed (not trtexec's own "Engine set up failed").
  if (record.node.empty() && record.tensorrt && phase_.phase == RunPhase::TacticSelection)
    if (const TacticAttempt* t = current_tactic()) record.node = t->node;
  run_info({path_, record.line}).records.push_back(std::move(record));
}

void Assembler::run_stop(RunStop stop, SourceLoc where) {
  RunInfo& r = run_info(where);
  if (!r.stop) r.stop = std::move(stop);
}

void Assembler::run_phase(RunPhase phase, SourceLoc where, std::string text) {
  phase_ = PhaseMark{phase, where.line, std::move(text)};
  run_follows_ = true;
}

void Assembler::run_phase(RunPhase phase, uint64_t line, std::string_view text) {
  phase_.phase = phase;
  phase_.line = line;
  phase_.text.assign(text);
  run_follows_ = true;
}

void Assembler::run_tactic(const TacticAttempt& attempt) {
  followed_ = &attempt;
  run_follows_ = true;
}

void Assembler::forget_tactic(const TacticAttempt& attempt) {
  if (followed_ != &attempt) return;
  tactic_ = attempt;
  followed_ = nullptr;
}

const TacticAttempt* Assembler::current_tactic() const {
  return followed_ ? followed_ : tactic_ ? &*tactic_ : nullptr;
}

std::optional<TacticAttempt> Assembler::tactic_copy() const {
  const TacticAttempt* t = current_tactic();
  return t ? std::optional<TacticAttempt>(*t) : std::nullopt;
}

void Assembler::clear_tactic() {
  tactic_.reset();
  followed_ = nullptr;
}

void Assembler::run_ends_mid_line(SourceLoc where) {
  if (RunInfo* r = open_run()) r->cut_at = where.line;
}

void Assembler::label(const std::string& key, const std::string& value) {
  for (auto& [k, v] : capture_.labels)
    if (k == key) {
      v = value;
      return;
    }
  capture_.labels.emplace_back(key, value);
}

void Assembler::diagnostic(Severity severity, SourceLoc where, std::string message) {
  if (input_diagnostics_ >= kDiagnosticsPerInput) {
    ++dropped_diagnostics_;
    return;
  }
  ++input_diagnostics_;
  capture_.diagnostics.push_back(Diagnostic{severity, std::move(where), std::move(message)});
}

void Assembler::unrecognized(SourceLoc where, std::string message) {
  if (!capture_.inputs.empty()) ++capture_.inputs.back().unrecognized;
  diagnostic(Severity::Warning, std::move(where), std::move(message));
}

void Assembler::skipped(SourceLoc where, uint64_t count, std::string message) {
  if (!capture_.inputs.empty()) capture_.inputs.back().unrecognized += count;
  diagnostic(Severity::Info, std::move(where), std::move(message));
}

Build* Assembler::current_build() {
  if (listing_open_) return &pending_;
  if (capture_.builds.size() > first_build_of_input_) return &capture_.builds.back();
  return nullptr;
}

// Memory records.

namespace {

bool is_runtime_figure(const std::string& k) {
  return k == "loaded_engine_mib" || k == "context_memory_mib" ||
         k == "per_runner_device_persistent" || k == "per_runner_host_persistent" ||
         k == "allocated_activation";
}

bool is_block_figure(const std::string& k) {
  return k == "skipped_zero_layers" || k == "total_host_persistent" ||
         k == "total_device_persistent" || k == "total_scratch" || k == "total_activation" ||
         k == "total_weights" || k == "block_assignment_bytes";
}

std::optional<uint64_t>* u64_field(BuildMemory& m, const std::string& k) {
  if (k == "skipped_zero_layers") return &m.skipped_zero_layers;
  if (k == "total_host_persistent") return &m.total_host_persistent;
  if (k == "total_device_persistent") return &m.total_device_persistent;
  if (k == "total_scratch") return &m.total_scratch;
  if (k == "total_activation") return &m.total_activation;
  if (k == "total_weights") return &m.total_weights;
  if (k == "block_assignment_bytes") return &m.block_assignment_bytes;
  if (k == "per_runner_device_persistent") return &m.per_runner_device_persistent;
  if (k == "per_runner_host_persistent") return &m.per_runner_host_persistent;
  if (k == "allocated_activation") return &m.allocated_activation;
  return nullptr;
}

std::optional<double>* double_field(BuildMemory& m, const std::string& k) {
  if (k == "engine_size_mib") return &m.engine_size_mib;
  if (k == "loaded_engine_mib") return &m.loaded_engine_mib;
  if (k == "context_memory_mib") return &m.context_memory_mib;
  if (k == "generation_seconds") return &m.generation_seconds;
  if (k == "peak_cpu_mib") return &m.peak_cpu_mib;
  if (k == "peak_gpu_mib") return &m.peak_gpu_mib;
  return nullptr;
}

void set_figure(BuildMemory& m, const std::string& k, double v) {
  if (auto* f = u64_field(m, k)) *f = uint64_t(v + 0.5);
  else if (auto* d = double_field(m, k)) *d = v;
}

// One per-layer/total block as printed (a build with backend strategies prints several).
struct Block {
  std::vector<const MemoryRecord*> records;
  std::vector<std::string> seen_figures;
  bool has_figure(const std::string& k) const {
    for (const auto& s : seen_figures)
      if (s == k) return true;
    return false;
  }
};

// The build a record belongs to: the listing printed after it in the same file and run (the
// block precedes its listing), or, for runtime lines, the listing before it. -1: none.
int record_target(const std::vector<Build>& builds, const MemoryRecord& r) {
  int before = -1, after = -1;
  for (size_t i = 0; i < builds.size(); ++i) {
    const Build& b = builds[i];
    if (b.source.path != r.path || b.run != r.run) continue;
    if (b.source.line <= r.line) before = int(i);
    else if (after < 0) after = int(i);
  }
  bool runtime = r.kind == MemoryRecord::Kind::Figure && is_runtime_figure(r.key);
  if (runtime) return before >= 0 ? before : after;
  return after >= 0 ? after : before;
}

// Returns the warning for memory lines that name no layer, if any (the caller says it: builds
// are matched on several threads).
std::optional<Diagnostic> apply_block(Build& b, const Block& block) {
  std::unordered_map<std::string_view, size_t> index;
  index.reserve(b.layers.size());
  for (size_t i = 0; i < b.layers.size(); ++i) index.emplace(b.layers[i].name, i);
  bool skipped_zero = false;
  uint64_t unmatched = 0;
  const MemoryRecord* first_unmatched = nullptr;
  std::vector<bool> listed(b.layers.size(), false);
  for (const MemoryRecord* r : block.records) {
    if (r->kind == MemoryRecord::Kind::Figure) {
      set_figure(b.memory, r->key, r->value);
      if (r->key == "skipped_zero_layers") skipped_zero = true;
      continue;
    }
    auto it = index.find(r->key);
    if (it == index.end()) {
      if (!first_unmatched) first_unmatched = r;
      ++unmatched;
      continue;
    }
    LayerMemory& m = b.layers[it->second].memory;
    m.host_persistent = r->host;
    m.device_persistent = r->device;
    m.scratch = r->scratch;
    listed[it->second] = true;
  }
  // "Skipped printing memory information for K layers with 0 memory size": the rest are zero.
  if (skipped_zero)
    for (size_t i = 0; i < b.layers.size(); ++i)
      if (!listed[i]) {
        LayerMemory& m = b.layers[i].memory;
        m.host_persistent = m.device_persistent = m.scratch = 0;
      }
  if (!unmatched || b.layers.empty()) return std::nullopt;
  return Diagnostic{Severity::Warning, {first_unmatched->path, first_unmatched->line},
                    std::to_string(unmatched) + " memory line(s) name no layer of build " +
                        std::to_string(b.id)};
}

bool block_matches(const Block& block, const std::unordered_set<std::string_view>& names) {
  for (const MemoryRecord* r : block.records)
    if (r->kind == MemoryRecord::Kind::Layer && !names.count(r->key)) return false;
  return true;
}

}  // namespace

void Assembler::memory_layer(const std::string& name, uint64_t host, uint64_t device,
                             uint64_t scratch, SourceLoc where) {
  MemoryRecord r;
  r.kind = MemoryRecord::Kind::Layer;
  r.key = name;
  r.host = host;
  r.device = device;
  r.scratch = scratch;
  r.path = std::move(where.path);
  r.line = where.line;
  r.run = run_;
  memory_records_.push_back(std::move(r));
}

void Assembler::memory_figure(const std::string& field, double value, SourceLoc where) {
  MemoryRecord r;
  r.kind = MemoryRecord::Kind::Figure;
  r.key = field;
  r.value = value;
  r.path = std::move(where.path);
  r.line = where.line;
  r.run = run_;
  memory_records_.push_back(std::move(r));
}

void Assembler::memory_usage_change(MemUsageChange change, SourceLoc where) {
  MemoryRecord r;
  r.kind = MemoryRecord::Kind::Change;
  r.change = std::move(change);
  r.path = std::move(where.path);
  r.line = where.line;
  r.run = run_;
  memory_records_.push_back(std::move(r));
}

void Assembler::memory_shape(const std::string& tensor, const std::string& dims,
                             SourceLoc where) {
  MemoryRecord r;
  r.kind = MemoryRecord::Kind::Shape;
  r.key = tensor;
  r.text = dims;
  r.path = std::move(where.path);
  r.line = where.line;
  r.run = run_;
  memory_records_.push_back(std::move(r));
}

void Assembler::attach_memory(unsigned threads) {
  if (memory_records_.empty()) return;
  auto& builds = capture_.builds;
  // Figures from a file without a listing (a plain log beside layer JSON) describe the final
  // engine. A build exists only where layers were read (a listing or a profile's rows): with
  // none, the figures are said to be unattached rather than shown as an empty build.
  if (builds.empty()) {
    const MemoryRecord& r = memory_records_.front();
    diagnostic(Severity::Info, {r.path, r.line},
               std::to_string(memory_records_.size()) +
                   " memory figure(s) read but no layer listing or profile to attach them to");
    memory_records_.clear();
    return;
  }
  std::vector<std::vector<Block>> blocks(builds.size());
  for (const MemoryRecord& r : memory_records_) {
    int t = record_target(builds, r);
    if (t < 0) t = int(builds.size()) - 1;
    Build& b = builds[size_t(t)];
    if (r.kind == MemoryRecord::Kind::Change) {
      b.memory.timeline.push_back(r.change);
      continue;
    }
    if (r.kind == MemoryRecord::Kind::Shape) {
      b.memory.profile_shapes.emplace_back(r.key, r.text);
      continue;
    }
    bool in_block = r.kind == MemoryRecord::Kind::Layer || is_block_figure(r.key);
    if (!in_block) {
      set_figure(b.memory, r.key, r.value);
      continue;
    }
    auto& bl = blocks[size_t(t)];
    bool fresh = bl.empty() ||
                 (r.kind == MemoryRecord::Kind::Layer && !bl.back().seen_figures.empty()) ||
                 (r.kind == MemoryRecord::Kind::Figure && bl.back().has_figure(r.key));
    if (fresh) bl.emplace_back();
    bl.back().records.push_back(&r);
    if (r.kind == MemoryRecord::Kind::Figure) bl.back().seen_figures.push_back(r.key);
  }
  std::vector<std::optional<Diagnostic>> said(builds.size());
  parallel_for(builds.size(), threads, [&](size_t i) {
    if (blocks[i].empty()) return;
    std::unordered_set<std::string_view> names;
    names.reserve(builds[i].layers.size());
    for (const auto& l : builds[i].layers) names.insert(l.name);
    // The kept engine's block names the layers of the final listing; the last such wins.
    size_t chosen = blocks[i].size() - 1;
    for (size_t k = blocks[i].size(); k-- > 0;)
      if (block_matches(blocks[i][k], names)) {
        chosen = k;
        break;
      }
    builds[i].memory.blocks_seen = int(blocks[i].size());
    builds[i].memory.block_line = blocks[i][chosen].records.front()->line;
    said[i] = apply_block(builds[i], blocks[i][chosen]);
  });
  for (auto& d : said)
    if (d) diagnostic(d->severity, std::move(d->where), std::move(d->message));
  memory_records_.clear();
}


// Timing and runtime records.

namespace {

// Rows of `p` whose name is a layer name of `b`, directly or without " [profile N]".
int profile_name_matches(const Build& b, const BuildProfile& p) {
  std::map<std::string_view, int> names;
  for (const auto& l : b.layers) {
    names.emplace(l.name, 0);
    names.emplace(strip_profile_suffix(l.name), 0);
  }
  int n = 0;
  for (const auto& r : p.rows)
    if (names.count(r.name) || names.count(strip_profile_suffix(r.name))) ++n;
  return n;
}

}  // namespace

void Assembler::add_profile(BuildProfile profile) {
  profile.present = true;
  if (profile.source.empty()) profile.source = path_;
  bool from_log = !capture_.inputs.empty() && capture_.inputs.back().kind == "build-log";
  profiles_.push_back(PendingProfile{std::move(profile), run_, from_log});
}

RunInfo& Assembler::run_info(SourceLoc where) {
  auto& runs = capture_.runs;
  if (runs.empty() || runs.back().path != path_ || runs.back().build_run != run_ ||
      runs.back().times) {
    sync_open_run();
    RunInfo r;
    r.path = path_;
    r.line = pending_command_.empty() ? where.line : pending_command_line_;
    r.build_run = run_;
    r.trt_version = version_;
    r.trt_version_from = version_from_;
    r.command_line = pending_command_;
    r.last_phase = phase_;
    r.tactic = tactic_copy();
    runs.push_back(std::move(r));
  }
  run_used_ = true;
  return runs.back();
}

void Assembler::run_banner(const std::string& status, const std::string& version,
                           const std::string& command_line, SourceLoc where) {
  RunInfo& r = run_info(where);
  if (status == "RUNNING" || r.banner.empty() || r.banner == "RUNNING") {
    r.banner = status;
    r.banner_line = where.line;
  }
  if (r.command_line.empty()) r.command_line = command_line;
  if (r.trt_version.empty() && !version.empty()) {
    r.trt_version = version;
    r.trt_version_from = "banner";
  }
}

void Assembler::add_times(TimingTrace trace) {
  sync_open_run();
  RunInfo r;
  r.path = path_;
  r.line = 1;
  r.build_run = -1;
  r.times = std::move(trace);
  capture_.runs.push_back(std::move(r));
}

void Assembler::attach_profiles() {
  for (auto& pending : profiles_) {
    BuildProfile& p = pending.profile;
    Build* target = nullptr;
    if (pending.from_log) {
      // A table in a log describes the engine that log built or loaded, in the same run.
      for (auto& b : capture_.builds)
        if (b.source.path == p.source && b.run == pending.run) target = &b;
      if (!target)
        for (auto& b : capture_.builds)
          if (b.source.path == p.source) target = &b;
    }
    if (!target) {
      int best = 0;
      for (auto& b : capture_.builds) {
        if (b.kind == ListingKind::Profile) continue;
        int n = profile_name_matches(b, p);
        if (n > 0 && n >= best) {
          best = n;
          target = &b;
        }
      }
      if (!target && !capture_.builds.empty()) {
        target = &capture_.builds.back();
        diagnostic(Severity::Warning, {p.source, p.line},
                   "profile names match no layer of any build; attached to build " +
                       std::to_string(target->id) + " with every row unmatched");
      }
    }
    if (!target) {
      // Only a profile: its rows are the layers.
      Build b;
      b.id = int(capture_.builds.size());
      b.kind = ListingKind::Profile;
      b.source = SourceLoc{p.source, p.line};
      b.run = pending.run;
      b.names_only = true;
      b.layers.reserve(p.rows.size());  // a million rows: no doubling copies of every layer
      for (const auto& r : p.rows) {
        Layer l;
        l.name = r.name;
        l.source = SourceLoc{b.source.path, r.line};
        b.layers.push_back(std::move(l));
      }
      capture_.builds.push_back(std::move(b));
      target = &capture_.builds.back();
    }
    if (target->profile.present) {
      // Keep the more precise one: an exported JSON over a printed table.
      bool keep_old = target->profile.format == "export-json" && p.format != "export-json";
      diagnostic(Severity::Info, {p.source, p.line},
                 std::string("build ") + std::to_string(target->id) +
                     " has two profiles; using " +
                     (keep_old ? target->profile.source : p.source));
      if (keep_old) continue;
    }
    target->profile = std::move(p);
  }
  profiles_.clear();
}


// ONNX records.
void Assembler::onnx_event(FusionEvent event) { capture_.onnx.events.push_back(std::move(event)); }

void Assembler::onnx_layer_count(LayerCount count) {
  capture_.onnx.layer_counts.push_back(std::move(count));
}

void Assembler::onnx_model(OnnxModel model) {
  merge_onnx_model(capture_.onnx, std::move(model));
  parse_index_ = {};  // the lists are new
}

namespace {
void note_log_source(OnnxModel& m, const std::string& path) {
  std::string src = "build-log:" + path;
  for (const auto& s : m.sources)
    if (s == src) return;
  m.sources.push_back(std::move(src));
}
OnnxValue* find_value(std::vector<OnnxValue>& vs, const std::string& name) {
  for (auto& v : vs)
    if (v.name == name) return &v;
  return nullptr;
}
}  // namespace

Assembler::ParseIndex& Assembler::parse_index() {
  const OnnxModel& m = capture_.onnx;
  ParseIndex& x = parse_index_;
  if (x.nodes_seen > m.nodes.size() || x.initializers_seen > m.initializers.size()) x = {};
  for (; x.nodes_seen < m.nodes.size(); ++x.nodes_seen)
    x.nodes[m.nodes[x.nodes_seen].name] = x.nodes_seen;
  for (; x.initializers_seen < m.initializers.size(); ++x.initializers_seen)
    x.initializers.emplace(m.initializers[x.initializers_seen].name, x.initializers_seen);
  return x;
}

int Assembler::find_parse_node(const std::string& name) {
  const ParseIndex& x = parse_index();
  auto it = x.nodes.find(name);
  return it == x.nodes.end() ? -1 : int(it->second);
}

OnnxValue* Assembler::find_parse_initializer(const std::string& name) {
  const ParseIndex& x = parse_index();
  auto it = x.initializers.find(name);
  return it == x.initializers.end() ? nullptr : &capture_.onnx.initializers[it->second];
}

void Assembler::onnx_parse_node(const std::string& name, const std::string& op, SourceLoc where) {
  OnnxModel& m = capture_.onnx;
  note_log_source(m, where.path);
  // Parsers repeat a node only when the same model is parsed again: keep one node per name.
  int i = onnx_parse_current_ >= 0 && size_t(onnx_parse_current_ + 1) < m.nodes.size() &&
                  m.nodes[size_t(onnx_parse_current_ + 1)].name == name
              ? onnx_parse_current_ + 1
              : find_parse_node(name);
  if (i < 0) {
    OnnxNode n;
    n.name = name;
    n.op = op;
    n.index = int(m.nodes.size());
    n.origin = std::make_shared<const OnnxNodeOrigin>(OnnxNodeOrigin{where, {}});
    m.nodes.push_back(std::move(n));
    i = int(m.nodes.size()) - 1;
  }
  onnx_parse_current_ = i;
  run_phase(RunPhase::Parsing, std::move(where), "Parsing node: " + name + " [" + op + "]");
}

void Assembler::onnx_parse_node_io(const std::string& node, bool outputs,
                                   std::vector<OnnxValue> values) {
  OnnxModel& m = capture_.onnx;
  // Initializers are named by "Importing initializer" lines; their shapes come from here.
  if (!outputs)
    for (const auto& v : values)
      if (OnnxValue* init = find_parse_initializer(v.name); init && !init->has_dims) *init = v;
  int i = onnx_parse_current_;
  if (i < 0 || m.nodes[size_t(i)].name != node) i = find_parse_node(node);
  if (i < 0) return;  // an excerpt without the node's "Parsing node" line
  (outputs ? m.nodes[size_t(i)].outputs : m.nodes[size_t(i)].inputs) = std::move(values);
}

void Assembler::onnx_parse_kernel(std::vector<int64_t> kernel, int64_t num_outputs) {
  if (onnx_parse_current_ < 0) return;
  OnnxNode& n = capture_.onnx.nodes[size_t(onnx_parse_current_)];
  n.origin = std::make_shared<const OnnxNodeOrigin>(OnnxNodeOrigin{n.source(), std::move(kernel)});
  n.num_outputs = num_outputs;
}

void Assembler::onnx_parse_initializer(const std::string& name) {
  OnnxModel& m = capture_.onnx;
  note_log_source(m, path_);
  if (!find_parse_initializer(name)) m.initializers.push_back(OnnxValue{name, "", {}, false});
}

void Assembler::onnx_parse_graph_input(OnnxValue value) {
  OnnxModel& m = capture_.onnx;
  note_log_source(m, path_);
  if (OnnxValue* v = find_value(m.graph_inputs, value.name)) *v = std::move(value);
  else m.graph_inputs.push_back(std::move(value));
}

void Assembler::onnx_parse_graph_output(const std::string& name) {
  OnnxModel& m = capture_.onnx;
  if (!find_value(m.graph_outputs, name)) m.graph_outputs.push_back(OnnxValue{name, "", {}, false});
}


void Assembler::device_placement(DevicePlacement p) {
  p.run = run_;
  capture_.placements.push_back(std::move(p));
}

void Assembler::dla_fallback(DlaFallback f) {
  f.run = run_;
  capture_.dla_fallbacks.push_back(std::move(f));
}

void Assembler::precision_fallback(PrecisionFallback f) {
  f.run = run_;
  capture_.precision_fallbacks.push_back(std::move(f));
}

DlaFallback* Assembler::last_dla_fallback() {
  auto& f = capture_.dla_fallbacks;
  return f.empty() || f.back().source.path != path_ ? nullptr : &f.back();
}

TuningRun& Assembler::tuning_run(SourceLoc where, const std::string& from) {
  auto& t = capture_.tuning;
  if (t.empty() || t.back().path != path_) {
    TuningRun r;
    r.path = path_;
    r.from = from;
    r.best_source = where;
    t.push_back(std::move(r));
  }
  return t.back();
}

// Placements name the engine's layers: they mark the listing of the same log and run, and
// make a build of their own (names and kinds) where the log printed no other listing.
void Assembler::attach_devices() {
  std::map<std::pair<std::string, int>, std::vector<const DevicePlacement*>> groups;
  for (const auto& p : capture_.placements) groups[{p.source.path, p.run}].push_back(&p);
  for (const auto& [key, placements] : groups) {
    std::vector<Build*> targets;
    for (auto& b : capture_.builds)
      if (b.source.path == key.first && b.run == key.second) targets.push_back(&b);
    if (!targets.empty()) {
      std::map<std::string, std::string> device;
      for (const auto* p : placements) device[p->layer] = p->device;
      for (Build* b : targets)
        for (auto& l : b->layers)
          if (auto it = device.find(l.name); it != device.end()) l.device = it->second;
      continue;
    }
    Build b;
    b.kind = ListingKind::DeviceList;
    b.source = placements.front()->source;
    b.run = key.second;
    for (const auto& r : capture_.runs)
      if (r.path == key.first && r.build_run == key.second && !r.trt_version.empty())
        b.trt_version = r.trt_version;
    for (const auto* p : placements) {
      Layer l;
      l.name = p->layer;
      l.type = p->kind;
      l.device = p->device;
      l.source = p->source;
      b.layers.push_back(std::move(l));
    }
    b.id = int(capture_.builds.size());
    capture_.builds.push_back(std::move(b));
  }
}

void Assembler::finish(unsigned threads) {
  if (listing_open_) end_listing();
  sync_open_run();
  parse_index_ = {};
  attach_devices();
  // Profiles first: a profile without any listing becomes the build that the same log's memory
  // figures describe.
  attach_profiles();
  attach_memory(threads);  // needs every build, before the final build is marked
  parallel_for(capture_.builds.size(), threads, [&](size_t i) {
    Build& b = capture_.builds[i];
    b.graph = build_engine_graph(b.layers, b.bindings);
  });
  for (auto& b : capture_.builds) {
    b.final = false;
    // A few name the pattern; a listing mixed from two interleaved runs would give hundreds.
    const size_t shown = std::min<size_t>(b.graph.problems.size(), 5);
    for (size_t i = 0; i < shown; ++i)
      diagnostic(Severity::Warning, b.source,
                 "inconsistent engine graph: " + describe(b.graph.problems[i], b.layers));
    if (b.graph.problems.size() > shown)
      diagnostic(Severity::Warning, b.source,
                 "inconsistent engine graph: " + std::to_string(b.graph.problems.size() - shown) +
                     (b.graph.problems.size() >= 100 ? " or more" : "") +
                     " more problems (two listings interleaved, e.g. two trtexec runs logging "
                     "into one file?)");
  }
  if (!capture_.builds.empty()) capture_.builds.back().final = true;
  // A tuner log: the best iteration's build is the engine trtexec kept, not the last one.
  for (const auto& t : capture_.tuning) {
    const TunerIteration* best = nullptr;
    for (const auto& it : t.iterations)
      if (it.iter == t.best_iter && it.begun) best = &it;
    if (!best) continue;
    Build* chosen = nullptr;
    for (auto& b : capture_.builds)
      if (b.source.path == t.path && b.source.line > best->source.line &&
          (best->end_line == 0 || b.source.line < best->end_line))
        chosen = &b;
    if (!chosen) continue;
    for (auto& b : capture_.builds) b.final = false;
    chosen->final = true;
  }
}

}  // namespace trtlens
