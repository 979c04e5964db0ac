// trtlens db add | query | trend: the store of many captures (src/store).
#include <atomic>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <thread>

#include "cli/common.h"
#include "ingest/capture_set.h"
#include "ingest/grammar.h"
#include "ingest/load.h"
#include "render/escape.h"
#include "render/trend.h"
#include "store/store.h"
#include "store/trend.h"

namespace trtlens {
namespace {

struct DbOptions {
  std::string db;
  std::vector<std::string> inputs;
  std::vector<std::string> labels;
  std::string grammar_dir, max_input_size = "16G";
  unsigned jobs = 0;
  bool quiet = false;
  std::string sql, format = "table", output;
  std::string model, target, metric = "latency", fail_on;
  double jump = 10;
};

// One capture as a worker leaves it for the writer.
struct Slot {
  enum class State { Pending, Ready, Skipped, Failed } state = State::Pending;
  std::string hash, error;
  Capture capture;
};

Labels parse_labels(const std::vector<std::string>& given) {
  Labels out;
  for (const auto& kv : given) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError("--label: expected KEY=VALUE, not '" + kv + "'");
    out[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return out;
}

int run_add(const DbOptions& o) {
  const Labels given = parse_labels(o.labels);
  ReadLimits limits;
  limits.max_input_bytes = parse_size(o.max_input_size);
  limits.threads = 1;  // parallel across captures instead
  auto grammar = Grammar::load(o.grammar_dir);
  std::vector<CaptureInputs> groups = group_captures(o.inputs, limits);

  Store store(o.db, Store::Mode::ReadWrite);
  const std::unordered_set<std::string> stored = store.content_hashes();

  std::vector<Slot> slots(groups.size());
  std::mutex m;
  std::condition_variable cv;
  std::atomic<size_t> next{0};
  size_t window_end = 0;  // workers stay within a window ahead of the writer (memory bound)
  const unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  const size_t window = size_t(jobs) * 4;
  window_end = window;

  auto work = [&] {
    for (;;) {
      size_t i = next.fetch_add(1);
      if (i >= groups.size()) return;
      {
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return i < window_end; });
      }
      Slot s;
      try {
        s.hash = sha256_of_files(groups[i].members);
        if (stored.count(s.hash)) {
          s.state = Slot::State::Skipped;
        } else {
          s.capture = load_capture(groups[i].paths, *grammar, limits);
          AnalysisOptions one_thread;
          one_thread.threads = 1;  // parallel across captures instead
          analyze(s.capture, one_thread);
          s.state = Slot::State::Ready;
        }
      } catch (const InputError& e) {
        s.state = Slot::State::Failed;
        s.error = e.what();
      } catch (const std::exception& e) {
        s.state = Slot::State::Failed;
        s.error = groups[i].shown + ": " + e.what();
      }
      std::lock_guard lock(m);
      slots[i] = std::move(s);
      cv.notify_all();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < jobs; ++t) pool.emplace_back(work);

  Output out("");  // stdout, every write checked
  size_t added = 0, skipped = 0, failed = 0;
  std::unordered_set<std::string> seen;  // the same content given twice in one call
  for (size_t i = 0; i < slots.size(); ++i) {
    Slot s;
    {
      std::unique_lock lock(m);
      cv.wait(lock, [&] { return slots[i].state != Slot::State::Pending; });
      s = std::move(slots[i]);
      slots[i] = Slot{};
      slots[i].state = Slot::State::Skipped;
      window_end = i + 1 + window;
      cv.notify_all();
    }
    const std::string& shown = groups[i].shown;
    if (s.state == Slot::State::Failed) {
      ++failed;
      std::cerr << "trtlens: " << escape_terminal(s.error) << '\n';
      continue;
    }
    if (s.state == Slot::State::Skipped || !seen.insert(s.hash).second) {
      ++skipped;
      if (!o.quiet) std::cerr << "skipped " << escape_terminal(shown) << ": already stored\n";
      continue;
    }
    Labels labels = derive_labels(s.capture);
    for (const auto& [k, v] : given) labels[k] = v;
    std::optional<int64_t> id;
    try {
      id = store.add(s.capture, s.hash, shown, labels);
    } catch (const sql::Error& e) {
      for (auto& t : pool) t.join();
      throw StoreError(o.db + ": " + e.what() + " (while adding " + shown + "; not stored)");
    }
    if (!id) {
      ++skipped;
      if (!o.quiet) std::cerr << "skipped " << escape_terminal(shown) << ": already stored\n";
      continue;
    }
    ++added;
    if (!o.quiet) {
      auto get = [&](const char* k) {
        auto it = labels.find(k);
        return it == labels.end() ? std::string("?") : it->second;
      };
      out.stream() << "added capture " << *id << ": " << escape_terminal(shown) << " (model "
                << escape_terminal(get("model")) << ", " << s.capture.builds.size()
                << " build(s))\n";
    }
  }
  for (auto& t : pool) t.join();
  out.stream() << "db " << escape_terminal(o.db) << ": " << added << " added, " << skipped
            << " already stored, " << failed << " failed\n";
  return failed ? 2 : 0;
}

int run_query(const DbOptions& o) {
  Store store(o.db, Store::Mode::ReadOnly);
  QueryResult r = store.query(o.sql);
  Output out(o.output);
  write_query_result(r, o.format, out.stream());
  return 0;
}

int run_trend(const DbOptions& o) {
  auto metric = parse_trend_metric(o.metric);
  if (!metric) throw UsageError("--metric: unknown metric '" + o.metric + "'");
  std::vector<TrendGate> gates;
  if (!o.fail_on.empty()) {
    try {
      gates = parse_trend_gates(o.fail_on);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--fail-on: ") + e.what());
    }
  }
  Store store(o.db, Store::Mode::ReadOnly);
  Trend t = compute_trend(store, o.model, o.target, *metric, o.jump);
  if (t.points.empty())
    throw UsageError("db trend: no stored build of model '" + o.model + "'" +
                     (o.target.empty() ? "" : " on target '" + o.target + "'"));
  evaluate_gates(store, o.model, o.target, gates);
  Output out(o.output);
  write_trend(t, gates, o.format, out.stream());
  bool failed = false;
  for (const auto& g : gates) {
    if (g.failed) failed = true;
    if (g.failed) std::cerr << "trtlens: gate failed: " << escape_terminal(g.text) << '\n';
    if (!g.evaluated)  // a gate that cannot be checked is said, not passed in silence
      std::cerr << "trtlens: warning: gate " << escape_terminal(g.text)
                << " not evaluated: " << escape_terminal(g.note) << '\n';
  }
  return failed ? 1 : 0;
}

}  // namespace

void register_db(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds) {
  auto o = std::make_shared<DbOptions>();
  CLI::App* db = app.add_subcommand("db", "A store of many captures: add, query, trend");
  db->require_subcommand(1);

  CLI::App* add = db->add_subcommand("add", "Store captures (bundles, archives, loose files)");
  add->add_option("db", o->db, "The store (an SQLite file; created when missing)")->required();
  add->add_option("INPUT", o->inputs,
                  "Capture bundles, directories of bundles, archives, or the files of one capture")
      ->required();
  add->add_option("--label", o->labels, "KEY=VALUE label (model, target, trt_version, date, git, ...)");
  add->add_option("--jobs", o->jobs, "Captures read in parallel (0 = one per core)")
      ->check(CLI::Range(0, 256));
  add->add_option("--grammar-dir", o->grammar_dir, "Directory of *.re2 grammar files")
      ->envname("TRTLENS_GRAMMAR_DIR");
  add->add_option("--max-input-size", o->max_input_size, "Refuse inputs larger than this");
  add->add_flag("-q,--quiet", o->quiet, "Print only the final count");
  cmds.emplace_back(add, [o] { return run_add(*o); });

  CLI::App* query = db->add_subcommand("query", "Run one read-only SQL statement");
  query->add_option("db", o->db, "The store")->required();
  query->add_option("sql", o->sql, "One SELECT statement")->required();
  query->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"table", "csv", "json", "md"}));
  query->add_option("-o,--output", o->output, "Write to this file instead of stdout");
  cmds.emplace_back(query, [o] { return run_query(*o); });

  CLI::App* trend = db->add_subcommand("trend", "A metric of one model over its stored builds");
  trend->add_option("db", o->db, "The store")->required();
  trend->add_option("--model", o->model, "The model label")->required();
  trend->add_option("--target", o->target, "The target label (default: every target)");
  trend->add_option("--metric", o->metric,
                    "latency, layer-time, reformats, weights, peak-activation or precision")
      ->check(CLI::IsMember(
          {"latency", "layer-time", "reformats", "weights", "peak-activation", "precision"}));
  trend->add_option("--jump", o->jump,
                    "List the layer changes where the metric moves by at least this many percent")
      ->check(CLI::Range(0.0, 1e9));
  trend->add_option("--fail-on", o->fail_on,
                    "Gates against the previous stored build, e.g. latency:+5%,reformats:+1");
  trend->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"table", "csv", "json", "md", "svg", "html"}));
  trend->add_option("-o,--output", o->output, "Write to this file instead of stdout");
  cmds.emplace_back(trend, [o] { return run_trend(*o); });
}

}  // namespace trtlens
