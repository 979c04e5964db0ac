// The engine graph for the HTML report: the laid-out SVG inline with a little plain JavaScript
// (pan, zoom, search by layer or ONNX name, click a node for its row in the layers table).
#pragma once

#include <string>
#include <vector>

#include "model/capture.h"
#include "render/dot.h"

namespace trtlens {

// An HTML fragment (no <section>): controls, notes, the SVG and its script. `id` prefixes every
// element id so two graphs fit on one page. What the budget changed or why nothing was drawn is
// added to `notes` and shown in the fragment. Never throws for a graph it cannot draw.
std::string graph_view_html(const Build& build, const DotOptions& dot, const std::string& id,
                            std::vector<std::string>& notes);

}  // namespace trtlens
