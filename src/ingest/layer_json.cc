#include "ingest/layer_json.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <unordered_map>

#include "ingest/json_stream.h"
#include "ingest/json_text.h"
#include "ingest/layer_text.h"
#include "io/input.h"
#include "model/values.h"

namespace trtlens {
namespace {

namespace od = simdjson::ondemand;
using ojson = nlohmann::ordered_json;

// Type problems are diagnosed one by one up to this many per file, then counted.
constexpr size_t kMaxTypeDiagnostics = 50;

std::string_view token(od::value& v) { return trim(v.raw_json_token()); }

// A string value or key read in place when it holds no escape (nearly all do): On-Demand's
// unescaping copies every string into a buffer as large as the file, which is both time and
// peak memory. Escaped ones are unescaped as usual. The text was validated by the parser.
std::string_view text_of(od::value& v) {
  const std::string_view t = token(v);
  if (t.size() >= 2 && t.front() == '"' && t.back() == '"' &&
      t.find('\\') == std::string_view::npos)
    return t.substr(1, t.size() - 2);
  return v.get_string();
}

template <class Field>  // od::field, or the simdjson_result holding one
std::string_view key_of(Field& f) {
  const od::raw_json_string raw = f.key();
  const char* p = reinterpret_cast<const char*>(raw.raw());
  const char* q = p;
  while (*q != '"' && *q != '\\') ++q;
  if (*q == '"') return {p, size_t(q - p)};
  return f.unescaped_key();
}

// Names the field a message is about ("layer 7 Inputs[0]", "Bindings[2]"). Built into text
// only for a message: most files have none, and a string per layer and tensor is a large part
// of reading one.
struct Where {
  long layer = -1;        // "layer N", or none
  std::string_view list;  // "Inputs", "Bindings", ...
  long item = -1;         // "[k]" after the list
  std::string str() const {
    std::string s;
    if (layer >= 0) s = "layer " + std::to_string(layer);
    if (!list.empty()) s += (s.empty() ? "" : " ") + std::string(list);
    if (item >= 0) s += "[" + std::to_string(item) + "]";
    return s;
  }
  Where in(std::string_view l) const { return {layer, l, -1}; }
  Where at(long k) const { return {layer, list, k}; }
};
std::string operator+(const Where& w, std::string_view s) { return w.str() + std::string(s); }

class Reader {
 public:
  Reader(Assembler& out, SharedText path, JsonStream& lines)
      : out_(out), path_(path), lines_(lines) {}

  // One element of a layer's Inputs/Outputs, a binding, or an I/O tensor.
  Tensor tensor(od::value v, const Where& where, std::string* io_mode = nullptr,
                std::string* profile_format = nullptr) {
    Tensor t;
    od::json_type type = v.type();
    if (type == od::json_type::string) {
      t.name = std::string(text_of(v));
      return t;
    }
    if (type != od::json_type::object) {
      problem(v, where + " is " + json_type_name(type) + ", not a tensor");
      return t;
    }
    std::string combined, format, dtype;
    bool has_combined = false, has_format = false, has_dtype = false;
    for (auto field : v.get_object()) {
      std::string_view key = key_of(field);
      od::value value = field.value();
      if (key == "Name") {
        string_field(value, where, " Name", t.name);
      } else if (key == "Location") {
        std::string location;
        if (string_field(value, where, " Location", location)) t.location = location;
      } else if (key == "Dimensions") {
        dims(value, where, t);
      } else if (key == "Format/Datatype") {
        has_combined = string_field(value, where, " Format/Datatype", combined);
      } else if (key == "Format") {
        has_format = string_field(value, where, " Format", format);
      } else if (key == "Datatype" || key == "DataType" || key == "Data Type") {
        has_dtype = string_field(value, where, key, dtype);
      } else if (key == "IOMode" && io_mode) {
        string_field(value, where, " IOMode", *io_mode);
      } else if (key == "ProfileInfo" && profile_format) {
        profile_info(value, where, *profile_format);
      }
      // Other tensor keys (StrideOrder, Strides, IsShapeInferenceIO, ...) carry nothing the
      // model holds.
    }
    // The combined key wins over the TRT 11 split "Format"; a data type key wins for the dtype.
    if (has_combined)
      set_format(t, combined);
    else if (has_format)
      set_format(t, format);
    if (has_dtype) {
      DtypeResult d = canonical_dtype(dtype);
      t.dtype = d.dtype;
      t.dtype_known = d.known;
    }
    return t;
  }

  Layer layer(od::value v, size_t index) {
    Layer layer;
    attrs_.clear();
    const Where where{long(index), {}, -1};
    for (auto field : v.get_object()) {
      std::string_view key = key_of(field);
      od::value value = field.value();
      if (key == "Name") {
        if (!string_field(value, where, " Name", layer.name)) keep(key, value);
      } else if (key == "LayerType") {
        if (!string_field(value, where, " LayerType", layer.type)) keep(key, value);
      } else if (key == "Inputs" || key == "Outputs") {
        auto& list = key == "Inputs" ? layer.inputs : layer.outputs;
        const Where side = where.in(key == "Inputs" ? "Inputs" : "Outputs");
        if (value.type() != od::json_type::array) {
          problem(value, side + " is " + json_type_name(value.type()) + ", not a list");
          continue;
        }
        size_t k = 0;
        for (auto t : value.get_array()) list.push_back(tensor(t.value(), side.at(long(k++))));
      } else if (key == "TacticValue") {
        tactic(value, where, layer);
      } else if (key == "TacticName") {
        if (!string_field(value, where, " TacticName", layer.tactic_name)) keep(key, value);
      } else if (key == "StreamId") {
        int64_t id = 0;
        if (integer(value, where, " StreamId", -1, id) && id >= INT32_MIN && id <= INT32_MAX)
          layer.stream_id = int(id);
      } else if (key == "Metadata") {
        if (!string_field(value, where, " Metadata", layer.metadata)) keep(key, value);
      } else {
        keep(key, value);
      }
    }
    layer.attributes = attrs_.finish();
    return layer;
  }

  void problem(od::value& v, const std::string& message) {
    const uint64_t line = lines_.line_at(v.raw_json_token().data());
    if (++problems_ > kMaxTypeDiagnostics) return;
    out_.diagnostic(Severity::Warning, {path_, line}, message);
  }

  void finish() {
    if (problems_ > kMaxTypeDiagnostics)
      out_.diagnostic(Severity::Warning, {path_, 0},
                      std::to_string(problems_ - kMaxTypeDiagnostics) +
                          " more fields of an unexpected type or value (not listed)");
  }

  uint64_t line_of(od::value& v) { return lines_.line_at(v.raw_json_token().data()); }

 private:
  // True when `v` is a string (copied to `into`); otherwise diagnosed.
  bool string_field(od::value& v, const Where& where, std::string_view field, std::string& into) {
    od::json_type type = v.type();
    if (type != od::json_type::string) {
      std::string what = where.str();
      if (field.empty() || field.front() != ' ') what += ' ';
      what += field;
      problem(v, what + " is " + json_type_name(type) + " (" + std::string(token(v).substr(0, 40)) +
                     "), not a string");
      return false;
    }
    into = std::string(text_of(v));
    return true;
  }
  bool string_field(od::value& v, const Where& where, std::string_view field, SharedText& into) {
    std::string text;
    if (!string_field(v, where, field, text)) return false;
    into = text;
    return true;
  }

  // A JSON integer that fits int64 (read from its text: 1.5, 3e2 and out-of-range values are
  // not silently rounded or dropped).
  // The field is named as `where` + `field` + "[index]" (index >= 0), built only for a message.
  bool integer(od::value& v, const Where& where, const char* field, long index, int64_t& into) {
    auto what = [&] {
      return where.str() + field + (index >= 0 ? "[" + std::to_string(index) + "]" : std::string());
    };
    od::json_type type = v.type();
    if (type != od::json_type::number) {
      problem(v, what() + " is " + json_type_name(type) + ", not an integer");
      return false;
    }
    std::string_view t = token(v);
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), into);
    if (ec == std::errc::result_out_of_range) {
      problem(v, what() + " " + std::string(t) + " does not fit a 64-bit integer");
      return false;
    }
    if (ec != std::errc() || end != t.data() + t.size()) {
      problem(v, what() + " " + std::string(t) + " is not an integer");
      return false;
    }
    return true;
  }

  // Dimensions: a list of integers; any bad item makes the shape unknown (never a lower rank).
  void dims(od::value& v, const Where& where, Tensor& t) {
    if (v.type() != od::json_type::array) {
      problem(v, where + " Dimensions is " + json_type_name(v.type()) + ", not a list");
      return;
    }
    std::vector<int64_t> dims;
    bool ok = true;
    size_t k = 0;
    for (auto item : v.get_array()) {
      od::value d = item.value();
      int64_t n = 0;
      if (integer(d, where, " Dimensions", long(k++), n))
        dims.push_back(n);
      else
        ok = false;
    }
    if (!ok) return;  // has_dims stays false: the size is unknown, not smaller
    t.dims = std::move(dims);
    t.has_dims = true;
  }

  void tactic(od::value& v, const Where& where, Layer& layer) {
    od::json_type type = v.type();
    std::string_view text;
    std::string s;
    if (type == od::json_type::string) {
      s = std::string(text_of(v));
      text = s;
    } else if (type == od::json_type::number) {
      text = token(v);
    } else {
      problem(v, where + " TacticValue is " + json_type_name(type) + ", not a tactic");
      return;
    }
    layer.tactic = canonical_tactic(text);
    if (!layer.tactic)
      problem(
          v, where + " TacticValue " + std::string(text.substr(0, 40)) + " is not a tactic number");
  }

  // ProfileInfo: [{MinShape, OptShape, MaxShape, Format}, ...]; the first profile's format.
  void profile_info(od::value& v, const Where& where, std::string& format) {
    if (v.type() != od::json_type::array) {
      problem(v, where + " ProfileInfo is " + json_type_name(v.type()) + ", not a list");
      return;
    }
    bool first = true;
    for (auto item : v.get_array()) {
      od::value p = item.value();
      if (!first || p.type() != od::json_type::object) {
        first = false;
        continue;
      }
      first = false;
      for (auto field : p.get_object()) {
        if (std::string_view(key_of(field)) != "Format") continue;
        od::value f = field.value();
        string_field(f, where, " ProfileInfo Format", format);
      }
    }
  }

  // A JSON value as canonical text (model/attributes.h), written straight from the parser: no
  // nlohmann value per key. Nesting is bounded by the parser's depth limit.
  void write_json(od::value v, std::string_view key, std::string& out) {
    switch (v.type()) {
      case od::json_type::object: {
        out += '{';
        bool first = true;
        for (auto field : v.get_object()) {
          if (!first) out += ',';
          first = false;
          Attributes::append_string(out, key_of(field));
          out += ':';
          write_json(field.value(), key, out);
        }
        out += '}';
        return;
      }
      case od::json_type::array: {
        out += '[';
        bool first = true;
        for (auto item : v.get_array()) {
          if (!first) out += ',';
          first = false;
          write_json(item.value(), key, out);
        }
        out += ']';
        return;
      }
      case od::json_type::string:
        Attributes::append_string(out, text_of(v));
        return;
      case od::json_type::boolean:
        out += bool(v.get_bool()) ? "true" : "false";
        return;
      case od::json_type::null:
        out += "null";
        return;
      case od::json_type::number:
        break;
    }
    int64_t i = 0;
    uint64_t u = 0;
    double d = 0;
    char digits[24];
    if (v.get_int64().get(i) == simdjson::SUCCESS) {
      out.append(digits, std::to_chars(digits, digits + sizeof digits, i).ptr);
    } else if (v.get_uint64().get(u) == simdjson::SUCCESS) {
      out.append(digits, std::to_chars(digits, digits + sizeof digits, u).ptr);
    } else if (v.get_double().get(d) == simdjson::SUCCESS) {
      out += ojson(d).dump();  // nlohmann's shortest round-trip form, as the text promises
    } else {
      // A number no type holds (1E999999): kept as its text, and said.
      const std::string text(token(v));
      problem(v, "'" + std::string(key) + "' = " + text.substr(0, 40) +
                     " is out of range; kept as text");
      Attributes::append_string(out, text);
    }
  }

  // Any other key goes to Layer::attributes as the export wrote it; a repeated key keeps its
  // last value (the builder stays linear in the number of keys).
  void keep(std::string_view key, od::value& v) {
    value_.clear();
    write_json(v, key, value_);
    attrs_.add(key, value_);
  }

  // apply_format through a cache: an engine repeats a handful of format strings on every
  // tensor, and parsing one is most of the cost of reading a tensor. Bounded, so hostile
  // inputs with a new format per tensor only lose the cache.
  void set_format(Tensor& t, const std::string& text) {
    auto it = formats_.find(text);
    if (it == formats_.end()) {
      if (formats_.size() >= kMaxCachedFormats) {
        apply_format(t, text);
        return;
      }
      Tensor probe;
      apply_format(probe, text);
      it = formats_.emplace(text, std::move(probe)).first;
    }
    const Tensor& f = it->second;
    t.format = f.format;
    t.dtype = f.dtype;
    t.dtype_known = f.dtype_known;
    if (f.vector_width) {
      t.vector_width = f.vector_width;
      t.vector_axis = f.vector_axis;
    }
  }

  static constexpr size_t kMaxCachedFormats = 1024;
  Attributes::Builder attrs_;  // other keys of the layer being read
  std::string value_;          // the value being written
  std::unordered_map<std::string, Tensor> formats_;

  Assembler& out_;
  const SharedText path_;
  JsonStream& lines_;
  size_t problems_ = 0;
};

}  // namespace

uint64_t ingest_layer_json(const JsonStream::Source& source, Assembler& out,
                           const std::string& path, size_t chunk, uint64_t size) {
  JsonStream js(source, path, kJsonDepthLimit, chunk);
  const SharedText where(path);  // interned once: every layer names it
  Reader reader(out, where, js);
  od::parser parser;
  size_t capacity = 0;

  // Each value is parsed as a document of its own; `read` gets it. A parse error names the line
  // where simdjson stopped.
  auto parse = [&](auto&& read) {
    const simdjson::padded_string_view json = js.take();
    if (json.length() > capacity) {
      capacity = std::max(json.length(), 2 * capacity);
      if (parser.allocate(capacity, kJsonDepthLimit) != simdjson::SUCCESS) throw std::bad_alloc();
    }
    od::document doc;
    bool iterated = false;  // a document whose index failed has no location to ask
    try {
      doc = parser.iterate(json);
      iterated = true;
      read(doc, json.data());
    } catch (const simdjson::simdjson_error& e) {
      const char* at = nullptr;
      std::string place = path;
      if (iterated && doc.current_location().get(at) == simdjson::SUCCESS && at)
        place += ":" + std::to_string(js.line_at(at));
      else
        place += ":" + std::to_string(js.line_at(json.data()));
      throw InputError(place, std::string("invalid JSON: ") + simdjson::error_message(e.error()));
    }
  };

  std::vector<Binding> bindings;
  bool listing = false;
  auto read_layers = [&] {
    out.begin_listing(ListingKind::LayerJson, {path, 1});
    listing = true;
    // Layers go straight into the build. Its list is sized once, from the first layers: the
    // document's size over their bytes a layer, and a fifth more. So it does not grow (a growing
    // list moves every layer on each doubling and holds both copies at its peak) and does not
    // hold much more than it uses: under 2 MiB pages what is reserved and not used costs RSS too.
    // A document whose later layers take fewer bytes, or one past the cap, grows as before.
    constexpr size_t kSampleLayers = 256;
    constexpr uint64_t kMaxReserved = 200000;
    const uint64_t list_start = js.offset();
    size_t kept = 0;
    bool names_only = true;
    size_t index = 0;
    js.enter();
    while (js.next_element()) {
      Layer layer;
      uint64_t line = 0;
      bool keep = true;
      parse([&](od::document& d, const char* start) {
        line = js.line_at(start);
        const od::json_type type = d.type();
        if (type == od::json_type::string) {
          layer.name = std::string(std::string_view(d.get_string()));
        } else if (type == od::json_type::object) {
          layer = reader.layer(d.get_value(), index);
          names_only = false;
        } else {
          out.unrecognized({path, line}, "layer entry is neither a name nor an object");
          keep = false;
        }
      });
      ++index;
      if (!keep) continue;
      layer.source = {where, line};
      out.add_layer(std::move(layer));
      if (++kept == kSampleLayers && size > js.offset()) {
        const double bytes_per_layer = double(js.offset() - list_start) / double(kept);
        const double rest = double(size - js.offset()) / bytes_per_layer;
        out.reserve_layers(size_t(std::min(double(kMaxReserved), kept + rest * 1.2 + 1)));
      }
    }
    if (names_only && index > 0) out.set_names_only();
  };

  // A list of tensors ("Bindings", "I/O Tensors"), read whole: it is small.
  auto read_tensors = [&](const char* list, bool io) {
    parse([&](od::document& d, const char*) {
      if (d.type() != od::json_type::array) return;
      size_t k = 0;
      for (auto b : d.get_array()) {
        Binding binding;
        std::string profile_format;
        binding.tensor =
            reader.tensor(b.value(), Where{-1, list, long(k++)}, io ? &binding.io_mode : nullptr,
                          io ? &profile_format : nullptr);
        binding.name = binding.tensor.name;
        if (!profile_format.empty()) binding.tensor.format = profile_format;
        bindings.push_back(std::move(binding));
      }
    });
  };

  const char root = js.peek();
  if (root == '[') {
    read_layers();
  } else if (root == '{') {
    js.enter();
    std::string key;
    while (js.next_member(key)) {
      const bool is_list = js.peek() == '[';
      if ((key == "Layers" || key == "layers" || key == "LayerInfo" || key == "layerInfo") &&
          is_list && !listing) {
        read_layers();
      } else if (key == "Bindings" && is_list) {
        read_tensors("Bindings", false);
      } else if (key == "I/O Tensors" && is_list) {
        read_tensors("I/O Tensors", true);
      } else {
        js.skip();
      }
    }
  } else {
    js.skip();
  }
  js.finish();
  reader.finish();
  if (js.invalid_utf8())
    out.diagnostic(
        Severity::Warning, {path, 0},
        std::to_string(js.invalid_utf8()) + " bytes that are not UTF-8 were replaced by U+FFFD");
  if (!listing) throw InputError(path, "JSON without a \"Layers\" list");
  for (auto& b : bindings) out.add_binding(std::move(b));
  out.end_listing();
  return js.lines();
}

uint64_t ingest_layer_json(InputStream& in, Assembler& out, const std::string& path) {
  return ingest_layer_json([&in](char* buf, size_t n) { return in.read(buf, n); }, out, path,
                           JsonStream::kChunk, in.size_hint());
}

uint64_t ingest_layer_json(std::string_view text, Assembler& out, const std::string& path,
                           size_t chunk) {
  size_t at = 0;
  return ingest_layer_json(
      [&](char* buf, size_t n) {
        const size_t k = std::min(n, text.size() - at);
        std::memcpy(buf, text.data() + at, k);
        at += k;
        return k;
      },
      out, path, chunk, text.size());
}

}  // namespace trtlens
