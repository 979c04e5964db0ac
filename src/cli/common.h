// What every subcommand shares: inputs, grammar, build selection, output.
#pragma once

#include <fstream>
#include <functional>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "analysis/analyze.h"
#include "io/output.h"
#include "model/capture.h"

namespace trtlens {

// Bad command-line use: exit 2 with the message.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CommonOptions {
  std::vector<std::string> inputs;
  std::string grammar_dir;
  std::string build = "final";
  std::string format = "table";
  std::string output;
  bool quiet = false;
  std::string max_input_size = "16G";
  unsigned threads = 0;  // 0: one per core
  AnalysisOptions analysis;
  // The command shows only the builds --build selects (beside what belongs to no build): the
  // others are not analysed (AnalysisOptions::shown_builds).
  bool shows_selected_builds = false;
};

// Adds INPUT..., --grammar-dir, --build, --quiet, --max-input-size and, when `formats` is not
// empty, --format (first entry is the default) and -o/--output.
// --threads (shared by diff, which lays out its own options).
void add_threads_option(CLI::App* cmd, CommonOptions& o);
void add_common_options(CLI::App* cmd, CommonOptions& o, const std::vector<std::string>& formats,
                        const std::string& default_build = "final");

// "512M", "4G", "100": --max-input-size and the like (throws UsageError).
uint64_t parse_size(const std::string& text);

// What the program does when a large build log is read in blocks (ReadLimits::on_large_log); main()
// sets it before a command runs.
void set_large_log_hook(void (*hook)());

// Reads the inputs into the model (throws InputError / GrammarError) and analyses it, unless
// `analyse` is false: for views that print only what the inputs say.
Capture load_inputs(const CommonOptions& o, bool analyse = true);

// `c`, moved to where it stays until the process exits: a command's model is never freed.
// Freeing a model of millions of small objects at exit is a tenth of a command's time (and
// undoes nothing the operating system would not). The memory stays reachable, not leaked.
Capture& keep_until_exit(Capture&& c);

// --build N|final|all.
std::vector<const Build*> select_builds(const Capture& c, const std::string& spec);

// stdout, or the -o file (written through a temporary file, every write checked). The
// destructor commits: when the command returns normally, a failed write or rename throws
// UsageError "PATH: write failed: reason" (exit 2); when it throws, the target is left as it was.
class Output {
 public:
  explicit Output(const std::string& path);
  ~Output() noexcept(false);
  std::ostream& stream() { return file_->stream(); }

 private:
  std::unique_ptr<OutputFile> file_;
};

// Each subcommand registers itself; `run` returns the exit code.
using CommandRunner = std::function<int()>;
void register_summary(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds);
void register_layers(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds);
void register_json(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds);
void register_memory(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds);

void register_profile(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds);

void register_provenance(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds);

void register_diff(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds);

void register_dot(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds);
void register_report(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds);
void register_export(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds);
void register_db(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds);

void register_findings(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds);
void register_completion(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds);

// explain: remarks, DLA placement, build tuner routes
void register_explain(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds);


}  // namespace trtlens
