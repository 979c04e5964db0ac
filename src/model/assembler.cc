#include "model/assembler.h"

#include <map>
#include <string_view>
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
    RunInfo r;
    r.path = path_;
    r.line = where.line;
    r.build_run = run_;
    r.trt_version = version_;
    runs.push_back(std::move(r));
  }
  return runs.back();
}

void Assembler::run_banner(const std::string& status, const std::string& version,
                           const std::string& command_line, SourceLoc where) {
  RunInfo& r = run_info(where);
  if (status == "RUNNING" || r.status.empty() || r.status == "RUNNING") r.status = status;
  if (r.command_line.empty()) r.command_line = command_line;
  if (r.trt_version.empty()) r.trt_version = version;
}

void Assembler::add_times(TimingTrace trace) {
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
      b.names_only = true;
      for (const auto& r : p.rows) {
        Layer l;
        l.name = r.name;
        l.source = SourceLoc{p.source, r.line};
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

// --- end of timing records ---

// --- ONNX records (issue 5) ---

// --- end of ONNX records ---

void Assembler::finish() {
  if (listing_open_) end_listing();
  attach_profiles();  // time (issue 4)
  for (auto& b : capture_.builds) {
    b.final = false;
    b.graph = build_engine_graph(b.layers, b.bindings);
  }
  if (!capture_.builds.empty()) capture_.builds.back().final = true;
}

}  // namespace trtlens
