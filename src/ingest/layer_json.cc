#include "ingest/layer_json.h"

#include "ingest/json_text.h"
#include "ingest/layer_text.h"
#include "io/input.h"
#include "model/values.h"

namespace trtlens {
namespace {

using ojson = nlohmann::ordered_json;

Tensor tensor_from_json(const ojson& j) {
  Tensor t;
  if (j.is_string()) {
    t.name = j.get<std::string>();
    return t;
  }
  if (!j.is_object()) return t;
  if (auto it = j.find("Name"); it != j.end() && it->is_string()) t.name = it->get<std::string>();
  if (auto it = j.find("Location"); it != j.end() && it->is_string())
    t.location = it->get<std::string>();
  if (auto it = j.find("Dimensions"); it != j.end() && it->is_array()) {
    t.has_dims = true;
    for (const auto& d : *it)
      if (d.is_number_integer()) t.dims.push_back(d.get<int64_t>());
  }
  if (auto it = j.find("Format/Datatype"); it != j.end() && it->is_string()) {
    apply_format(t, it->get<std::string>());
  } else if (auto f = j.find("Format"); f != j.end() && f->is_string()) {
    apply_format(t, f->get<std::string>());  // TRT 11 split keys; the data type below wins
  }
  for (const char* key : {"Datatype", "DataType", "Data Type"}) {
    if (auto it = j.find(key); it != j.end() && it->is_string()) {
      DtypeResult d = canonical_dtype(it->get<std::string>());
      t.dtype = d.dtype;
      t.dtype_known = d.known;
    }
  }
  return t;
}

Layer layer_from_json(const ojson& j) {
  Layer layer;
  for (const auto& [key, value] : j.items()) {
    if (key == "Name" && value.is_string()) layer.name = value.get<std::string>();
    else if (key == "LayerType" && value.is_string()) layer.type = value.get<std::string>();
    else if (key == "Inputs" && value.is_array()) {
      for (const auto& t : value) layer.inputs.push_back(tensor_from_json(t));
    } else if (key == "Outputs" && value.is_array()) {
      for (const auto& t : value) layer.outputs.push_back(tensor_from_json(t));
    } else if (key == "TacticValue") {
      if (value.is_string()) layer.tactic = canonical_tactic(value.get<std::string>());
      else if (value.is_number_integer())
        layer.tactic = canonical_tactic(std::to_string(value.get<int64_t>()));
    } else if (key == "TacticName" && value.is_string()) {
      layer.tactic_name = value.get<std::string>();
    } else if (key == "StreamId" && value.is_number_integer()) {
      layer.stream_id = value.get<int>();
    } else if (key == "Metadata" && value.is_string()) {
      layer.metadata = value.get<std::string>();
    } else {
      layer.attributes[key] = value;
    }
  }
  return layer;
}

const ojson* find_layers(const ojson& root) {
  if (root.is_array()) return &root;
  if (!root.is_object()) return nullptr;
  for (const char* key : {"Layers", "layers", "LayerInfo", "layerInfo"})
    if (auto it = root.find(key); it != root.end() && it->is_array()) return &*it;
  return nullptr;
}

}  // namespace

void ingest_layer_json(const std::string& text, Assembler& out, const std::string& path) {
  JsonSanitizeResult clean = sanitize_json(text);
  if (clean.too_deep) throw InputError(path, "JSON nested deeper than 512 levels");
  ojson root;
  try {
    root = ojson::parse(clean.text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path + ":" + std::to_string(line_of_offset(clean.text, e.byte)),
                     "invalid JSON: " + std::string(e.what()).substr(std::string(e.what()).find(':') + 2));
  } catch (const nlohmann::json::out_of_range& e) {
    // A number no type holds ("number overflow parsing '1E999999'"): name the line it is on.
    const std::string what = e.what();
    const std::string message = what.substr(what.find(']') + 2);
    const size_t q = message.find('\'');
    const size_t at = q == std::string::npos
                          ? std::string::npos
                          : clean.text.find(message.substr(q + 1, message.rfind('\'') - q - 1));
    throw InputError(
        at == std::string::npos ? path : path + ":" + std::to_string(line_of_offset(clean.text, at)),
        "invalid JSON: " + message);
  }
  const ojson* layers = find_layers(root);
  if (!layers) throw InputError(path, "JSON without a \"Layers\" list");
  if (clean.invalid_utf8)
    out.diagnostic(Severity::Warning, {path, 0},
                   std::to_string(clean.invalid_utf8) +
                       " bytes that are not UTF-8 were replaced by U+FFFD");

  out.begin_listing(ListingKind::LayerJson, {path, 1});
  bool names_only = !layers->empty();
  for (const auto& item : *layers) {
    Layer layer;
    if (item.is_string()) {
      layer.name = item.get<std::string>();
    } else if (item.is_object()) {
      layer = layer_from_json(item);
      names_only = false;
    } else {
      out.unrecognized({path, 0}, "layer entry is neither a name nor an object");
      continue;
    }
    layer.source = {path, 0};
    out.add_layer(std::move(layer));
  }
  if (names_only) out.set_names_only();
  if (root.is_object()) {
    if (auto it = root.find("Bindings"); it != root.end() && it->is_array()) {
      for (const auto& b : *it) {
        if (b.is_string()) out.add_binding(Binding{b.get<std::string>(), {}, {}});
        else if (b.is_object()) out.add_binding(Binding{tensor_from_json(b).name, {}, tensor_from_json(b)});
      }
    }
    if (auto it = root.find("I/O Tensors"); it != root.end() && it->is_array()) {
      for (const auto& b : *it) {
        if (!b.is_object()) continue;
        Binding binding;
        binding.tensor = tensor_from_json(b);
        binding.name = binding.tensor.name;
        if (auto m = b.find("IOMode"); m != b.end() && m->is_string())
          binding.io_mode = m->get<std::string>();
        if (auto p = b.find("ProfileInfo"); p != b.end() && p->is_array() && !p->empty()) {
          const auto& first = (*p)[0];
          if (auto f = first.find("Format"); f != first.end() && f->is_string())
            binding.tensor.format = f->get<std::string>();
        }
        out.add_binding(std::move(binding));
      }
    }
  }
  out.end_listing();
}

}  // namespace trtlens
