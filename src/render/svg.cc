#include "render/svg.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <cstdio>
#include <memory>

namespace trtlens {
namespace {

// Graphviz keeps its messages in a buffer when the level is above what it prints.
std::string last_graphviz_error() {
  char* msg = aglasterr();
  std::string s = msg ? msg : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s.empty() ? "Graphviz rejected the graph" : s;
}

// One context for the whole process, never freed: Graphviz 2.42's pango plugin keeps a font
// name from the previous context, so a second context compares against freed memory (ASan).
GVC_t* context() {
  static GVC_t* gvc = gvContext();
  return gvc;
}
struct GraphDeleter {
  void operator()(Agraph_t* g) const { agclose(g); }
};

std::unique_ptr<Agraph_t, GraphDeleter> parse(const std::string& dot) {
  agseterr(AGMAX);  // collect messages instead of printing them on stderr
  agreseterrors();
  return std::unique_ptr<Agraph_t, GraphDeleter>(agmemread(dot.c_str()));
}

}  // namespace

bool graphviz_accepts(const std::string& dot, std::string* error) {
  auto g = parse(dot);
  if (!g && error) *error = last_graphviz_error();
  return g != nullptr;
}

std::string graphviz_render(const std::string& dot, const std::string& format,
                            const std::string& engine, const BitmapOptions& bitmap) {
  GVC_t* gvc = context();
  if (!gvc) throw GraphvizError("cannot start Graphviz");
  auto g = parse(dot);
  if (!g) throw GraphvizError(last_graphviz_error());
  const bool raster = format == "png";
  if (raster) {
    std::string dpi = std::to_string(int(bitmap.dpi));
    agsafeset(g.get(), const_cast<char*>("dpi"), const_cast<char*>(dpi.c_str()),
              const_cast<char*>(""));
  }
  if (gvLayout(gvc, g.get(), engine.c_str()) != 0)
    throw GraphvizError("Graphviz layout '" + engine + "' failed: " + last_graphviz_error());
  if (raster) {
    // The bounding box is in points (1/72 in); Graphviz adds a 4 pt margin on each side.
    boxf bb = GD_bb(g.get());
    {
      double w = (bb.UR.x - bb.LL.x + 8) * bitmap.dpi / 72,
             h = (bb.UR.y - bb.LL.y + 8) * bitmap.dpi / 72;
      if (w > bitmap.max_side_px || h > bitmap.max_side_px || w * h > bitmap.max_pixels) {
        gvFreeLayout(gvc, g.get());
        char msg[160];
        std::snprintf(msg, sizeof msg, "the PNG would be %.0f x %.0f px at %.0f dpi", w, h,
                      bitmap.dpi);
        throw BitmapTooLarge(std::string(msg) +
                             " (over what a bitmap can hold): write SVG (-o x.svg), draw part "
                             "of the graph with --focus REGEX, or lower --dpi");
      }
    }
  }
  char* data = nullptr;
  unsigned int length = 0;
  int rc = gvRenderData(gvc, g.get(), format.c_str(), &data, &length);
  std::string out = rc == 0 && data ? std::string(data, length) : std::string();
  if (data) gvFreeRenderData(data);
  gvFreeLayout(gvc, g.get());
  if (rc != 0) throw GraphvizError("Graphviz cannot render format '" + format + "'");
  return out;
}

std::string svg_element(const std::string& doc) {
  size_t start = doc.find("<svg");
  if (start == std::string::npos) return "";
  return doc.substr(start);
}

}  // namespace trtlens
