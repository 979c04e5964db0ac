// Polygraphy indents a block under a one-line "[I] " prefix and prints Python reprs, so the
// lines are read by a small scanner anchored on the fixed separators (`---- `, `Layer N | `,
// ` [Op: `, ` [dtype=`, ` -> {`, ` = `) rather than by RE2 patterns: tensor names may contain
// commas, brackets and arrows, which only a scanner that knows where each part ends handles.
#include "ingest/polygraphy_text.h"

#include <algorithm>
#include <cstdlib>

#include "model/values.h"

namespace trtlens {
namespace {

constexpr std::string_view kBanner = "==== TensorRT Engine ====";

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Polygraphy prints numpy / its own DataType names ("float32", "float8e4m3fn").
DtypeResult dtype_of(std::string_view s) {
  if (starts_with(s, "float8")) return {"FP8", true};
  if (starts_with(s, "float4")) return {"FP4", true};
  return canonical_dtype(s);
}

// "(1, 3, 224, 224)", "(-1, 3)", "(1,)", "()"; nullopt when not a tuple of integers.
std::optional<std::vector<int64_t>> tuple_dims(std::string_view s) {
  s = trim(s);
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return std::nullopt;
  s = s.substr(1, s.size() - 2);
  std::vector<int64_t> dims;
  while (!s.empty()) {
    size_t comma = s.find(',');
    std::string item(trim(s.substr(0, comma)));
    if (!item.empty()) {
      char* end = nullptr;
      long long v = std::strtoll(item.c_str(), &end, 10);
      if (*end != '\0') return std::nullopt;
      dims.push_back(v);
    }
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return dims;
}

// "{a [dtype=float32, shape=(1, 3), Format: Row major ...], b [...]}" -> tensors.
// False when the text is not such a list.
bool tensor_list(std::string_view s, std::vector<Tensor>& out) {
  s = trim(s);
  if (s.size() < 2 || s.front() != '{' || s.back() != '}') return false;
  s = s.substr(1, s.size() - 2);
  while (!trim(s).empty()) {
    size_t open = s.find(" [dtype=");
    if (open == std::string_view::npos) return false;
    size_t close = s.find(']', open);
    if (close == std::string_view::npos) return false;
    Tensor t;
    t.name = std::string(s.substr(0, open));
    std::string_view body = s.substr(open + 8, close - open - 8);
    size_t shape = body.find(", shape=(");
    if (shape == std::string_view::npos) return false;
    DtypeResult d = dtype_of(body.substr(0, shape));
    t.dtype = d.dtype;
    t.dtype_known = d.known;
    size_t shape_end = body.find(')', shape);
    if (shape_end == std::string_view::npos) return false;
    auto dims = tuple_dims(body.substr(shape + 8, shape_end - shape - 7));
    if (!dims) return false;
    t.dims = *dims;
    t.has_dims = true;
    std::string_view rest = body.substr(shape_end + 1);
    if (starts_with(rest, ", Format: ")) {
      t.format = std::string(trim(rest.substr(10)));
      FormatInfo f = parse_format(t.format);
      t.vector_width = f.vector_width;
      t.vector_axis = f.vector_axis;
    }
    out.push_back(std::move(t));
    s.remove_prefix(close + 1);
    if (starts_with(s, ", ")) s.remove_prefix(2);
  }
  return true;
}

enum class Part { None, Inputs, Outputs, Memory, Profiles, Layers, Attributes };

class Reader {
 public:
  Reader(Assembler& out, const std::string& path) : out_(out), path_(path) {}

  void line(std::string_view raw, uint64_t number) {
    number_ = number;
    std::string_view text = raw;
    bool prefixed = false;
    if (text.size() >= 4 && text[0] == '[' && text[2] == ']' && text[3] == ' ') {
      prefixed = true;
      text.remove_prefix(4);
    }
    if (!started_) {
      if (trim(text) == kBanner) begin();
      return;
    }
    if (done_) return;
    // A new Polygraphy message (another "[I] " line) ends the summary; so does a second banner.
    if (prefixed) {
      finish();
      if (trim(text) == kBanner) begin();
      return;
    }
    std::string_view t = trim(text);
    if (t.empty()) return;
    if (starts_with(t, "---- ") && t.size() > 10 && t.substr(t.size() - 5) == " ----") {
      section(t.substr(5, t.size() - 10));
      return;
    }
    switch (part_) {
      case Part::None:
        if (starts_with(t, "Name: ")) return;  // "Name: Unnamed Network 0 | Explicit Batch Engine"
        break;
      case Part::Inputs:
      case Part::Outputs: {
        std::vector<Tensor> ts;
        if (!tensor_list(t, ts)) break;
        for (auto& tensor : ts) {
          Binding b;
          b.name = tensor.name;
          b.io_mode = part_ == Part::Inputs ? "Input" : "Output";
          b.tensor = std::move(tensor);
          out_.add_binding(std::move(b));
        }
        return;
      }
      case Part::Memory:
        if (starts_with(t, "Device Memory: ") && t.substr(t.size() - 6) == " bytes") {
          char* end = nullptr;
          std::string n(t.substr(15, t.size() - 21));
          unsigned long long v = std::strtoull(n.c_str(), &end, 10);
          if (*end == '\0' && !n.empty()) {
            out_.memory_figure("total_activation", double(v), {path_, number_});
            return;
          }
        }
        break;
      case Part::Profiles:
        if (profile_line(t)) return;
        break;
      case Part::Layers:
      case Part::Attributes:
        if (layer_line(t)) return;
        break;
    }
    out_.unrecognized({path_, number_},
                      "Polygraphy line not read: " + std::string(t.substr(0, 120)));
  }

  void finish() {
    if (!started_ || done_) return;
    done_ = true;
    if (layer_) out_.add_layer(std::move(*layer_));
    layer_.reset();
    const int expected = declared_layers_ * std::max(1, layer_profiles_);
    if (declared_layers_ >= 0 && seen_layers_ != expected)
      out_.diagnostic(Severity::Warning, {path_, layers_line_},
                      "Polygraphy announced " + std::to_string(expected) + " layer(s) and listed " +
                          std::to_string(seen_layers_) + " (output cut short?)");
    if (seen_layers_ == 0) {
      // The summary without --show layers: the I/O, memory and profiles, no layer listing.
      out_.diagnostic(Severity::Info, {path_, banner_line_},
                      "Polygraphy summary without layers (run `polygraphy inspect model "
                      "--show layers attrs` for them)");
    }
    out_.end_listing();
  }

  bool started() const { return started_; }

 private:
  void begin() {
    started_ = true;
    done_ = false;
    banner_line_ = number_;
    part_ = Part::None;
    out_.begin_listing(ListingKind::LayerJson, {path_, number_});
  }

  void section(std::string_view title) {
    if (title == "Attributes" && layer_) {  // the attributes of the layer just read
      part_ = Part::Attributes;
      return;
    }
    if (layer_) out_.add_layer(std::move(*layer_));
    layer_.reset();
    if (title.find("Engine Input(s)") != std::string_view::npos)
      part_ = Part::Inputs;
    else if (title.find("Engine Output(s)") != std::string_view::npos)
      part_ = Part::Outputs;
    else if (title == "Memory")
      part_ = Part::Memory;
    else if (title.find("Profile(s)") != std::string_view::npos)
      part_ = Part::Profiles;
    else if (title == "Attributes" && (part_ == Part::Layers || part_ == Part::Attributes))
      part_ = Part::Attributes;
    else if (title.find("Layer(s)") != std::string_view::npos) {
      part_ = Part::Layers;
      layers_line_ = number_;
      declared_layers_ = std::atoi(std::string(title).c_str());
    } else {
      part_ = Part::None;
      out_.unrecognized({path_, number_}, "Polygraphy section not read: " + std::string(title));
    }
  }

  // "- Profile: 0" and "Tensor: x (Input), Index: 0 | Shapes: min=(..), opt=(..), max=(..)".
  bool profile_line(std::string_view t) {
    if (starts_with(t, "- Profile: ")) {
      profile_ = std::atoi(std::string(t.substr(11)).c_str());
      return true;
    }
    if (!starts_with(t, "Tensor: ")) return false;
    size_t bar = t.rfind(" | ");
    if (bar == std::string_view::npos) return false;
    std::string_view head = t.substr(8, bar - 8);
    size_t io = head.rfind("(Input)");
    if (io == std::string_view::npos) io = head.rfind("(Output)");
    if (io == std::string_view::npos) return false;
    std::string name(trim(head.substr(0, io)));
    std::string_view shapes = t.substr(bar + 3);
    if (starts_with(shapes, "Shape: ")) return true;  // an output: its shape is in the I/O list
    if (!starts_with(shapes, "Shapes: ")) return false;
    size_t opt = shapes.find("opt=("), max = shapes.find("), max=(");
    if (opt == std::string_view::npos || max == std::string_view::npos || max < opt) return false;
    auto dims = tuple_dims(shapes.substr(opt + 4, max + 1 - opt - 4));
    if (!dims) return false;
    if (profile_ == 0) {
      std::string x;
      for (int64_t d : *dims) x += (x.empty() ? "" : "x") + std::to_string(d);
      out_.memory_shape(name, x, {path_, number_});
    }
    return true;
  }

  // "- Profile: 0", "Layer 0 | name [Op: Type]", "{inputs}", "-> {outputs}", "Key = value".
  bool layer_line(std::string_view t) {
    if (starts_with(t, "- Profile: ")) {
      ++layer_profiles_;
      return true;
    }
    if (starts_with(t, "Layer ")) {
      size_t bar = t.find(" | ");
      size_t op = t.rfind(" [Op: ");
      if (bar != std::string_view::npos && op != std::string_view::npos && op > bar &&
          t.back() == ']') {
        if (layer_) out_.add_layer(std::move(*layer_));
        layer_.emplace();
        layer_->name = std::string(t.substr(bar + 3, op - bar - 3));
        layer_->type = std::string(t.substr(op + 6, t.size() - op - 7));
        layer_->source = {path_, number_};
        part_ = Part::Layers;
        ++seen_layers_;
        return true;
      }
    }
    if (!layer_) return false;
    if (t.front() == '{') return tensor_list(t, layer_->inputs);
    if (starts_with(t, "-> {")) return tensor_list(t.substr(3), layer_->outputs);
    size_t eq = t.find(" = ");
    if (eq == std::string_view::npos) return false;
    std::string key(trim(t.substr(0, eq)));
    std::string value(trim(t.substr(eq + 3)));
    if (key == "Tactic" || key == "TacticValue") {
      if (auto tactic = canonical_tactic(value))
        layer_->tactic = tactic;
      else
        layer_->tactic_name = value;  // Myelin layers print a kernel name
    } else if (key == "TacticName") {
      layer_->tactic_name = value;
    } else if (key == "Metadata") {
      layer_->metadata = value;
    } else {
      layer_->attributes.set(key, value);
    }
    return true;
  }

  Assembler& out_;
  const SharedText path_;  // interned once: every layer names it
  uint64_t number_ = 0, banner_line_ = 0, layers_line_ = 0;
  bool started_ = false, done_ = false;
  Part part_ = Part::None;
  int profile_ = 0;
  int declared_layers_ = -1, seen_layers_ = 0, layer_profiles_ = 0;
  std::optional<Layer> layer_;
};

}  // namespace

bool looks_like_polygraphy_text(std::string_view head) {
  return head.find(kBanner) != std::string_view::npos;
}

uint64_t ingest_polygraphy_text(LineReader& lines, Assembler& out, const std::string& path) {
  Reader reader(out, path);
  Line line;
  while (lines.next(line)) reader.line(line.text, line.number);
  if (!reader.started())
    throw InputError(path, "no Polygraphy engine summary (\"" + std::string(kBanner) + "\") found");
  reader.finish();
  return lines.lines();
}

}  // namespace trtlens
