// Content sniffing: which ingester reads an input (never decided by the file name).
#pragma once

#include <string>
#include <string_view>

namespace trtlens {

enum class InputKind { BuildLog, LayerJson, ProfileJson, TimesJson, Onnx, Empty, Binary, OtherJson,
                       TrexMetadata, PolygraphyText, TuningCache };

const char* to_string(InputKind k);

// `head` is the first few KiB of decoded content.
InputKind detect_kind(std::string_view head);

}  // namespace trtlens
