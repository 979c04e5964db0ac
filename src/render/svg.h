// In-process Graphviz (gvc/cgraph): DOT text -> laid-out SVG / PNG / DOT. No `dot` process.
#pragma once

#include <stdexcept>
#include <string>

namespace trtlens {

class GraphvizError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// format: "svg", "png", "dot" (with positions), "canon" (no layout). engine: "dot", "sfdp", ...
// Throws GraphvizError when Graphviz rejects the text or the format/engine is unavailable.
std::string graphviz_render(const std::string& dot, const std::string& format,
                            const std::string& engine = "dot");

// True when Graphviz parses `dot` (syntax check only); `error` gets Graphviz's message.
bool graphviz_accepts(const std::string& dot, std::string* error = nullptr);

// The <svg ...>...</svg> element of an SVG document (XML prolog and DOCTYPE dropped) for
// inlining into HTML.
std::string svg_element(const std::string& svg_document);

}  // namespace trtlens
