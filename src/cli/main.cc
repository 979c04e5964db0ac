// trtlens: wires the subcommands; everything else lives in the library.
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string_view>

#include "cli/common.h"
#include "ingest/grammar.h"
#include "io/input.h"
#include "render/escape.h"
#include "render/text_table.h"
#include "render/views.h"
#include "store/store.h"
#include "version.h"

#ifdef TRTLENS_HAVE_MIMALLOC
#include <mimalloc.h>
#endif

namespace trtlens {
void register_compare(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds);
}

namespace {

using namespace trtlens;

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// The command the user most likely meant: a unique prefix, else the closest name within two
// edits. Empty when nothing is close.
std::string closest_command(const CLI::App& app, const std::string& word) {
  std::string best;
  size_t best_d = 3, prefixed = 0;
  std::string prefix_match;
  for (const CLI::App* sub : app.get_subcommands({})) {
    const std::string& name = sub->get_name();
    if (name.rfind(word, 0) == 0) ++prefixed, prefix_match = name;
    size_t d = edit_distance(word, name);
    if (d < best_d) best_d = d, best = name;
  }
  if (prefixed == 1) return prefix_match;
  return best;
}

CLI::App* find_command(CLI::App& app, const std::string& name) {
  for (CLI::App* sub : app.get_subcommands({}))
    if (sub->get_name() == name) return sub;
  return nullptr;
}

int unknown_command(const CLI::App& app, const std::string& word) {
  std::cerr << "trtlens: '" << escape_terminal(word) << "' is not a command";
  std::string guess = closest_command(app, word);
  if (!guess.empty()) std::cerr << "; did you mean '" << guess << "'?";
  std::cerr << " (trtlens help lists them)\n";
  return 2;
}

// Tables fit the terminal only when they go to one; COLUMNS overrides the measured width.
size_t terminal_width(bool to_stdout) {
  if (!to_stdout) return 0;
  if (const char* cols = std::getenv("COLUMNS")) {
    char* end = nullptr;
    long n = std::strtol(cols, &end, 10);
    if (end != cols && *end == '\0' && n > 0) return size_t(n);
  }
  winsize ws{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  return 0;
}

bool use_color(const std::string& mode, bool to_stdout) {
  if (mode == "always") return true;
  if (mode == "never" || !to_stdout) return false;
  // https://no-color.org: a non-empty NO_COLOR turns colour off unless asked for explicitly.
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  const char* term = std::getenv("TERM");
  if (term && std::string(term) == "dumb") return false;
  return isatty(STDOUT_FILENO);
}

#ifdef TRTLENS_HAVE_MIMALLOC
// Inputs of this size in all get their model laid out in 2 MiB pages, each committed when its
// segment is: a fault per 2 MiB instead of one per 4 KiB page. On a VM where a fault costs
// 8-20 us this is most of the time of a mid-size input: `diff` of two 10k-layer builds (9 MB)
// 0.33-0.45 s to 0.10-0.13 s, `summary` of one 0.21 to 0.06 s, 20,800 to 400 faults; a 0.6 MB
// log 29 to 19 ms, the report of a corpus engine's directory 106 to 70 ms. The price is RSS:
// mimalloc keeps large pages for the life of the process, so freed memory is not given back
// (that diff: 53 to 66 MiB), and a small input takes 3 MiB more. Below this size the faults
// saved no longer pay for zeroing whole 2 MiB pages (a 20 KB log ran alike either way).
constexpr off_t kLargePagesMinBytes = off_t{32} << 10;
constexpr long kArenaBytes = long{256} << 20;

bool user_chose(char** envp, std::string_view option) {
  for (char** e = envp; e && *e; ++e)
    if (std::strncmp(*e, option.data(), option.size()) == 0) return true;
  return false;
}

// mimalloc takes large pages only when asked before it initialises, which is before main and the
// libraries' constructors: an executable's preinit functions run first. So the choice is made
// here, from the sizes of the files the command line names (and of stdin), before anything is
// read. MIMALLOC_LARGE_OS_PAGES, MIMALLOC_EAGER_COMMIT_DELAY and MIMALLOC_RESERVE_OS_MEMORY in
// the environment are the user's choice and stay.
void choose_page_size(int argc, char** argv, char** envp) {
  // getenv() does not work yet: libc sets up `environ` after the preinit functions.
  if (user_chose(envp, "MIMALLOC_LARGE_OS_PAGES=")) return;
  off_t total = 0;
  for (int i = 1; i < argc; ++i) {
    struct stat st {};
    const int got = std::strcmp(argv[i], "-") == 0 ? ::fstat(0, &st) : ::stat(argv[i], &st);
    if (got != 0) continue;
    if (S_ISREG(st.st_mode)) total += st.st_size;
    // A capture's or an engine's directory, and a log piped in, count as large: a directory's
    // files are not added up here (that would mean reading it before the allocator may be
    // used) and a pipe's size is not known before it is read; either is rarely small.
    if (S_ISDIR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
      total += kLargePagesMinBytes;
  }
  if (total < kLargePagesMinBytes) return;
  mi_option_set(mi_option_large_os_pages, 1);
  // By default a thread's first segment is committed as it is used, 4 KiB at a time, which
  // splits its 2 MiB pages: that diff kept 8,800 of its faults and took 0.27 s.
  if (!user_chose(envp, "MIMALLOC_EAGER_COMMIT_DELAY="))
    mi_option_set(mi_option_eager_commit_delay, 0);
  // A block larger than a segment (a list of 50k layers) is mapped on its own, in 2 MiB pages
  // only when its size happens to be a multiple of them; from an arena reserved up front it
  // always is. Address space only: what is not touched takes no memory. (`diff` of two
  // 50k-layer builds 12,700 to 440 faults, 1.24 to 0.80 s; 2 GiB arenas were not taken.)
  if (!user_chose(envp, "MIMALLOC_RESERVE_OS_MEMORY="))
    mi_option_set(mi_option_reserve_os_memory, kArenaBytes >> 10);
}
[[gnu::section(".preinit_array"),
  gnu::used]] void (*const g_choose_page_size)(int, char**, char**) = choose_page_size;
#endif

}  // namespace

int main(int argc, char** argv) {
#ifdef TRTLENS_HAVE_MIMALLOC
  // Freed memory goes back to the system at once rather than after a delay, so peak RSS
  // follows what is live (a log's long-line buffers, a JSON file's text once it is read).
  mi_option_set(mi_option_decommit_delay, 0);
  // Except once a large build log is read in blocks: memory freed while its model is built is given
  // back a millisecond later, by when most of it was taken again (a 1.1 GB log: 35,000 to 30,800
  // page faults, 0.98 of the CPU). 10 ms saved more, but a 50 MB line then peaked at 60-67 MiB
  // instead of 52 on a loaded machine: its 8 MiB line buffers waited to go back.
  set_large_log_hook([] { mi_option_set(mi_option_decommit_delay, 1); });
#endif
  CLI::App app{"trtlens: what TensorRT did to your model, read from its logs and exports",
               "trtlens"};
  app.set_version_flag("-V,--version", "trtlens " + version_and_revision());
  app.require_subcommand(1);
  // --color and --wide may stand anywhere, before or after the command.
  app.fallthrough();
  std::string color = "auto";
  bool wide = false;
  app.add_option("--color", color,
                 "Colour severities and FAIL: auto (on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->default_val("auto");
  app.add_flag("--wide", wide, "Keep long names whole instead of fitting tables to the terminal");
  app.footer(
      "Run 'trtlens help COMMAND' for a command's options. Exit status: 0 success, 1 the "
      "command's own 'found problems' outcome, 2 usage or input error.");
  std::vector<std::pair<CLI::App*, CommandRunner>> commands;
  register_summary(app, commands);
  register_layers(app, commands);
  register_json(app, commands);
  register_memory(app, commands);
  register_profile(app, commands);
  register_provenance(app, commands);
  register_diff(app, commands);
  register_compare(app, commands);
  register_dot(app, commands);
  register_report(app, commands);
  register_export(app, commands);
  register_findings(app, commands);
  register_db(app, commands);
  register_completion(app, commands);
  register_explain(app, commands);

  // Before CLI11 sees the arguments: `help [COMMAND]`, no arguments at all, and a mistyped
  // command (which CLI11 would only answer with "A subcommand is required").
  if (argc < 2) {
    std::cerr << app.help();
    return 2;
  }
  const std::string first = argv[1];
  if (first == "help") {
    if (argc == 2) {
      std::cout << app.help();
      return 0;
    }
    CLI::App* sub = find_command(app, argv[2]);
    if (!sub) return unknown_command(app, argv[2]);
    std::cout << sub->help("trtlens");
    return 0;
  }
  if (!first.empty() && first[0] != '-' && !find_command(app, first))
    return unknown_command(app, first);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::RequiredError& e) {
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (!sub->parsed()) continue;
      const CLI::Option* in = sub->get_option_no_throw("INPUT");
      if (in && in->count() == 0) {
        std::cerr << "trtlens " << sub->get_name()
                  << ": no INPUT given: name the files of one capture (a trtexec log, its "
                     "--exportLayerInfo/--exportProfile/--exportTimes JSON, a capture "
                     "directory, or - for stdin); see 'trtlens help "
                  << sub->get_name() << "'\n";
        return 2;
      }
    }
    std::cerr << "trtlens: " << e.what() << "\n";
    return 2;
  } catch (const CLI::ParseError& e) {
    std::cerr << "trtlens: " << e.what() << "\n";
    return 2;
  }

  bool to_stdout = true;
  for (auto& [cmd, run] : commands) {
    if (!cmd->parsed()) continue;
    const CLI::Option* out = cmd->get_option_no_throw("--output");
    if (out && out->count() > 0 && out->as<std::string>() != "-") to_stdout = false;
  }
  TerminalStyle style;
  style.width = terminal_width(to_stdout);
  style.wide = wide;
  style.color = use_color(color, to_stdout);
  set_terminal_style(style);

  try {
    for (auto& [cmd, run] : commands)
      if (cmd->parsed()) return run();
  } catch (const InputError& e) {
    std::cerr << "trtlens: " << escape_terminal(e.what()) << '\n';
    return 2;
  } catch (const GrammarError& e) {
    std::cerr << "trtlens: grammar: " << escape_terminal(e.what()) << '\n';
    return 2;
  } catch (const StoreError& e) {
    std::cerr << "trtlens: " << escape_terminal(e.what()) << '\n';
    return 2;
  } catch (const UsageError& e) {
    std::cerr << "trtlens: " << escape_terminal(e.what()) << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "trtlens: internal error: " << escape_terminal(e.what()) << '\n';
    return 3;
  }
  return 2;
}
