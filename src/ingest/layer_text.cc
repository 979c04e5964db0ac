#include "ingest/layer_text.h"

#include <cctype>
#include <charconv>
#include <cstdlib>

#include "model/values.h"

namespace trtlens {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool is_key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '/';
}

// Does `s` at `i` hold ", Key: " (or ", Key:" at the very end)? Returns the key length.
size_t key_after_comma(std::string_view s, size_t i) {
  if (s.substr(i, 2) != ", ") return 0;
  size_t j = i + 2;
  if (j >= s.size() || !std::isalpha(static_cast<unsigned char>(s[j]))) return 0;
  size_t k = j;
  while (k < s.size() && is_key_char(s[k])) ++k;
  if (k < s.size() && s[k] == ':' && (k + 1 == s.size() || s[k + 1] == ' ')) return k - j;
  return 0;
}

// End of a bracketed value starting at s[i] ('[' or '{'), matching nested brackets.
size_t bracket_end(std::string_view s, size_t i) {
  int depth = 0;
  for (size_t j = i; j < s.size(); ++j) {
    char c = s[j];
    if (c == '[' || c == '{')
      ++depth;
    else if (c == ']' || c == '}') {
      if (--depth == 0) return j + 1;
    }
  }
  return std::string_view::npos;
}

// End of a plain value: the next ", Key: ", or `stop` at depth 0, or the end.
size_t plain_end(std::string_view s, size_t i, char stop) {
  for (size_t j = i; j < s.size(); ++j) {
    if (s[j] == ',' && key_after_comma(s, j)) return j;
    if (stop && s[j] == stop) return j;
  }
  return s.size();
}

// `dims` is taken: its vector moves into the tensor (a copy was an allocation a tensor).
Tensor make_tensor(std::string_view name, std::string_view dtype, Dims&& dims) {
  Tensor t;
  t.name = std::string(name);
  DtypeResult d = canonical_dtype(dtype);
  t.dtype = d.dtype;
  t.dtype_known = d.known;
  t.dims = std::move(dims.dims);
  t.has_dims = true;
  t.vector_axis = dims.vector_axis;
  t.vector_width = dims.vector_width;
  return t;
}

// "a[Int8(1,2)], b[Int8(1,2)] -> c[Int8(1,2)]" or the 10.x "a (Int8[1,2]) -> c (Int8[1,2])".
bool split_tensors(std::string_view s, const EngineLayerGrammar& g, Layer& layer,
                   std::string* error) {
  bool outputs = false;
  size_t pos = 0;
  if (starts_with(s, " -> "))
    pos = 4, outputs = true;
  else if (starts_with(s, "-> "))
    pos = 3, outputs = true;
  else if (trim(s) == "->")
    return true;
  size_t name_start = pos;
  while (pos < s.size()) {
    size_t a = s.find('[', pos);
    size_t b = s.find(" (", pos);
    size_t c = std::min(a, b);
    if (c == std::string_view::npos) break;
    std::string_view dtype, dims_text;
    size_t taken = 0;
    bool matched;
    if (g.builtin) {
      matched = c == a ? read_tensor_suffix_8x(s.substr(c), dtype, dims_text, taken)
                       : read_tensor_suffix_10x(s.substr(c), dtype, dims_text, taken);
    } else {
      re2::StringPiece rest(s.data() + c, s.size() - c), d, n;
      matched = RE2::Consume(&rest, c == a ? g.t8 : g.t10, &d, &n);
      dtype = std::string_view(d.data(), d.size());
      dims_text = std::string_view(n.data(), n.size());
      taken = s.size() - c - rest.size();
    }
    auto dims = matched ? parse_dims(dims_text) : std::nullopt;
    if (dims) {
      size_t after = c + taken;
      size_t sep = 0;
      bool to_outputs = false;
      if (after == s.size())
        sep = 0;
      else if (s.substr(after, 4) == " -> ")
        sep = 4, to_outputs = true;
      else if (s.substr(after, 2) == ", ")
        sep = 2;
      else if (s.substr(after) == " ->")
        sep = 3, to_outputs = true;
      else
        dims.reset();
      if (dims) {
        Tensor t = make_tensor(s.substr(name_start, c - name_start), dtype, std::move(*dims));
        (outputs ? layer.outputs : layer.inputs).push_back(std::move(t));
        if (to_outputs) {
          if (outputs) {
            *error = "two ' -> ' separators";
            return false;
          }
          outputs = true;
        }
        pos = name_start = after + sep;
        continue;
      }
    }
    pos = c + 1;
  }
  if (name_start < s.size() && !trim(s.substr(name_start)).empty()) {
    *error = "tensor without a [Type(dims)] / (Type[dims]) suffix: '" +
             std::string(s.substr(name_start, 80)) + "'";
    return false;
  }
  if (!outputs) {
    *error = "no ' -> ' between inputs and outputs";
    return false;
  }
  return true;
}

// One "{ Name: a, Location: Device, Dimensions: [1,2], Format/Datatype: ... }" object.
bool parse_tensor_object(std::string_view s, size_t& i, Tensor& t, std::string* error) {
  ++i;  // '{'
  auto skip_spaces = [&] {
    while (i < s.size() && s[i] == ' ') ++i;
  };
  skip_spaces();
  while (i < s.size() && s[i] != '}') {
    size_t colon = s.find(':', i);
    if (colon == std::string_view::npos) break;
    std::string_view key = trim(s.substr(i, colon - i));
    i = colon + 1;
    if (i < s.size() && s[i] == ' ') ++i;
    size_t end;
    if (key == "Name") {
      // Names may hold ", " and brackets: they end at the next known tensor key.
      end = std::string_view::npos;
      for (std::string_view k : {", Location: ", ", Dimensions: ", ", Format/Datatype: ",
                                 ", Format: ", ", Datatype: ", ", DataType: "}) {
        end = std::min(end, s.find(k, i));
      }
      if (end == std::string_view::npos) {
        size_t close = s.find(" }", i);
        end = close == std::string_view::npos ? s.find('}', i) : close;
      }
      if (end == std::string_view::npos) break;
      t.name = std::string(s.substr(i, end - i));
    } else if (i < s.size() && s[i] == '[') {
      end = bracket_end(s, i);
      if (end == std::string_view::npos) break;
      std::string_view inner = s.substr(i + 1, end - i - 2);
      if (key == "Dimensions") {
        auto dims = parse_dims(inner);
        if (!dims) {
          *error = "tensor '" + t.name + "': dimensions '" + std::string(inner) + "'";
          return false;
        }
        t.dims = dims->dims;
        t.has_dims = true;
        if (dims->vector_width) {
          t.vector_axis = dims->vector_axis;
          t.vector_width = dims->vector_width;
        }
      }
    } else {
      end = plain_end(s, i, '}');
      std::string_view value = trim(s.substr(i, end - i));
      if (key == "Location")
        t.location = std::string(value);
      else if (key == "Format/Datatype" || key == "Format") {
        if (t.format.empty() || key == "Format/Datatype") apply_format(t, value);
      } else if (key == "Datatype" || key == "DataType") {
        DtypeResult d = canonical_dtype(value);
        t.dtype = d.dtype;
        t.dtype_known = d.known;
      }
    }
    i = end;
    if (i < s.size() && s[i] == ',') ++i;
    skip_spaces();
  }
  if (i >= s.size() || s[i] != '}') {
    *error = "unterminated tensor object";
    return false;
  }
  ++i;
  return true;
}

bool parse_tensor_array(std::string_view s, size_t& i, std::vector<Tensor>& out,
                        std::string* error) {
  ++i;  // '['
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == ',')) ++i;
    if (i < s.size() && s[i] == ']') {
      ++i;
      return true;
    }
    if (i >= s.size() || s[i] != '{') break;
    Tensor t;
    if (!parse_tensor_object(s, i, t, error)) return false;
    out.push_back(std::move(t));
  }
  *error = "unterminated tensor list";
  return false;
}

}  // namespace

void apply_format(Tensor& tensor, std::string_view format) {
  FormatInfo f = parse_format(format);
  tensor.format = std::string(trim(format));
  tensor.dtype = f.dtype.dtype;
  tensor.dtype_known = f.dtype.known;
  if (f.vector_width) {
    tensor.vector_width = f.vector_width;
    tensor.vector_axis = f.vector_axis;
  }
}

namespace {

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_word(char c) { return is_alpha(c) || (c >= '0' && c <= '9') || c == '_'; }
bool is_dims_char(char c) {  // [-0-9:, ]
  return (c >= '0' && c <= '9') || c == '-' || c == ':' || c == ',' || c == ' ';
}

// ^OPEN([A-Za-z][A-Za-z0-9_]*)MID([-0-9:, ]*)CLOSE: the two tensor suffixes differ only in
// their brackets. Each class stops at a byte it cannot hold, so no backtracking can help.
bool read_suffix(std::string_view s, std::string_view open, char mid, std::string_view close,
                 std::string_view& dtype, std::string_view& dims, size_t& taken) {
  if (!starts_with(s, open)) return false;
  size_t i = open.size();
  if (i >= s.size() || !is_alpha(s[i])) return false;
  size_t j = i + 1;
  while (j < s.size() && is_word(s[j])) ++j;
  if (j >= s.size() || s[j] != mid) return false;
  size_t k = j + 1;
  while (k < s.size() && is_dims_char(s[k])) ++k;
  if (s.substr(k, close.size()) != close) return false;
  dtype = s.substr(i, j - i);
  dims = s.substr(j + 1, k - j - 1);
  taken = k + close.size();
  return true;
}

}  // namespace

EngineLayerGrammar::EngineLayerGrammar(const Grammar& g)
    : line(g.re("engine_layer_line")),
      tactic(g.re("engine_layer_tactic")),
      t8(g.re("tensor_suffix_8x")),
      t10(g.re("tensor_suffix_10x")),
      builtin(g.pattern("engine_layer_line").builtin && g.pattern("engine_layer_tactic").builtin &&
              g.pattern("tensor_suffix_8x").builtin && g.pattern("tensor_suffix_10x").builtin) {}

// ^Layer\(([^()]*)\): (.*)$ as a FullMatch; the grammar is Latin-1, so '.' is any byte but LF.
bool read_engine_layer_line(std::string_view s, std::string_view& type, std::string_view& rest) {
  if (!starts_with(s, "Layer(")) return false;
  const size_t close = s.find_first_of("()", 6);
  if (close == std::string_view::npos || s[close] != ')' || s.substr(close + 1, 2) != ": ")
    return false;
  if (s.find('\n', close + 3) != std::string_view::npos) return false;
  type = s.substr(6, close - 6);
  rest = s.substr(close + 3);
  return true;
}

// ^, Tactic: (0x[0-9a-fA-F]+|-?\d+)(?:, |,?$): each alternative takes its longest run (a shorter
// one would be followed by a digit, which the tail cannot start with), and when the hex one
// fails the decimal one stops at the 'x'.
bool read_engine_layer_tactic(std::string_view s, std::string_view& id, size_t& taken) {
  constexpr std::string_view kHead = ", Tactic: ";
  if (!starts_with(s, kHead)) return false;
  const size_t i = kHead.size();
  size_t end = i;
  if (s.size() > i + 2 && s[i] == '0' && s[i + 1] == 'x' && is_hex_digit(s[i + 2])) {
    end = i + 3;
    while (end < s.size() && is_hex_digit(s[end])) ++end;
  } else {
    if (end < s.size() && s[end] == '-') ++end;
    const size_t digits = end;
    while (end < s.size() && s[end] >= '0' && s[end] <= '9') ++end;
    if (end == digits) return false;
  }
  if (s.substr(end, 2) == ", ") {
    taken = end + 2;
  } else if (end == s.size()) {
    taken = end;
  } else if (end + 1 == s.size() && s[end] == ',') {
    taken = end + 1;
  } else {
    return false;
  }
  id = s.substr(i, end - i);
  return true;
}

bool read_tensor_suffix_8x(std::string_view s, std::string_view& dtype, std::string_view& dims,
                           size_t& taken) {
  return read_suffix(s, "[", '(', ")]", dtype, dims, taken);
}

bool read_tensor_suffix_10x(std::string_view s, std::string_view& dtype, std::string_view& dims,
                            size_t& taken) {
  return read_suffix(s, " (", '[', "])", dtype, dims, taken);
}

std::optional<Layer> parse_engine_layer_line(std::string_view message, const Grammar& grammar,
                                             std::string* error) {
  return parse_engine_layer_line(message, EngineLayerGrammar(grammar), error);
}

std::optional<Layer> parse_engine_layer_line(std::string_view message, const EngineLayerGrammar& g,
                                             std::string* error) {
  std::string_view type, rest;
  bool matched;
  if (g.builtin) {
    matched = read_engine_layer_line(message, type, rest);
  } else {
    re2::StringPiece a, b;
    matched = RE2::FullMatch(message, g.line, &a, &b);
    type = std::string_view(a.data(), a.size());
    rest = std::string_view(b.data(), b.size());
  }
  if (!matched) {
    *error = "not a Layer(<type>): line";
    return std::nullopt;
  }
  size_t t = rest.find(", Tactic: ");
  if (t == std::string_view::npos) {
    *error = "no ', Tactic: ' after the layer name";
    return std::nullopt;
  }
  Layer layer;
  layer.type = std::string(type);
  layer.name = std::string(rest.substr(0, t));
  std::string_view after = rest.substr(t), tactic;
  size_t taken = 0;
  if (g.builtin) {
    matched = read_engine_layer_tactic(after, tactic, taken);
  } else {
    re2::StringPiece piece(after.data(), after.size()), id;
    matched = RE2::Consume(&piece, g.tactic, &id);
    tactic = std::string_view(id.data(), id.size());
    taken = after.size() - piece.size();
  }
  if (!matched) {
    *error = "tactic is neither decimal nor hex";
    return std::nullopt;
  }
  layer.tactic = canonical_tactic(tactic);
  if (!layer.tactic) {
    *error = "tactic '" + std::string(tactic) + "' out of range";
    return std::nullopt;
  }
  if (!split_tensors(after.substr(taken), g, layer, error)) return std::nullopt;
  return layer;
}

std::optional<Layer> parse_oneline_layer(std::string_view s, std::string* error) {
  if (!starts_with(s, "Name: ")) {
    *error = "not a 'Name: ...' line";
    return std::nullopt;
  }
  size_t lt = s.find(", LayerType: ");
  if (lt == std::string_view::npos) {
    *error = "no ', LayerType: ' after the layer name";
    return std::nullopt;
  }
  Layer layer;
  layer.name = std::string(s.substr(6, lt - 6));
  Attributes::Builder attributes;
  std::string value_text;
  size_t i = lt + 2;
  while (i < s.size()) {
    size_t colon = s.find(':', i);
    if (colon == std::string_view::npos) {
      *error = "field without ':' at '" + std::string(s.substr(i, 40)) + "'";
      return std::nullopt;
    }
    std::string key(trim(s.substr(i, colon - i)));
    i = colon + 1;
    if (i < s.size() && s[i] == ' ') ++i;
    if (key == "Metadata") {  // last field; free text with control-character separators
      layer.metadata = std::string(s.substr(i));
      while (!layer.metadata.empty() && layer.metadata.back() == ' ') layer.metadata.pop_back();
      break;
    }
    size_t end;
    if (key == "Inputs" || key == "Outputs") {
      if (i >= s.size() || s[i] != '[') {
        *error = key + " is not a list";
        return std::nullopt;
      }
      if (!parse_tensor_array(s, i, key == "Inputs" ? layer.inputs : layer.outputs, error))
        return std::nullopt;
      end = i;
    } else {
      if (i < s.size() && (s[i] == '[' || s[i] == '{')) {
        end = bracket_end(s, i);
        if (end == std::string_view::npos) {
          *error = key + ": unbalanced brackets";
          return std::nullopt;
        }
      } else {
        end = plain_end(s, i, 0);
      }
      std::string_view value = trim(s.substr(i, end - i));
      if (key == "LayerType")
        layer.type = std::string(value);
      else if (key == "TacticValue")
        layer.tactic = canonical_tactic(value);
      else if (key == "TacticName")
        layer.tactic_name = std::string(value);
      else if (key == "StreamId") {
        int id = 0;
        auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), id);
        if (ec == std::errc()) layer.stream_id = id;
      } else {
        value_text.clear();
        Attributes::append_json(value_text, oneline_value(value));
        attributes.add(key, value_text);
      }
    }
    i = end;
    if (i < s.size() && s[i] == ',') ++i;
    while (i < s.size() && s[i] == ' ') ++i;
  }
  layer.attributes = attributes.finish();
  return layer;
}

nlohmann::ordered_json oneline_value(std::string_view text) {
  text = trim(text);
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
    auto arr = nlohmann::ordered_json::array();
    std::string_view inner = text.substr(1, text.size() - 2);
    if (trim(inner).empty()) return arr;
    size_t pos = 0;
    while (pos <= inner.size()) {
      size_t comma = inner.find(',', pos);
      if (comma == std::string_view::npos) comma = inner.size();
      std::string_view item = trim(inner.substr(pos, comma - pos));
      long long v = 0;
      auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
      if (ec != std::errc() || p != item.data() + item.size() || item.empty())
        return std::string(text);
      arr.push_back(v);
      pos = comma + 1;
    }
    return arr;
  }
  if (text.size() >= 2 && text.front() == '{' && text.back() == '}') {
    auto obj = nlohmann::ordered_json::object();
    std::string_view inner = text.substr(1, text.size() - 2);
    size_t i = 0;
    while (i < inner.size()) {
      while (i < inner.size() && inner[i] == ' ') ++i;
      size_t colon = inner.find(':', i);
      if (colon == std::string_view::npos) return std::string(text);
      std::string key(trim(inner.substr(i, colon - i)));
      size_t v = colon + 1;
      while (v < inner.size() && inner[v] == ' ') ++v;
      size_t end = (v < inner.size() && (inner[v] == '[' || inner[v] == '{'))
                       ? bracket_end(inner, v)
                       : plain_end(inner, v, 0);
      if (end == std::string_view::npos) return std::string(text);
      obj[key] = oneline_value(inner.substr(v, end - v));
      i = end;
      if (i < inner.size() && inner[i] == ',') ++i;
    }
    return obj;
  }
  if (!text.empty()) {
    long long v = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc() && p == text.data() + text.size()) return v;
    std::string copy(text);
    char* endp = nullptr;
    double d = std::strtod(copy.c_str(), &endp);
    if (endp && *endp == '\0' &&
        (std::isdigit(static_cast<unsigned char>(copy[0])) || copy[0] == '-' || copy[0] == '.'))
      return d;
  }
  return std::string(text);
}

}  // namespace trtlens
