// --exportLayerInfo JSON (engine inspector): names-only and detailed forms of TRT 8.2-10, the
// TRT 11 form ("I/O Tensors", split format/data-type keys), and a bare list of layers as root.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ingest/json_stream.h"
#include "model/assembler.h"

namespace trtlens {

class InputStream;

// Reads the document from `source` one layer at a time (each parsed in place by simdjson
// On-Demand; the file is never held whole). Returns the input's line count. Throws InputError
// when it is not a layer JSON document. `chunk` is the read size (see JsonStream); `size`, the
// document's size when known (0 when not), sizes the build's list of layers.
uint64_t ingest_layer_json(const JsonStream::Source& source, Assembler& out,
                           const std::string& path, size_t chunk = JsonStream::kChunk,
                           uint64_t size = 0);
uint64_t ingest_layer_json(InputStream& in, Assembler& out, const std::string& path);
uint64_t ingest_layer_json(std::string_view text, Assembler& out, const std::string& path,
                           size_t chunk = JsonStream::kChunk);

}  // namespace trtlens
