// The ONNX parser's verbose trace: "Parsing node: X [Op]", "X [Op] inputs: [...]", initializers,
// network inputs and outputs, convolution kernels. Each line stands alone; the section only
// remembers which node is being parsed ("Using kernel" belongs to it).
#include <charconv>

#include "ingest/build_log/section.h"
#include "model/values.h"

namespace trtlens {
namespace {

std::vector<int64_t> parse_int_tuple(std::string_view s, bool* ok) {
  std::vector<int64_t> out;
  *ok = true;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == ',')) ++i;
    if (i >= s.size()) break;
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data() + i, s.data() + s.size(), v);
    if (ec != std::errc()) {
      *ok = false;
      return out;
    }
    out.push_back(v);
    i = size_t(p - s.data());
  }
  return out;
}

bool is_type_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

// At `arrow` (the position of " -> (") does "(DIMS)[TYPE]]" follow? Returns the end of the
// element (just after "]]") and fills dims/type, or npos.
size_t element_tail(std::string_view s, size_t arrow, std::string_view* dims,
                    std::string_view* type) {
  size_t i = arrow + 5;  // past " -> ("
  size_t d0 = i;
  while (i < s.size() &&
         (s[i] == '-' || s[i] == ',' || s[i] == ' ' || (s[i] >= '0' && s[i] <= '9')))
    ++i;
  if (i + 1 >= s.size() || s[i] != ')' || s[i + 1] != '[') return std::string_view::npos;
  *dims = s.substr(d0, i - d0);
  i += 2;
  size_t t0 = i;
  while (i < s.size() && is_type_char(s[i])) ++i;
  if (i + 1 >= s.size() || s[i] != ']' || s[i + 1] != ']') return std::string_view::npos;
  *type = s.substr(t0, i - t0);
  return i + 2;
}

}  // namespace

// "[inputs -> (1, 3, 512, 768)[FLOAT]], [661 -> (32, 3, 3, 3)[FLOAT]]," -> values. A name may
// itself contain " -> (": the element ends at the first " -> (" followed by "DIMS)[TYPE]]".
bool parse_onnx_value_list(std::string_view s, std::vector<OnnxValue>& out, std::string* error) {
  size_t i = 0;
  while (true) {
    while (i < s.size() && (s[i] == ' ' || s[i] == ',')) ++i;
    if (i >= s.size()) return true;
    if (s[i] != '[') {
      *error = "expected '[' at column " + std::to_string(i + 1);
      return false;
    }
    size_t name0 = i + 1;
    size_t search = name0;
    while (true) {
      size_t arrow = s.find(" -> (", search);
      if (arrow == std::string_view::npos) {
        *error = "tensor without ' -> (dims)[type]]'";
        return false;
      }
      std::string_view dims, type;
      size_t end = element_tail(s, arrow, &dims, &type);
      if (end == std::string_view::npos) {
        search = arrow + 1;
        continue;
      }
      OnnxValue v;
      v.name = std::string(s.substr(name0, arrow - name0));
      bool ok = false;
      v.dims = parse_int_tuple(dims, &ok);
      v.has_dims = ok;
      v.dtype = canonical_dtype(type).dtype;
      out.push_back(std::move(v));
      i = end;
      break;
    }
  }
}

namespace {

class OnnxParseSection : public LogSection {
 public:
  using LogSection::LogSection;

  std::vector<std::string> triggers() const override {
    return {"onnx_parsing_node",       "onnx_searching_input",       "onnx_registering_layer",
            "onnx_registering_tensor", "onnx_importing_initializer", "onnx_using_kernel",
            "onnx_network_input",      "onnx_marking_output",        "onnx_node_io"};
  }

  bool start(size_t which, const LogLine& line) override {
    const Grammar& g = ctx_.grammar;
    const std::string_view m = line.message;
    std::string a, b, c;
    switch (which) {
      case 0:
        RE2::FullMatch(m, g.re("onnx_parsing_node"), &a, &b);
        node_ = a;
        op_ = b;
        ctx_.out.onnx_parse_node(a, b, ctx_.at(line));
        break;
      case 4:
        RE2::FullMatch(m, g.re("onnx_importing_initializer"), &a);
        ctx_.out.onnx_parse_initializer(a);
        break;
      case 5: {
        RE2::PartialMatch(m, g.re("onnx_using_kernel"), &a, &b);
        bool ok = false;
        auto kernel = parse_int_tuple(a, &ok);
        // stoll would throw on a count too large for int64: such a line is not read.
        int64_t outputs = 0;
        auto [end, err] = std::from_chars(b.data(), b.data() + b.size(), outputs);
        if (err != std::errc() || end != b.data() + b.size()) {
          ctx_.out.unrecognized(ctx_.at(line), "kernel line: numOutputs out of range: " + b);
          break;
        }
        ctx_.out.onnx_parse_kernel(std::move(kernel), outputs);
        break;
      }
      case 6: {
        RE2::FullMatch(m, g.re("onnx_network_input"), &a, &b, &c);
        OnnxValue v;
        v.name = a;
        v.dtype = canonical_dtype(b).dtype;
        bool ok = false;
        v.dims = parse_int_tuple(c, &ok);
        v.has_dims = ok;
        ctx_.out.onnx_parse_graph_input(std::move(v));
        break;
      }
      case 7:
        RE2::FullMatch(m, g.re("onnx_marking_output"), &a, &b);
        ctx_.out.onnx_parse_graph_output(b);
        break;
      case 8:
        node_io(line);
        break;
      default:  // searching / registering: recognised, nothing to keep
        break;
    }
    return false;
  }

 private:
  void node_io(const LogLine& line) {
    const std::string_view m = line.message;
    // Prefer the node being parsed as anchor: its name may contain "] inputs: [".
    std::string node;
    bool outputs = false;
    size_t rest = std::string_view::npos;
    for (bool out : {false, true}) {
      std::string head = node_ + " [" + op_ + "] " + (out ? "outputs:" : "inputs:");
      if (!node_.empty() && m.substr(0, head.size()) == head) {
        node = node_;
        outputs = out;
        rest = head.size();
      }
    }
    if (rest == std::string_view::npos) {
      for (bool out : {false, true}) {
        std::string_view key = out ? "] outputs:" : "] inputs:";
        size_t k = m.find(key);
        if (k == std::string_view::npos) continue;
        size_t open = m.rfind(" [", k);
        if (open == std::string_view::npos) continue;
        node = std::string(m.substr(0, open));
        outputs = out;
        rest = k + key.size();
        break;
      }
    }
    if (rest == std::string_view::npos) {
      ctx_.out.unrecognized(ctx_.at(line), "ONNX node tensor line without a node name");
      return;
    }
    std::vector<OnnxValue> values;
    std::string error;
    if (!parse_onnx_value_list(m.substr(rest), values, &error)) {
      ctx_.out.unrecognized(ctx_.at(line), "ONNX node tensors: " + error);
      return;
    }
    ctx_.out.onnx_parse_node_io(node, outputs, std::move(values));
  }

  std::string node_, op_;
};

}  // namespace

std::unique_ptr<LogSection> make_onnx_parse_section(LogContext& ctx) {
  return std::make_unique<OnnxParseSection>(ctx);
}

}  // namespace trtlens
