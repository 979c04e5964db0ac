#include "render/json.h"

#include <algorithm>
#include <ostream>

#include "render/explain.h"
#include "render/findings.h"
#include "render/memory.h"
#include "render/profile.h"
#include "render/provenance.h"
#include "render/runs.h"

namespace trtlens {

using ojson = nlohmann::ordered_json;

namespace {
ojson null_if_empty(const std::string& s) { return s.empty() ? ojson(nullptr) : ojson(s); }
template <class T>
ojson or_null(const std::optional<T>& v) {
  return v ? ojson(*v) : ojson(nullptr);
}
}  // namespace

ojson totals_json(const BuildTotals& t) {
  return {{"layers", t.layers},
          {"running_layers", or_null(t.running_layers)},
          {"elided_layers", or_null(t.elided_layers)},
          {"reformat_layers", or_null(t.reformat_layers)},
          {"reformat_bytes", or_null(t.reformat_bytes)},
          {"reformat_ms", or_null(t.reformat_ms)},
          {"weights_bytes", or_null(t.weights_bytes)},
          {"activation_io_bytes", or_null(t.activation_io_bytes)},
          {"sum_layer_ms", or_null(t.sum_layer_ms)},
          {"peak_activation_bytes", or_null(t.peak_activation_bytes)}};
}

ojson latency_json(const Latency& l) {
  if (l.source == Latency::Source::None) return nullptr;
  return {{"source", to_string(l.source)},
          {"from", l.from},
          {"measured", l.measured()},
          {"median_ms", or_null(l.median_ms)},
          {"mean_ms", or_null(l.mean_ms)},
          {"p99_ms", or_null(l.p99_ms)},
          {"cv_percent", or_null(l.cv_percent)},
          {"queries", l.queries}};
}

ojson tensor_json(const Tensor& t) {
  ojson j;
  j["name"] = t.name;
  j["dtype"] = null_if_empty(t.dtype);
  j["dims"] = t.has_dims ? ojson(t.dims) : ojson(nullptr);
  if (!t.format.empty()) j["format"] = t.format;
  if (t.vector_width) j["vector"] = {{"axis", t.vector_axis}, {"width", t.vector_width}};
  if (!t.location.empty()) j["location"] = t.location;
  return j;
}

ojson layer_json(const Layer& layer) {
  ojson j;
  j["name"] = layer.name;
  j["type"] = null_if_empty(layer.type);
  j["tactic"] = layer.tactic ? ojson(*layer.tactic) : ojson(nullptr);
  j["tactic_name"] = null_if_empty(layer.tactic_name);
  j["inputs"] = ojson::array();
  for (const auto& t : layer.inputs) j["inputs"].push_back(tensor_json(t));
  j["outputs"] = ojson::array();
  for (const auto& t : layer.outputs) j["outputs"].push_back(tensor_json(t));
  if (!layer.metadata.empty()) j["metadata"] = layer.metadata;
  if (layer.stream_id) j["stream_id"] = *layer.stream_id;
  if (!layer.attributes.empty()) j["attributes"] = layer.attributes.to_json();
  j["memory"] = layer_memory_json(layer.memory);

  j["time"] = layer_time_json(layer.time);

  j["onnx_nodes"] = layer.onnx_nodes;
  j["role"] = to_string(layer.role);
  if (!layer.device.empty()) j["device"] = layer.device;
  if (!layer.fallback_reason.empty()) j["fallback_reason"] = layer.fallback_reason;
  return j;
}

namespace {

// A build's JSON; without its layers (an empty array in their place) for the streamed document.
ojson build_json_with(const Build& b, bool with_layers) {
  ojson j;
  j["id"] = b.id;
  j["final"] = b.final;
  j["source"] = {{"path", b.source.path}, {"line", b.source.line}};
  j["kind"] = to_string(b.kind);
  j["trt_version"] = null_if_empty(b.trt_version);
  j["trt_version_from"] = null_if_empty(b.trt_version_from);
  j["names_only"] = b.names_only;
  if (!b.enriched_by.empty()) j["enriched_by"] = b.enriched_by;
  j["layers"] = ojson::array();
  if (with_layers)
    for (const auto& l : b.layers) j["layers"].push_back(layer_json(l));
  j["bindings"] = ojson::array();
  for (const auto& bd : b.bindings) j["bindings"].push_back(bd.name);
  j["graph"] = {{"inputs", b.graph.inputs}, {"outputs", b.graph.outputs}};
  j["memory"] = build_memory_json(b);

  j["profile"] = build_profile_json(b.profile);
  j["totals"] = totals_json(b.totals);
  j["latency"] = latency_json(b.latency);
  return j;
}

// `text`, with `pad` after each of its line ends (a dumped value nested deeper).
void write_padded(std::ostream& os, std::string_view text, const std::string& pad) {
  for (char ch : text) {
    os.put(ch);
    if (ch == '\n') os << pad;
  }
}

void write_build_json(const Build& b, std::ostream& os, const std::string& pad) {
  write_json_lists(os, build_json_with(b, false),
                   {{"layers", b.layers.size(), [&b](size_t k) { return layer_json(b.layers[k]); }}},
                   pad);
}

}  // namespace

ojson build_json(const Build& b) { return build_json_with(b, true); }

namespace {

ojson source_json(const SourceLoc& s) {
  return s.line || !s.path.empty() ? ojson{{"path", s.path}, {"line", s.line}} : ojson(nullptr);
}

// Placements as the INFO listing printed them, and every fallback warning with its reason
// (layers carry their own device and fallback reason).
ojson dla_json(const Capture& c) {
  ojson j;
  j["placements"] = ojson::array();
  for (const auto& p : c.placements)
    j["placements"].push_back({{"layer", p.layer},
                               {"kind", null_if_empty(p.kind)},
                               {"device", p.device},
                               {"source", source_json(p.source)},
                               {"run", p.run}});
  j["fallbacks"] = ojson::array();
  for (const auto& f : c.dla_fallbacks)
    j["fallbacks"].push_back(
        {{"layer", f.layer},
         {"kind", null_if_empty(f.kind)},
         {"reason", null_if_empty(f.reason)},
         {"syntax", f.syntax},
         {"source", source_json(f.source)},
         {"reason_source", f.reason_source.line ? source_json(f.reason_source) : ojson(nullptr)},
         {"run", f.run}});
  return j;
}

ojson capture_json_with(const Capture& c, const std::vector<const Build*>& builds,
                        bool with_builds) {
  ojson j;
  j["schema"] = "trtlens/1";
  j["inputs"] = ojson::array();
  for (const auto& in : c.inputs) {
    j["inputs"].push_back({{"path", in.path},
                           {"kind", in.kind},
                           {"lines", in.lines},
                           {"unrecognized", in.unrecognized},
                           {"gzip", in.gzip}});
  }
  j["builds"] = ojson::array();
  if (with_builds)
    for (const Build* b : builds) j["builds"].push_back(build_json(*b));
  j["runs"] = ojson::array();
  for (const auto& r : c.runs) j["runs"].push_back(run_json(r));

  j["onnx"] = onnx_json(c.onnx, c.final_build());

  // What explain shows: remarks, DLA placement and fallbacks, precision fallbacks, the tuner.
  j["remarks"] = remarks_json(c, ExplainFilter{});
  j["dla"] = dla_json(c);
  j["precision_fallbacks"] = ojson::array();
  for (const auto& f : c.precision_fallbacks)
    j["precision_fallbacks"].push_back({{"tensor", f.tensor},
                                        {"reason", f.reason},
                                        {"source", source_json(f.source)},
                                        {"run", f.run}});
  j["tuning"] = ojson::array();
  for (const auto& t : c.tuning) j["tuning"].push_back(tuning_run_json(c, t));

  j["findings"] = findings_json(findings_for(c, builds));

  j["diagnostics"] = ojson::array();
  for (const auto& d : c.diagnostics) {
    j["diagnostics"].push_back({{"severity", to_string(d.severity)},
                                {"path", d.where.path},
                                {"line", d.where.line},
                                {"message", d.message}});
  }
  return j;
}

}  // namespace

ojson capture_json(const Capture& c, const std::vector<const Build*>& builds) {
  return capture_json_with(c, builds, true);
}

void write_capture_json(const Capture& c, const std::vector<const Build*>& builds,
                        std::ostream& os) {
  // The document without its builds, then each build dumped on its own where the empty array
  // stood: the same text as dump_json(capture_json(...)), without holding every build's JSON at
  // once. Dumped strings hold no raw newline, so the marker is the top-level key only.
  const std::string doc = dump_json(capture_json_with(c, builds, false));
  const std::string marker = "\n  \"builds\": []";
  const size_t at = doc.find(marker);
  if (at == std::string::npos || builds.empty()) {
    os << doc;
    return;
  }
  os.write(doc.data(), std::streamsize(at));
  os << "\n  \"builds\": [";
  for (size_t i = 0; i < builds.size(); ++i) {
    os << (i ? ",\n    " : "\n    ");
    write_build_json(*builds[i], os, "    ");
  }
  os << "\n  ]";
  os.write(doc.data() + at + marker.size(), std::streamsize(doc.size() - at - marker.size()));
}

void write_json_lists(std::ostream& os, const ojson& doc, const std::vector<JsonList>& lists,
                      const std::string& pad) {
  const std::string text = dump_json(doc);
  // Dumped strings hold no raw newline, so a marker can only be the document's own top-level key.
  struct Spot {
    size_t at, length;
    const JsonList* list;
  };
  std::vector<Spot> spots;
  for (const JsonList& l : lists) {
    const std::string marker = "\n  " + dump_json(ojson(l.key)) + ": []";
    const size_t at = text.find(marker);
    if (at != std::string::npos && l.count) spots.push_back({at, marker.size(), &l});
  }
  std::sort(spots.begin(), spots.end(), [](const Spot& a, const Spot& b) { return a.at < b.at; });
  const std::string_view all(text);
  const std::string element_pad = pad + "    ";
  size_t from = 0;
  for (const Spot& s : spots) {
    write_padded(os, all.substr(from, s.at - from), pad);
    write_padded(os, all.substr(s.at, s.length - 1), pad);  // the key and '[', without ']'
    for (size_t k = 0; k < s.list->count; ++k) {
      os << (k ? ",\n" : "\n") << element_pad;
      write_padded(os, dump_json(s.list->element(k)), element_pad);
    }
    write_padded(os, "\n  ]", pad);
    from = s.at + s.length;
  }
  write_padded(os, all.substr(from), pad);
}

std::string dump_json(const ojson& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace trtlens
