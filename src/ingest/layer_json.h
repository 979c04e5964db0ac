// --exportLayerInfo JSON (engine inspector): names-only and detailed forms of TRT 8.2-10, the
// TRT 11 form ("I/O Tensors", split format/data-type keys), and a bare list of layers as root.
#pragma once

#include <string>

#include "model/assembler.h"

namespace trtlens {

// `text` is the whole file; it is parsed in place (simdjson On-Demand, no DOM of the file) and
// may be changed (sanitised, padded). Throws InputError when it is not a layer JSON document.
void ingest_layer_json(std::string& text, Assembler& out, const std::string& path);

}  // namespace trtlens
