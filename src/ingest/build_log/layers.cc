// Layer listings in text logs: the "Engine Layer Information:" block (Layer(T): lines), and the
// engine inspector's one-line text ("Layer Information:" / "Layers:" then detailed
// "Name: ..." lines or bare names, then "Bindings:").
#include "ingest/build_log/section.h"
#include "ingest/layer_text.h"

namespace trtlens {
namespace {

bool is_blank(std::string_view s) { return s.find_first_not_of(" \t") == std::string_view::npos; }

class LayersSection : public LogSection {
 public:
  using LogSection::LogSection;

  std::vector<std::string> triggers() const override {
    return {"engine_layer_block", "layer_info_header", "layers_header"};
  }

  bool start(size_t which, const LogLine& line) override {
    if (which == 0) {
      ctx_.out.begin_listing(ListingKind::EngineLayerInfo, ctx_.at(line));
      mode_ = Mode::EngineLines;
    } else {
      ctx_.out.begin_listing(ListingKind::LayerInfoDump, ctx_.at(line));
      mode_ = which == 1 ? Mode::AwaitLayers : Mode::Dump;
    }
    detailed_ = names_ = 0;
    interleaved_ = 0;
    first_interleaved_ = 0;
    foreign_open_ = false;
    return true;
  }

  // Inside a listing, a line with a log prefix is another message logged in between (another
  // thread, or a line broken by a lone CR whose rest follows un-prefixed): held until the
  // listing goes on, or shown not to. Headers of a new listing and run banners end it for sure.
  bool may_resume_after(const LogLine& line) override {
    const std::string_view m = line.message;
    const Grammar& g = ctx_.grammar;
    if (mode_ == Mode::Bindings) return false;
    if (RE2::FullMatch(m, g.re("engine_layer_block")) ||
        RE2::FullMatch(m, g.re("layer_info_header")) || ends_dump(m))
      return false;
    if (line.prefixed) {
      foreign_open_ = true;
      return true;
    }
    return foreign_open_;  // the rest of a foreign message broken over lines
  }

  void interleaved(uint64_t count, uint64_t first_line) override {
    if (interleaved_ == 0) first_interleaved_ = first_line;
    interleaved_ += count;
    foreign_open_ = false;
  }

  bool next(const LogLine& line) override {
    const std::string_view m = line.message;
    const Grammar& g = ctx_.grammar;
    switch (mode_) {
      case Mode::EngineLines:
        if (is_blank(m)) return true;
        if (m.substr(0, 6) == "Layer(") {
          std::string error;
          if (auto layer = parse_engine_layer_line(m, engine_layer_grammar_, &error)) {
            layer->source = ctx_.at(line);
            ctx_.out.add_layer(std::move(*layer));
          } else {
            ctx_.out.unrecognized(ctx_.at(line), "engine layer line: " + error);
          }
          return true;
        }
        if (RE2::FullMatch(m, g.re("layers_header"))) {  // TRT 10 detailed listing
          mode_ = Mode::Dump;
          return true;
        }
        return false;
      case Mode::AwaitLayers:
        if (is_blank(m)) return true;
        if (RE2::FullMatch(m, g.re("layers_header"))) {
          mode_ = Mode::Dump;
          return true;
        }
        if (line.prefixed) return false;
        mode_ = Mode::Dump;
        return dump_line(line);
      case Mode::Dump:
        return dump_line(line);
      case Mode::Bindings:
        if (line.prefixed || ends_dump(m)) return false;
        if (is_blank(m)) return true;
        ctx_.out.add_binding(Binding{std::string(m), {}, {}});
        return true;
    }
    return false;
  }

  void end() override {
    if (interleaved_ > 0)
      ctx_.out.skipped(ctx_.at(first_interleaved_), interleaved_,
                       std::to_string(interleaved_) +
                           " interleaved line(s) inside the layer listing skipped, the first here");
    if (mode_ == Mode::Dump && detailed_ > 0)
      ctx_.out.diagnostic(Severity::Warning, ctx_.at(last_layer_line_),
                          "layer listing cut short: it ends after this layer without its "
                          "'Bindings:' section");
    if (names_ > 0 && detailed_ == 0) ctx_.out.set_names_only();
    ctx_.out.end_listing();
  }

 private:
  enum class Mode { EngineLines, AwaitLayers, Dump, Bindings };

  // trtexec's un-prefixed "&&&& PASSED ..." banner may follow the inspector text directly.
  bool ends_dump(std::string_view m) const {
    return RE2::PartialMatch(m, ctx_.grammar.re("run_banner"));
  }

  bool dump_line(const LogLine& line) {
    const std::string_view m = line.message;
    if (line.prefixed || ends_dump(m)) return false;  // the inspector text is un-prefixed
    if (is_blank(m)) return true;
    if (RE2::FullMatch(m, ctx_.grammar.re("bindings_header"))) {
      mode_ = Mode::Bindings;
      return true;
    }
    if (RE2::PartialMatch(m, ctx_.grammar.re("oneline_layer"))) {
      std::string error;
      if (auto layer = parse_oneline_layer(m, &error)) {
        layer->source = ctx_.at(line);
        ctx_.out.add_layer(std::move(*layer));
        ++detailed_;
        last_layer_line_ = line.number;
      } else {
        ctx_.out.unrecognized(ctx_.at(line), "layer information line: " + error);
      }
      return true;
    }
    if (detailed_ > 0) {
      ctx_.out.unrecognized(ctx_.at(line), "layer information line without 'Name: ..., LayerType:'");
      return true;
    }
    Layer layer;  // layer_names_only verbosity: the line is the name
    layer.name = std::string(line.text);
    layer.source = ctx_.at(line);
    ctx_.out.add_layer(std::move(layer));
    ++names_;
    return true;
  }

  Mode mode_ = Mode::EngineLines;
  const EngineLayerGrammar engine_layer_grammar_{ctx_.grammar};
  int detailed_ = 0;
  int names_ = 0;
  uint64_t interleaved_ = 0, first_interleaved_ = 0, last_layer_line_ = 0;
  bool foreign_open_ = false;  // a held line had a log prefix: un-prefixed lines may be its rest
};

}  // namespace

std::unique_ptr<LogSection> make_layers_section(LogContext& ctx) {
  return std::make_unique<LayersSection>(ctx);
}

}  // namespace trtlens
