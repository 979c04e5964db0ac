// In-process Graphviz (gvc/cgraph): DOT text -> laid-out SVG / PNG / DOT. No `dot` process.
#pragma once

#include <stdexcept>
#include <string>

namespace trtlens {

class GraphvizError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bitmap outputs (png): resolution, and the largest picture made. Cairo cannot make a side over
// 32767 px, and Graphviz would shrink the drawing to fit (a blurred sliver), so a bigger one is
// refused instead.
struct BitmapOptions {
  double dpi = 144;
  double max_side_px = 32767;
  double max_pixels = 250e6;  // about 1 GB of RGBA
};

// The laid-out bitmap would be too large (message says the size and what to do instead).
class BitmapTooLarge : public GraphvizError {
 public:
  using GraphvizError::GraphvizError;
};

// format: "svg", "png", "dot" (with positions), "canon" (no layout). engine: "dot", "sfdp", ...
// Throws GraphvizError when Graphviz rejects the text or the format/engine is unavailable.
std::string graphviz_render(const std::string& dot, const std::string& format,
                            const std::string& engine = "dot", const BitmapOptions& bitmap = {});

// True when Graphviz parses `dot` (syntax check only); `error` gets Graphviz's message.
bool graphviz_accepts(const std::string& dot, std::string* error = nullptr);

// The <svg ...>...</svg> element of an SVG document (XML prolog and DOCTYPE dropped) for
// inlining into HTML.
std::string svg_element(const std::string& svg_document);

}  // namespace trtlens
