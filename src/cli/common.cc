#include "cli/common.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <iostream>
#include <map>
#include <optional>

#include "analysis/memory.h"
#include "ingest/grammar.h"
#include "ingest/load.h"
#include "io/input.h"
#include "io/library.h"

namespace trtlens {
uint64_t parse_size(const std::string& text) {
  size_t pos = 0;
  unsigned long long n = 0;
  // stoull takes "-1" as 2^64-1 and skips leading blanks: a size starts with a digit.
  const bool digit = !text.empty() && std::isdigit(static_cast<unsigned char>(text[0]));
  try {
    if (digit) n = std::stoull(text, &pos);
  } catch (const std::exception&) {
  }
  if (!digit || pos == 0)
    throw UsageError("--max-input-size: '" + text + "' is not a size (e.g. 512M, 4G)");
  std::string unit = text.substr(pos);
  for (char& ch : unit) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  int shift = -1;
  if (unit.empty() || unit == "B") shift = 0;
  if (unit == "K" || unit == "KB" || unit == "KIB") shift = 10;
  if (unit == "M" || unit == "MB" || unit == "MIB") shift = 20;
  if (unit == "G" || unit == "GB" || unit == "GIB") shift = 30;
  if (unit == "T" || unit == "TB" || unit == "TIB") shift = 40;
  if (shift < 0) throw UsageError("--max-input-size: unknown unit '" + unit + "'");
  if (n > (~0ull >> shift)) throw UsageError("--max-input-size: '" + text + "' is too large");
  return n << shift;
}

// --shape values are checked against the inputs the builds declare: a name no build has, or a
// rank that differs from the tensor's, would otherwise be ignored without a word.
void check_shapes(const Capture& c, const std::vector<std::string>& specs) {
  std::map<std::string, std::vector<int64_t>> given;
  for (const auto& spec : specs) {
    auto s = parse_shape_option(spec);
    if (!s) throw UsageError("--shape '" + spec + "': expected name=1x3x224x224");
    given[s->first] = s->second;
  }
  const bool tensors_known = std::any_of(c.builds.begin(), c.builds.end(), [](const Build& b) {
    return std::any_of(b.layers.begin(), b.layers.end(),
                       [](const Layer& l) { return !l.inputs.empty(); });
  });
  if (given.empty() || !tensors_known) return;
  for (const auto& [name, dims] : given) {
    std::optional<size_t> rank;
    bool seen = false;
    for (const auto& b : c.builds)
      for (const auto& l : b.layers)
        for (const auto& t : l.inputs)
          if (t.name == name) {
            seen = true;
            if (t.has_dims) rank = t.dims.size();
          }
    if (!seen)
      throw UsageError("--shape " + name + ": no layer of the inputs reads a tensor of this name");
    if (rank && *rank != dims.size())
      throw UsageError("--shape " + name + ": " + std::to_string(dims.size()) +
                       " dims given, the tensor has " + std::to_string(*rank));
  }
}

namespace {

// The grammar files installed beside the binary (<prefix>/bin/trtlens reads
// <prefix>/share/trtlens/grammar), so a packaged trtlens learns a new TensorRT release when those
// files are updated, without a rebuild. A binary run from its build tree has none: embedded only.
std::string installed_grammar_dir() {
  const std::string bin = binary_dir();
  if (bin.empty()) return "";
  std::string dir = bin + "/../share/trtlens/grammar";
  struct stat st {};
  return stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) ? dir : "";
}

}  // namespace

void add_threads_option(CLI::App* cmd, CommonOptions& o) {
  cmd->add_option("--threads", o.threads,
                  "Threads reading large logs and analysing builds (0 = one per core)")
      ->default_val(0)
      ->check(CLI::Range(0, 256));
}

void add_common_options(CLI::App* cmd, CommonOptions& o, const std::vector<std::string>& formats,
                        const std::string& default_build) {
  o.build = default_build;
  cmd->add_option("INPUT", o.inputs,
                  "Files of one capture: build/runtime logs, layer/profile/times JSON ('-' = stdin)")
      ->required();
  cmd->add_option("--grammar-dir", o.grammar_dir,
                  "Directory of *.re2 grammar files replacing the built-in ones of the same name")
      ->envname("TRTLENS_GRAMMAR_DIR");
  cmd->add_option("--build", o.build, "Which build: N, final or all")
      ->default_val(default_build);
  cmd->add_flag("-q,--quiet", o.quiet, "No diagnostics on stderr");
  cmd->add_option("--max-input-size", o.max_input_size,
                  "Refuse inputs whose decoded size exceeds this (e.g. 512M, 4G)")
      ->default_val("16G");
  add_threads_option(cmd, o);
  if (!formats.empty()) {
    o.format = formats.front();
    cmd->add_option("--format", o.format, "Output format")
        ->check(CLI::IsMember(formats))
        ->default_val(formats.front());
    cmd->add_option("-o,--output", o.output, "Write to this file instead of stdout");
  }
  // Analysis inputs every command accepts.
  // One value per use (repeat the option), so an INPUT after it is never taken for a shape.
  cmd->add_option("--shape", o.analysis.shapes,
                  "Shape of a dynamic input, name=1x3x224x224 (repeatable)")
      ->allow_extra_args(false)
      ->type_name("NAME=DIMS");
  cmd->add_option_function<std::vector<std::string>>(
         "--onnx",
         [&o](const std::vector<std::string>& files) {
           for (const auto& f : files) {
             o.analysis.onnx_models.push_back(f);
             o.inputs.push_back(f);
           }
         },
         "The ONNX model the engine was built from (for node names, ops and graph order)")
      ->allow_extra_args(false)
      ->type_name("FILE");



}

namespace {
void (*g_large_log_hook)() = nullptr;
}  // namespace

void set_large_log_hook(void (*hook)()) { g_large_log_hook = hook; }

Capture load_inputs(const CommonOptions& o, bool analyse) {
  auto grammar = Grammar::load(o.grammar_dir.empty() ? installed_grammar_dir() : o.grammar_dir);
  ReadLimits limits;
  limits.on_large_log = g_large_log_hook;
  limits.max_input_bytes = parse_size(o.max_input_size);
  limits.threads = o.threads;
  try {
    refuse_output_over_input(o.output, o.inputs);
  } catch (const OutputError& e) {
    throw UsageError(e.what());
  }
  if (std::count(o.inputs.begin(), o.inputs.end(), std::string("-")) > 1)
    throw UsageError("'-' (stdin) is given more than once");
  Capture c = load_capture(o.inputs, *grammar, limits);
  // Members of a bundle directory are inputs too.
  std::vector<std::string> read;
  for (const auto& in : c.inputs) read.push_back(in.path);
  try {
    refuse_output_over_input(o.output, read);
  } catch (const OutputError& e) {
    throw UsageError(e.what());
  }
  check_shapes(c, o.analysis.shapes);
  if (analyse) {
    AnalysisOptions a = o.analysis;
    a.threads = o.threads;
    if (o.shows_selected_builds)
      for (const Build* b : select_builds(c, o.build)) a.shown_builds.push_back(b->id);
    analyze(c, a);
  }
  return c;
}

Capture& keep_until_exit(Capture&& c) {
  // Deliberately never destroyed (see common.h); a static pointer keeps it reachable.
  static auto* kept = new std::vector<std::unique_ptr<Capture>>;
  kept->push_back(std::make_unique<Capture>(std::move(c)));
  return *kept->back();
}

std::vector<const Build*> select_builds(const Capture& c, const std::string& spec) {
  std::vector<const Build*> out;
  if (spec == "all") {
    for (const auto& b : c.builds) out.push_back(&b);
  } else if (spec == "final") {
    if (const Build* b = c.final_build()) out.push_back(b);
  } else {
    size_t pos = 0;
    int n = -1;
    try {
      n = std::stoi(spec, &pos);
    } catch (const std::exception&) {
    }
    if (n < 0 || pos != spec.size())
      throw UsageError("--build: expected a build number, 'final' or 'all', not '" + spec + "'");
    if (size_t(n) >= c.builds.size())
      throw UsageError("--build " + spec + ": the inputs hold " + std::to_string(c.builds.size()) +
                       " build(s)");
    out.push_back(&c.builds[size_t(n)]);
  }
  return out;
}

Output::Output(const std::string& path) {
  try {
    file_ = std::make_unique<OutputFile>(path);
  } catch (const OutputError& e) {
    throw UsageError(e.what());
  }
}

Output::~Output() noexcept(false) {
  if (std::uncaught_exceptions() > 0) return;  // unwinding: the target is left as it was
  try {
    file_->commit();
  } catch (const OutputError& e) {
    throw UsageError(e.what());
  }
}

}  // namespace trtlens
