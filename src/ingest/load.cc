#include "ingest/load.h"

#include "ingest/build_log.h"
#include "ingest/bundle.h"
#include "ingest/detect.h"
#include "ingest/json_text.h"
#include "ingest/layer_json.h"
#include "ingest/metadata_json.h"
#include "ingest/onnx_model.h"
#include "ingest/polygraphy_text.h"
#include "ingest/profile_json.h"  // issue 4
#include "ingest/times_json.h"    // issue 4
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

// `path` names the input in diagnostics; `open_path`, when given, is where its bytes are.
void load_one(const std::string& path, const Grammar& grammar, const ReadLimits& limits,
              Assembler& out, const std::string& open_path = "") {
  auto in = InputStream::open(open_path.empty() ? path : open_path, limits);
  in->keep_cut_gzip();
  InputKind kind = detect_kind(in->peek(8192));
  switch (kind) {
    case InputKind::Empty:
      throw InputError(path, "empty file");
    case InputKind::Binary:
      throw InputError(path, "binary file (not a TensorRT log, JSON export or ONNX model)");
    case InputKind::OtherJson:
      throw InputError(path, "JSON that is not a TensorRT export (no Layers, timeMs or latencyMs)");
    case InputKind::LayerJson: {
      out.begin_input(path, to_string(kind), in->gzip());
      std::string text = in->read_all();
      ingest_layer_json(text, out, path);
      note_cut_gzip(*in, out, path, count_lines(text));
      out.end_input(count_lines(text));
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
      std::string text = in->read_all();
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
    // profile-json, times-json (issue 4)
    case InputKind::ProfileJson:
    case InputKind::TimesJson: {
      out.begin_input(path, to_string(kind), in->gzip());
      LineReader lines(*in, limits.max_line_bytes);
      if (kind == InputKind::ProfileJson) ingest_profile_json(lines, out, path);
      else ingest_times_json(lines, out, path);
      note_cut_gzip(*in, out, path, lines.lines());
      out.end_input(lines.lines());
      return;
    }

    // onnx (issue 5)
    case InputKind::Onnx: {
      if (in->gzip()) throw InputError(path, "gzip-compressed ONNX model: decompress it first");
      if (path == "-") throw InputError(path, "ONNX models cannot be read from stdin; pass the file");
      OnnxModel model = read_onnx_model(path);
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
  // bundle directories and .tar.gz (issue 9) expand into their files here.
  for (const auto& path : paths) {
    if (path != "-") {
      if (auto bundle = Bundle::open(path, limits, out)) {
        // A member the loader cannot read (yet) is a diagnostic, not the end of the bundle.
        size_t loaded = 0;
        for (const auto& f : bundle->files()) {
          try {
            load_one(f.shown, grammar, limits, out, f.open);
            ++loaded;
          } catch (const InputError& e) {
            out.diagnostic(Severity::Warning, SourceLoc{e.path(), 0}, e.reason() + "; skipped");
          }
        }
        if (loaded == 0) {
          std::string why = "bundle holds no input trtlens can read";
          for (const auto& d : capture.diagnostics)  // say why, when the archive was damaged
            if (d.where.path == path && d.message.rfind("damaged archive", 0) == 0) {
              why += " (" + d.message + ")";
              break;
            }
          throw InputError(path, why);
        }
        continue;
      }
    }
    load_one(path, grammar, limits, out);
  }
  out.finish();
  return capture;
}

}  // namespace trtlens
