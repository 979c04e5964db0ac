#include "render/svg.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <cstdio>
#include <memory>

#include "io/library.h"

namespace trtlens {
namespace {

// Graphviz is opened when the first graph is drawn, not linked: libgvc and the libraries it
// brings cost every run about a quarter of trtlens's start-up, and most commands draw nothing.
// dlsym on libgvc's handle also finds what its dependency libcgraph defines.
// clang-format off
#define TRTLENS_GRAPHVIZ_FUNCTIONS(X)                                                      \
  X(gvContext) X(gvLayout) X(gvRenderData) X(gvFreeRenderData) X(gvFreeLayout)            \
  X(agmemread) X(agclose) X(agseterr) X(agreseterrors) X(aglasterr) X(agsafeset)
// clang-format on

struct Graphviz {
#define X(f) decltype(&::f) f = nullptr;
  TRTLENS_GRAPHVIZ_FUNCTIONS(X)
#undef X
  GVC_t* context = nullptr;  // one for the whole process (see graphviz())
  std::string missing;       // why it cannot be used, when it cannot
};

// One context for the whole process, never freed: Graphviz 2.42's pango plugin keeps a font
// name from the previous context, so a second context compares against freed memory (ASan).
const Graphviz& graphviz() {
  static const Graphviz gv = [] {
    static Library lib(TRTLENS_GRAPHVIZ_SONAME);
    Graphviz g;
#define X(f) \
  if (!lib.get(g.f, #f) && g.missing.empty()) g.missing = lib.error();
    TRTLENS_GRAPHVIZ_FUNCTIONS(X)
#undef X
    if (g.missing.empty() && !(g.context = g.gvContext())) g.missing = "cannot start Graphviz";
    return g;
  }();
  if (!gv.missing.empty())
    throw GraphvizError("drawing a graph needs Graphviz (" TRTLENS_GRAPHVIZ_SONAME "): " +
                        gv.missing);
  return gv;
}

// Graphviz keeps its messages in a buffer when the level is above what it prints.
std::string last_graphviz_error(const Graphviz& gv) {
  char* msg = gv.aglasterr();
  std::string s = msg ? msg : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s.empty() ? "Graphviz rejected the graph" : s;
}

struct GraphDeleter {
  void operator()(Agraph_t* g) const { graphviz().agclose(g); }
};

std::unique_ptr<Agraph_t, GraphDeleter> parse(const Graphviz& gv, const std::string& dot) {
  gv.agseterr(AGMAX);  // collect messages instead of printing them on stderr
  gv.agreseterrors();
  return std::unique_ptr<Agraph_t, GraphDeleter>(gv.agmemread(dot.c_str()));
}

}  // namespace

bool graphviz_accepts(const std::string& dot, std::string* error) {
  const Graphviz& gv = graphviz();
  auto g = parse(gv, dot);
  if (!g && error) *error = last_graphviz_error(gv);
  return g != nullptr;
}

std::string graphviz_render(const std::string& dot, const std::string& format,
                            const std::string& engine, const BitmapOptions& bitmap) {
  const Graphviz& gv = graphviz();
  GVC_t* gvc = gv.context;
  auto g = parse(gv, dot);
  if (!g) throw GraphvizError(last_graphviz_error(gv));
  const bool raster = format == "png";
  if (raster) {
    std::string dpi = std::to_string(int(bitmap.dpi));
    gv.agsafeset(g.get(), const_cast<char*>("dpi"), const_cast<char*>(dpi.c_str()),
                 const_cast<char*>(""));
  }
  if (gv.gvLayout(gvc, g.get(), engine.c_str()) != 0)
    throw GraphvizError("Graphviz layout '" + engine + "' failed: " + last_graphviz_error(gv));
  if (raster) {
    // The bounding box is in points (1/72 in); Graphviz adds a 4 pt margin on each side.
    boxf bb = GD_bb(g.get());
    {
      double w = (bb.UR.x - bb.LL.x + 8) * bitmap.dpi / 72,
             h = (bb.UR.y - bb.LL.y + 8) * bitmap.dpi / 72;
      if (w > bitmap.max_side_px || h > bitmap.max_side_px || w * h > bitmap.max_pixels) {
        gv.gvFreeLayout(gvc, g.get());
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
  int rc = gv.gvRenderData(gvc, g.get(), format.c_str(), &data, &length);
  std::string out = rc == 0 && data ? std::string(data, length) : std::string();
  if (data) gv.gvFreeRenderData(data);
  gv.gvFreeLayout(gvc, g.get());
  if (rc != 0) throw GraphvizError("Graphviz cannot render format '" + format + "'");
  return out;
}

std::string svg_element(const std::string& doc) {
  size_t start = doc.find("<svg");
  if (start == std::string::npos) return "";
  return doc.substr(start);
}

}  // namespace trtlens
