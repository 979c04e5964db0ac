#include "ingest/detect.h"

#include "ingest/metadata_json.h"
#include "ingest/polygraphy_text.h"
#include "ingest/tuning_cache.h"

namespace trtlens {

const char* to_string(InputKind k) {
  switch (k) {
    case InputKind::BuildLog: return "build-log";
    case InputKind::LayerJson: return "layer-json";
    case InputKind::ProfileJson: return "profile-json";
    case InputKind::TimesJson: return "times-json";
    case InputKind::Onnx: return "onnx";
    case InputKind::Empty: return "empty";
    case InputKind::Binary: return "binary";
    case InputKind::OtherJson: return "json";
    case InputKind::TrexMetadata: return "trex-metadata";
    case InputKind::PolygraphyText: return "polygraphy-text";
    case InputKind::TuningCache: return "tuning-cache";
  }
  return "unknown";
}

InputKind detect_kind(std::string_view head) {
  size_t i = 0;
  if (head.substr(0, 3) == "\xef\xbb\xbf") i = 3;
  while (i < head.size() && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n'))
    ++i;
  if (i == head.size()) return InputKind::Empty;

  const std::string_view body = head.substr(i);
  // A log line starts with "[05/08/2024-..." or "[TRT]"; a JSON array with '{', '[', '"' or ']'.
  size_t k = 1;
  while (k < body.size() && (body[k] == ' ' || body[k] == '\t' || body[k] == '\r' || body[k] == '\n')) ++k;
  const bool json_array = body[0] == '[' && k < body.size() &&
                          (body[k] == '{' || body[k] == '[' || body[k] == '"' || body[k] == ']');
  if (body[0] == '{' || json_array) {
    if (looks_like_trex_metadata(body)) return InputKind::TrexMetadata;
    if (body[0] == '{' && looks_like_tuning_cache(body)) return InputKind::TuningCache;
    auto has = [&](std::string_view key) { return body.find(key) != std::string_view::npos; };
    if (has("\"Layers\"") || has("\"LayerType\"") || has("\"layers\"")) return InputKind::LayerJson;
    if (has("\"latencyMs\"") || has("\"startEnqMs\"") || has("\"startInMs\"") ||
        has("\"computeMs\""))
      return InputKind::TimesJson;
    if (has("\"timeMs\"") || has("\"averageMs\"") || has("\"count\"")) return InputKind::ProfileJson;
    if (has("\"")) return InputKind::OtherJson;
  }

  // Text logs carry tabs, ANSI escapes and TRT 8.6+ separators, but no NULs and few controls.
  size_t controls = 0;
  const size_t n = std::min<size_t>(head.size(), 8192);
  for (size_t k = 0; k < n; ++k) {
    unsigned char c = static_cast<unsigned char>(head[k]);
    if (c == 0) {
      // ONNX models are protobuf: field 1 (ir_version) varint first.
      if (static_cast<unsigned char>(head[0]) == 0x08) return InputKind::Onnx;
      return InputKind::Binary;
    }
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != 0x1b && c != 0x1e && c != 0x1f)
      ++controls;
  }
  if (static_cast<unsigned char>(head[0]) == 0x08 && controls > 0) return InputKind::Onnx;
  if (controls * 20 > n) return InputKind::Binary;
  if (looks_like_polygraphy_text(head)) return InputKind::PolygraphyText;
  return InputKind::BuildLog;
}

}  // namespace trtlens
