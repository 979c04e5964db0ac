// trtlens: wires the subcommands; everything else lives in the library.
#include <iostream>

#include "cli/common.h"
#include "ingest/grammar.h"
#include "io/input.h"
#include "render/escape.h"
#include "render/views.h"
#include "version.h"

int main(int argc, char** argv) {
  using namespace trtlens;
  CLI::App app{"trtlens: what TensorRT did to your model, read from its logs and exports"};
  app.set_version_flag("--version", std::string("trtlens ") + kVersion + " (" + kGitRevision + ")");
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, CommandRunner>> commands;
  register_summary(app, commands);
  register_layers(app, commands);
  register_json(app, commands);
  // memory (issue 3)
  register_memory(app, commands);

  // profile (issue 4)
  register_profile(app, commands);

  // provenance (issue 5)
  register_provenance(app, commands);

  // diff (issue 6)
  register_diff(app, commands);

  // dot, report (issue 7)
  register_dot(app, commands);
  register_report(app, commands);

  // findings (issue 8)
  register_findings(app, commands);
  register_explain(app, commands);


  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "trtlens: " << e.what() << "\n";
    return 2;
  }
  try {
    for (auto& [cmd, run] : commands)
      if (cmd->parsed()) return run();
  } catch (const InputError& e) {
    std::cerr << "trtlens: " << escape_terminal(e.what()) << '\n';
    return 2;
  } catch (const GrammarError& e) {
    std::cerr << "trtlens: grammar: " << escape_terminal(e.what()) << '\n';
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
