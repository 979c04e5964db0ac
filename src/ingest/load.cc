#include "ingest/load.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include "ingest/build_log.h"
#include "ingest/bundle.h"
#include "ingest/detect.h"
#include "ingest/json_text.h"
#include "ingest/layer_json.h"
#include "ingest/metadata_json.h"
#include "ingest/onnx_model.h"
#include "ingest/polygraphy_text.h"
#include "ingest/profile_json.h"
#include "ingest/times_json.h"
#include "ingest/tuning_cache.h"
#include "model/assembler.h"

namespace trtlens {
namespace {

// Line-based inputs keep what a cut .gz delivered; the cut itself is a warning.
void note_cut_gzip(const InputStream& in, Assembler& out, const std::string& path, uint64_t lines) {
  if (in.cut_short())
    out.diagnostic(Severity::Warning, {path, lines},
                   "gzip stream ends early (file cut short?); read the lines that arrived");
}

// Text in UTF-16 (what Windows PowerShell's '>' writes): a byte-order mark, or ASCII with a
// zero byte after (or before) every character.
bool looks_like_utf16(std::string_view head) {
  if (head.size() >= 2 && ((uint8_t(head[0]) == 0xff && uint8_t(head[1]) == 0xfe) ||
                           (uint8_t(head[0]) == 0xfe && uint8_t(head[1]) == 0xff)))
    return true;
  const size_t n = std::min<size_t>(head.size(), 512) & ~size_t{1};
  if (n < 8) return false;
  size_t zero_odd = 0, zero_even = 0;
  for (size_t i = 0; i < n; i += 2) {
    zero_even += head[i] == 0;
    zero_odd += head[i + 1] == 0;
  }
  // One half of the bytes all zero, the other text: a file of zeros is no text at all.
  return (zero_odd == n / 2 && zero_even < n / 16) || (zero_even == n / 2 && zero_odd < n / 16);
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The whole input for a JSON reader. A regular file's size is known: one allocation with room
// for the parser's padding, where InputStream::read_all's growth by doubling would copy the text
// a few times and leave the peak at up to twice the file.
// A file over --max-input-size gets no reservation: reading it stops at the limit with an error.
std::string read_whole(InputStream& in, const std::string& path, const BundleFile* member,
                       const ReadLimits& limits) {
  std::string text;
  struct stat st {};
  if (!member && !in.gzip() && path != "-" && ::stat(path.c_str(), &st) == 0 &&
      S_ISREG(st.st_mode) && st.st_size > 0 && uint64_t(st.st_size) <= limits.max_input_bytes)
    text.reserve(size_t(st.st_size) + simdjson::SIMDJSON_PADDING);
  char buf[1 << 16];
  while (size_t n = in.read(buf, sizeof buf)) text.append(buf, n);
  return text;
}

// `path` names the input in diagnostics; `member`, when given, is where its bytes are.
void load_one(const std::string& path, const Grammar& grammar, const ReadLimits& limits,
              Assembler& out, const BundleFile* member = nullptr) {
  auto in = member ? open_member(*member, limits) : InputStream::open(path, limits);
  in->keep_cut_gzip();
  InputKind kind = detect_kind(in->peek(8192));
  // A bundle's model that is not protobuf would otherwise be sniffed as a one-line log.
  if (member && kind != InputKind::Onnx && (member->kind == "onnx" || ends_with(path, ".onnx")))
    throw InputError(path, "named as an ONNX model but is not one (not protobuf: " +
                               std::string(to_string(kind)) + ")");
  switch (kind) {
    case InputKind::Empty: {
      if (in->cut_short()) throw InputError(path, "truncated gzip stream: nothing arrived");
      struct stat st {};
      if (!member && path != "-" && ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        throw InputError(path, "nothing to read (a pipe or FIFO whose writer sent nothing)");
      throw InputError(path, "empty file");
    }
    case InputKind::Binary:
      if (looks_like_utf16(in->peek(512)))
        throw InputError(path,
                         "UTF-16 text (as Windows PowerShell '>' writes): convert it with "
                         "iconv -f UTF-16 -t UTF-8");
      throw InputError(path, "binary file (not a TensorRT log, JSON export or ONNX model)");
    case InputKind::OtherJson:
      throw InputError(path, "JSON that is not a TensorRT export (no Layers, timeMs or latencyMs)");
    case InputKind::LayerJson: {
      out.begin_input(path, to_string(kind), in->gzip());
      const uint64_t lines = ingest_layer_json(*in, out, path);
      note_cut_gzip(*in, out, path, lines);
      out.end_input(lines);
      return;
    }
    case InputKind::BuildLog: {
      out.begin_input(path, to_string(kind), in->gzip());
      LogStats stats = ingest_build_log(*in, grammar, out, path, limits);
      note_cut_gzip(*in, out, path, stats.lines);
      out.end_input(stats.lines);
      if (stats.recognized == 0) throw InputError(path, "no TensorRT output recognised");
      return;
    }
    case InputKind::TrexMetadata: {
      out.begin_input(path, to_string(kind), in->gzip());
      std::string text = read_whole(*in, path, member, limits);
      ingest_metadata_json(text, out, path);
      out.end_input(count_lines(text));
      return;
    }
    case InputKind::PolygraphyText: {
      out.begin_input(path, to_string(kind), in->gzip());
      LineReader lines(*in, limits.max_line_bytes);
      uint64_t n = ingest_polygraphy_text(lines, out, path);
      note_cut_gzip(*in, out, path, n);
      out.end_input(n);
      return;
    }
    case InputKind::TuningCache: {
      out.begin_input(path, to_string(kind), in->gzip());
      LineReader lines(*in, limits.max_line_bytes);
      uint64_t n = ingest_tuning_cache(lines, out, path);
      note_cut_gzip(*in, out, path, n);
      out.end_input(n);
      return;
    }
    case InputKind::ProfileJson: {
      out.begin_input(path, to_string(kind), in->gzip());
      std::string text = read_whole(*in, path, member, limits);
      ingest_profile_json(text, out, path);
      const uint64_t lines = count_lines(text);
      note_cut_gzip(*in, out, path, lines);
      out.end_input(lines);
      return;
    }
    case InputKind::TimesJson: {
      out.begin_input(path, to_string(kind), in->gzip());
      const uint64_t lines = ingest_times_json(*in, out, path);
      note_cut_gzip(*in, out, path, lines);
      out.end_input(lines);
      return;
    }

    case InputKind::Onnx: {
      if (in->gzip()) throw InputError(path, "gzip-compressed ONNX model: decompress it first");
      if (path == "-") throw InputError(path, "ONNX models cannot be read from stdin; pass the file");
      OnnxModel model = !member          ? read_onnx_model(path)
                        : member->member ? read_onnx_model_fd(path, ::dup(member->member->fd))
                                         : read_onnx_model(member->open);
      out.begin_input(path, to_string(kind), false);
      out.onnx_model(std::move(model));
      out.end_input(0);
      return;
    }

    default:
      throw InputError(path, std::string(to_string(kind)) + " input is not supported yet");
  }
}

}  // namespace

Capture load_capture(const std::vector<std::string>& paths, const Grammar& grammar,
                     const ReadLimits& limits) {
  Capture capture;
  Assembler out(capture);
  // bundle directories and .tar.gz expand into their files here.
  for (const auto& path : paths) {
    if (path != "-") {
      if (auto bundle = Bundle::open(path, limits, out)) {
        // A member the loader cannot read (yet) is a diagnostic, not the end of the bundle.
        size_t loaded = 0;
        for (const auto& f : bundle->files()) {
          try {
            load_one(f.shown, grammar, limits, out, &f);
            ++loaded;
          } catch (const InputError& e) {
            out.diagnostic(Severity::Warning, SourceLoc{e.path(), 0}, e.reason() + "; skipped");
          }
        }
        if (loaded == 0) {
          std::string why = "bundle holds no input trtlens can read";
          if (!bundle->empty_reason().empty()) why += " (" + bundle->empty_reason() + ")";
          throw InputError(path, why);
        }
        continue;
      }
    }
    load_one(path, grammar, limits, out);
  }
  out.finish(limits.threads);
  return capture;
}

}  // namespace trtlens
