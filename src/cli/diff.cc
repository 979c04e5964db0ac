// trtlens diff: two captures, aligned layer by layer, with CI gates.
#include "analysis/diff.h"

#include <sys/stat.h>

#include <cstdint>
#include <future>
#include <iostream>

#include "cli/common.h"
#include "render/diff.h"
#include "render/escape.h"
#include "render/json.h"

namespace trtlens {
namespace {

struct DiffOptions {
  CommonOptions common;  // grammar, build, format, output, analysis inputs
  std::vector<std::string> base, head, positional, fail_on;
};

const Build& one_build(const Capture& c, const std::string& spec, const char* side) {
  if (spec == "all") throw UsageError("diff: --build all is not allowed; pick N or final");
  auto builds = select_builds(c, spec);
  if (builds.empty())
    throw UsageError(std::string("diff: the ") + side + " inputs hold no layer listing");
  return *builds.front();
}

constexpr uint64_t kTwoThreadsBytes = uint64_t{32} << 20;

// The sizes of the inputs that are files; a directory or stdin counts as large.
uint64_t input_bytes(const std::vector<std::string>& base, const std::vector<std::string>& head) {
  uint64_t total = 0;
  for (const auto* side : {&base, &head})
    for (const auto& path : *side) {
      struct stat st {};
      if (path == "-" || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        return kTwoThreadsBytes;
      total += uint64_t(st.st_size);
    }
  return total;
}

int run_diff(const DiffOptions& o) {
  std::vector<std::string> base = o.base, head = o.head;
  if (!o.positional.empty()) {
    if (!base.empty() || !head.empty() || o.positional.size() != 2)
      throw UsageError("diff: give either two inputs (diff A B) or --base FILE... --head FILE...");
    base = {o.positional[0]};
    head = {o.positional[1]};
  }
  if (base.empty() || head.empty())
    throw UsageError("diff: give either two inputs (diff A B) or --base FILE... --head FILE...");
  std::vector<GateRule> rules;
  for (const auto& text : o.fail_on) {
    try {
      rules.push_back(parse_gate_rule(text));
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  CommonOptions bo = o.common, ho = o.common;
  bo.inputs = base;
  ho.inputs = head;
  // Only the HTML page shows findings and remarks.
  bo.analysis.lint = ho.analysis.lint = o.common.format == "html";
  // Large sides are read on two threads, small ones one after the other. Each thread's model
  // lands in its own heap, and under 2 MiB pages the unused tail of a heap is RSS too: two
  // 10k-layer builds (9 MB) took 62 MiB on two threads and 56 MiB on one, in the same 0.13-0.15 s;
  // two 50k-layer builds (45 MB) 0.84-0.87 s on two threads and 1.00-1.03 s on one.
  const bool two_threads = o.common.threads != 1 && input_bytes(base, head) >= kTwoThreadsBytes;
  std::future<Capture> head_future;
  if (two_threads) head_future = std::async(std::launch::async, [&ho] { return load_inputs(ho); });
  Capture& bc = keep_until_exit(load_inputs(bo));
  Capture& hc = keep_until_exit(two_threads ? head_future.get() : load_inputs(ho));
  DiffResult d = diff_builds(bc, one_build(bc, o.common.build, "base"), hc,
                             one_build(hc, o.common.build, "head"));
  auto gates = evaluate_gates(d, rules);

  Output out(o.common.output);
  if (o.common.format == "json") {
    write_diff_json(d, gates, out.stream());
  } else if (o.common.format == "html") {
    ReportOptions ro;
    ro.title = "trtlens diff";
    DiffHeadline headline = diff_html_headline(d, gates);
    write_html_diff(bc, *d.base, hc, *d.head, diff_html_rows(d), ro, out.stream(),
                    d.base_side.label, d.head_side.label, &headline);
    for (const auto& note : ro.notes) std::cerr << "trtlens: " << escape_terminal(note) << '\n';
  } else if (o.common.format == "table")
    write_diff_terminal(d, gates, out.stream());
  else if (o.common.format == "md")
    write_diff_markdown(d, gates, out.stream());
  else
    write_table(diff_csv_table(d, gates), "csv", out.stream());

  int rc = 0;
  for (const auto& g : gates) {
    if (!g.evaluated) {
      std::cerr << "trtlens: --fail-on " << escape_terminal(g.rule) << ": "
                << escape_terminal(g.message) << '\n';
      rc = 2;
      continue;
    }
    if (!g.warning.empty() && !o.common.quiet)
      std::cerr << "trtlens: warning: --fail-on " << escape_terminal(g.rule) << ": "
                << escape_terminal(g.warning) << '\n';
    if (g.breached) {
      if (o.common.format != "table")
        std::cerr << "trtlens: --fail-on " << escape_terminal(g.rule)
                  << " breached: " << escape_terminal(g.message) << '\n';
      if (rc == 0) rc = 1;
    }
  }
  return rc;
}

}  // namespace

void register_diff(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds) {
  auto o = std::make_shared<DiffOptions>();
  CLI::App* cmd = app.add_subcommand("diff",
                                     "Compare two builds layer by layer (aligned by weight names, "
                                     "name, ONNX node, then signature)");
  cmd->add_option("inputs", o->positional, "Short form: BASE HEAD (one file or bundle each)");
  cmd->add_option("--base", o->base, "Files of the base capture")->expected(1, -1);
  cmd->add_option("--head", o->head, "Files of the head capture")->expected(1, -1);
  cmd->add_option("--fail-on", o->fail_on,
                  "Exit 1 when breached: latency:+N%, layer-time:+N%, reformats:+N, "
                  "precision-drop, new-fp32 (repeatable, or comma-separated)")
      ->delimiter(',')
      ->allow_extra_args(false);
  CommonOptions& c = o->common;
  cmd->add_option("--grammar-dir", c.grammar_dir, "Directory of *.re2 grammar files")
      ->envname("TRTLENS_GRAMMAR_DIR");
  cmd->add_option("--build", c.build, "Which build of each side: N or final")->default_val("final");
  cmd->add_flag("-q,--quiet", c.quiet, "No diagnostics on stderr");
  cmd->add_option("--max-input-size", c.max_input_size, "Refuse larger inputs (e.g. 512M, 4G)")
      ->default_val("16G");
  add_threads_option(cmd, c);
  cmd->add_option("--format", c.format, "Output format")
      ->check(CLI::IsMember({"table", "json", "md", "csv", "html"}))
      ->default_val("table");
  cmd->add_option("-o,--output", c.output, "Write to this file instead of stdout");
  cmd->add_option("--shape", c.analysis.shapes, "Shape of a dynamic input, name=1x3x224x224")
      ->allow_extra_args(false);
  cmds.emplace_back(cmd, [o] { return run_diff(*o); });
}

}  // namespace trtlens
