#include "store/store.h"

#include <sqlite3.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "store/schema.h"

namespace trtlens {
namespace {

std::string utc_now() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string find_value(const KeyValues& kv, const std::string& key) {
  for (const auto& [k, v] : kv)
    if (k == key) return v;
  return "";
}

// "resnet-qat.onnx.engine.graph.json" -> "resnet-qat"; "/a/b/model.onnx" -> "model".
std::string stem_of(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  size_t dot = name.find('.');
  return dot == 0 || dot == std::string::npos ? name : name.substr(0, dot);
}

std::optional<std::string> label(const Labels& l, const char* key) {
  auto it = l.find(key);
  if (it == l.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

std::string dims_json(const Tensor& t) {
  return t.has_dims ? nlohmann::json(t.dims).dump() : std::string();
}

}  // namespace

Labels derive_labels(const Capture& c) {
  Labels l;
  for (const auto& [k, v] : c.labels)
    if (!v.empty()) l[k] = v;
  if (!l.count("model")) {
    for (const auto& s : c.onnx.sources)
      if (s.rfind("onnx-file:", 0) == 0) {
        l["model"] = stem_of(s.substr(10));
        break;
      }
  }
  if (!l.count("model") && !c.inputs.empty()) l["model"] = stem_of(c.inputs.front().path);
  if (!l.count("model")) {
    // keep the label present so the column is never a silent NULL
  }
  for (const auto& r : c.runs) {
    if (l.count("target")) break;
    std::string d = find_value(r.device, "Selected Device");
    if (d.empty()) d = find_value(r.device, "Device");
    if (!d.empty()) l["target"] = d;
  }
  if (!l.count("trt_version")) {
    for (const auto& b : c.builds)
      if (!b.trt_version.empty()) {
        l["trt_version"] = b.trt_version;
        break;
      }
  }
  if (!l.count("trt_version"))
    for (const auto& r : c.runs)
      if (!r.trt_version.empty()) {
        l["trt_version"] = r.trt_version;
        break;
      }
  return l;
}

Store::Store(const std::string& path, Mode mode) : path_(path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (mode == Mode::ReadOnly && !fs::exists(path, ec))
    throw StoreError(path + ": no such store (create it with `trtlens db add`)");
  if (fs::is_directory(path, ec)) throw StoreError(path + ": is a directory, not a store");
  try {
    db_ = std::make_unique<sql::Db>(
        path, mode == Mode::ReadOnly ? sql::Db::Mode::ReadOnly : sql::Db::Mode::ReadWriteCreate);
    check_or_create(mode);
  } catch (const sql::Error& e) {
    throw StoreError(path + ": " + e.what());
  }
}

void Store::check_or_create(Mode mode) {
  // The first read tells a database from any other file ("file is not a database").
  auto scalar = [&](const char* sql) {
    sql::Stmt s(*db_, sql);  // finalised at once: an open statement would hold a read lock
    s.step();
    return s.int64(0);
  };
  // A writer reads and creates the schema inside one write transaction, so two `db add`
  // starting on a new file at once never see each other's half-made store; it turns on WAL only
  // once the file is known to be a store (never on another program's database).
  std::optional<sql::Transaction> t;
  if (mode == Mode::ReadWrite) t.emplace(*db_);
  const int64_t app_id = scalar("PRAGMA application_id");
  const int64_t version = scalar("PRAGMA user_version");
  const int64_t objects = scalar("SELECT count(*) FROM sqlite_schema");

  if (app_id == kStoreApplicationId) {
    if (version > kStoreSchemaVersion)
      throw StoreError(path_ + ": store schema " + std::to_string(version) +
                       " is newer than this trtlens reads (" +
                       std::to_string(kStoreSchemaVersion) + "); update trtlens");
    if (version < 1) throw StoreError(path_ + ": damaged store (no schema version)");
  } else if (objects == 0 && app_id == 0) {
    if (mode == Mode::ReadOnly) throw StoreError(path_ + ": empty file, not a trtlens store");
    db_->exec(kStoreSchema);
    db_->exec("PRAGMA application_id = " + std::to_string(kStoreApplicationId));
    db_->exec("PRAGMA user_version = " + std::to_string(kStoreSchemaVersion));
  } else {
    throw StoreError(path_ + ": an SQLite database of another program, not a trtlens store");
  }
  if (t) t->commit();
  if (mode == Mode::ReadWrite) db_->exec_upgrading("PRAGMA journal_mode = WAL");
  db_->exec("PRAGMA synchronous = NORMAL");
}

std::unordered_set<std::string> Store::content_hashes() {
  std::unordered_set<std::string> out;
  sql::Stmt s(*db_, "SELECT content_hash FROM captures");
  while (s.step()) out.insert(s.text(0));
  return out;
}

std::optional<int64_t> Store::add(const Capture& c, const std::string& content_hash,
                                  const std::string& source, const Labels& labels) {
  sql::Db& db = *db_;
  sql::Transaction tx(db);
  {
    sql::Stmt seen(db, "SELECT 1 FROM captures WHERE content_hash = ?");
    seen.bind(1, content_hash);
    if (seen.step()) return std::nullopt;
  }
  sql::Stmt cap(db,
                "INSERT INTO captures (content_hash, added_at, source, model, target, "
                "trt_version, build_date, git_revision) VALUES (?,?,?,?,?,?,?,?)");
  cap.bind(1, content_hash).bind(2, utc_now()).bind(3, source);
  auto text_or_null = [&](int i, const char* key) {
    if (auto v = label(labels, key))
      cap.bind(i, *v);
    else
      cap.bind(i, std::nullopt);
  };
  text_or_null(4, "model");
  text_or_null(5, "target");
  text_or_null(6, "trt_version");
  text_or_null(7, "date");
  text_or_null(8, "git");
  cap.run();
  const int64_t capture_id = db.last_insert_id();

  sql::Stmt lab(db, "INSERT INTO labels (capture_id, key, value) VALUES (?,?,?)");
  for (const auto& [k, v] : labels) lab.bind(1, capture_id).bind(2, k).bind(3, v).run();

  sql::Stmt in(db,
               "INSERT INTO inputs (capture_id, path, kind, lines, unrecognized) VALUES (?,?,?,?,?)");
  for (const auto& f : c.inputs)
    in.bind(1, capture_id)
        .bind(2, f.path)
        .bind(3, f.kind)
        .bind(4, int64_t(f.lines))
        .bind(5, int64_t(f.unrecognized))
        .run();

  sql::Stmt bs(db,
               "INSERT INTO builds (capture_id, build_index, final, kind, source_path, "
               "source_line, trt_version, layers, running_layers, elided_layers, "
               "reformat_layers, reformat_bytes, reformat_ms, weights_bytes, "
               "activation_io_bytes, sum_layer_ms, peak_activation_bytes, latency_source, "
               "latency_median_ms, latency_p99_ms, latency_mean_ms, latency_cv_percent, "
               "latency_queries) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  sql::Stmt ls(db,
               "INSERT INTO layers (build_id, idx, name, type, role, tactic, precision, "
               "average_ms, median_ms, time_percent, input_bytes, weight_bytes, output_bytes, "
               "footprint_bytes, host_persistent, device_persistent, scratch) "
               "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  sql::Stmt ts(db,
               "INSERT INTO tensors (build_id, layer_idx, io, pos, name, dtype, dims, format) "
               "VALUES (?,?,?,?,?,?,?,?)");
  sql::Stmt ns(db,
               "INSERT OR IGNORE INTO onnx_nodes (build_id, layer_idx, node, op_type) "
               "VALUES (?,?,?,?)");
  sql::Stmt ps(db,
               "INSERT INTO profile_rows (build_id, pos, name, total_ms, average_ms, median_ms, "
               "percentage) VALUES (?,?,?,?,?,?,?)");
  sql::Stmt ms(db, "INSERT OR REPLACE INTO memory (build_id, figure, value) VALUES (?,?,?)");
  auto opt_size = [](const std::optional<size_t>& v) -> std::optional<uint64_t> {
    return v ? std::optional<uint64_t>(*v) : std::nullopt;
  };
  auto nonempty = [](const std::string& s) -> std::optional<std::string> {
    return s.empty() ? std::nullopt : std::optional<std::string>(s);
  };
  auto bind_text = [](sql::Stmt& s, int i, const std::optional<std::string>& v) {
    if (v)
      s.bind(i, *v);
    else
      s.bind(i, std::nullopt);
  };

  std::map<int, int64_t> build_ids;
  for (const auto& b : c.builds) {
    const BuildTotals& t = b.totals;
    const Latency& lat = b.latency;
    bs.bind(1, capture_id)
        .bind(2, int64_t(b.id))
        .bind(3, int64_t(b.final ? 1 : 0))
        .bind(4, to_string(b.kind))
        .bind(5, b.source.path.str())
        .bind(6, int64_t(b.source.line));
    bind_text(bs, 7, nonempty(b.trt_version));
    bs.bind(8, int64_t(b.layers.size()))
        .bind(9, opt_size(t.running_layers))
        .bind(10, opt_size(t.elided_layers))
        .bind(11, opt_size(t.reformat_layers))
        .bind(12, t.reformat_bytes)
        .bind(13, t.reformat_ms)
        .bind(14, t.weights_bytes)
        .bind(15, t.activation_io_bytes)
        .bind(16, t.sum_layer_ms)
        .bind(17, t.peak_activation_bytes);
    if (lat.source == Latency::Source::None) {
      for (int i = 18; i <= 23; ++i) bs.bind(i, std::nullopt);
    } else {
      bs.bind(18, to_string(lat.source))
          .bind(19, lat.median_ms)
          .bind(20, lat.p99_ms)
          .bind(21, lat.mean_ms)
          .bind(22, lat.cv_percent)
          .bind(23, uint64_t(lat.queries));
    }
    bs.run();
    const int64_t build_id = db.last_insert_id();
    build_ids[b.id] = build_id;

    for (size_t i = 0; i < b.layers.size(); ++i) {
      const Layer& l = b.layers[i];
      const LayerMemory& m = l.memory;
      ls.bind(1, build_id).bind(2, uint64_t(i)).bind(3, l.name);
      bind_text(ls, 4, nonempty(l.type));
      ls.bind(5, to_string(l.role));
      bind_text(ls, 6, l.tactic);
      bind_text(ls, 7, l.outputs.empty() ? std::nullopt : nonempty(l.outputs.front().dtype));
      ls.bind(8, l.time.average_ms)
          .bind(9, l.time.median_ms)
          .bind(10, l.time.percentage)
          .bind(11, m.input_bytes)
          .bind(12, m.weight_bytes)
          .bind(13, m.output_bytes)
          .bind(14, m.total_bytes)
          .bind(15, m.host_persistent)
          .bind(16, m.device_persistent)
          .bind(17, m.scratch)
          .run();
      auto tensors = [&](const std::vector<Tensor>& v, const char* io) {
        for (size_t p = 0; p < v.size(); ++p) {
          const Tensor& tn = v[p];
          ts.bind(1, build_id).bind(2, uint64_t(i)).bind(3, io).bind(4, uint64_t(p)).bind(5, tn.name);
          bind_text(ts, 6, nonempty(tn.dtype));
          bind_text(ts, 7, nonempty(dims_json(tn)));
          bind_text(ts, 8, nonempty(tn.format));
          ts.run();
        }
      };
      tensors(l.inputs, "in");
      tensors(l.outputs, "out");
      for (const auto& node : l.onnx_nodes) {
        ns.bind(1, build_id).bind(2, uint64_t(i)).bind(3, node);
        const OnnxNode* n = c.onnx.find(node);
        bind_text(ns, 4, n ? nonempty(n->op) : std::nullopt);
        ns.run();
      }
    }
    for (size_t i = 0; i < b.profile.rows.size(); ++i) {
      const ProfileRow& r = b.profile.rows[i];
      ps.bind(1, build_id)
          .bind(2, uint64_t(i))
          .bind(3, r.name)
          .bind(4, r.total_ms)
          .bind(5, r.average_ms)
          .bind(6, r.median_ms)
          .bind(7, r.percentage)
          .run();
    }
    const BuildMemory& bm = b.memory;
    auto figure = [&](const char* name, std::optional<double> v) {
      if (v) ms.bind(1, build_id).bind(2, name).bind(3, *v).run();
    };
    auto ufig = [&](const char* name, const std::optional<uint64_t>& v) {
      figure(name, v ? std::optional<double>(double(*v)) : std::nullopt);
    };
    ufig("total_host_persistent", bm.total_host_persistent);
    ufig("total_device_persistent", bm.total_device_persistent);
    ufig("total_scratch", bm.total_scratch);
    ufig("total_activation", bm.total_activation);
    ufig("total_weights", bm.total_weights);
    figure("engine_size_mib", bm.engine_size_mib);
    figure("context_memory_mib", bm.context_memory_mib);
    figure("peak_cpu_mib", bm.peak_cpu_mib);
    figure("peak_gpu_mib", bm.peak_gpu_mib);
    figure("generation_seconds", bm.generation_seconds);
    ufig("allocated_activation", bm.allocated_activation);
    ufig("peak_live_bytes", bm.peak_live_bytes);
  }

  sql::Stmt rs(db,
               "INSERT INTO runs (capture_id, run_index, path, line, status, trt_version, "
               "command_line, device, queries, latency_median_ms, latency_p99_ms, "
               "latency_mean_ms, latency_cv_percent, throughput_qps) "
               "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  sql::Stmt fs(db,
               "INSERT INTO run_figures (run_id, metric, stat, value, unit) VALUES (?,?,?,?,?)");
  for (size_t i = 0; i < c.runs.size(); ++i) {
    const RunInfo& r = c.runs[i];
    rs.bind(1, capture_id).bind(2, uint64_t(i)).bind(3, r.path).bind(4, int64_t(r.line));
    rs.bind(5, to_string(r.status));
    bind_text(rs, 6, nonempty(r.trt_version));
    bind_text(rs, 7, nonempty(r.command_line));
    std::string dev = find_value(r.device, "Selected Device");
    bind_text(rs, 8, nonempty(dev.empty() ? find_value(r.device, "Device") : dev));
    if (r.times && r.times->latency.count) {
      const Stats& s = r.times->latency;
      rs.bind(9, uint64_t(s.count))
          .bind(10, s.median)
          .bind(11, s.p99)
          .bind(12, s.mean)
          .bind(13, s.cv_percent)
          .bind(14, r.times->throughput_qps);
    } else {
      for (int k = 9; k <= 14; ++k) rs.bind(k, std::nullopt);
    }
    rs.run();
    const int64_t run_id = db.last_insert_id();
    for (const auto& f : r.perf) {
      fs.bind(1, run_id).bind(2, f.metric).bind(3, f.stat).bind(4, f.value);
      bind_text(fs, 5, nonempty(f.unit));
      fs.run();
    }
  }

  sql::Stmt fi(db,
               "INSERT INTO findings (capture_id, build_id, finding, severity, message, layers) "
               "VALUES (?,?,?,?,?,?)");
  for (const auto& f : c.findings) {
    fi.bind(1, capture_id);
    if (auto it = build_ids.find(f.build); it != build_ids.end())
      fi.bind(2, it->second);
    else
      fi.bind(2, std::nullopt);
    fi.bind(3, f.id).bind(4, to_string(f.severity)).bind(5, f.message);
    bind_text(fi, 6, f.layers.empty() ? std::nullopt : nonempty(nlohmann::json(f.layers).dump()));
    fi.run();
  }

  sql::Stmt re(db,
               "INSERT INTO remarks (capture_id, build_id, kind, category, layer, onnx_nodes, "
               "reason, evidence, scope, repeats) VALUES (?,?,?,?,?,?,?,?,?,?)");
  for (const auto& r : c.remarks) {
    re.bind(1, capture_id);
    if (auto it = build_ids.find(r.build); it != build_ids.end())
      re.bind(2, it->second);
    else
      re.bind(2, std::nullopt);
    re.bind(3, r.kind);
    bind_text(re, 4, nonempty(r.category));
    bind_text(re, 5, nonempty(r.layer));
    bind_text(re, 6,
              r.onnx_nodes.empty() ? std::nullopt : nonempty(nlohmann::json(r.onnx_nodes).dump()));
    bind_text(re, 7, nonempty(r.reason));
    std::vector<std::string> ev;
    for (const auto& e : r.evidence) ev.push_back(e.path + ":" + std::to_string(e.line));
    bind_text(re, 8, ev.empty() ? std::nullopt : nonempty(nlohmann::json(ev).dump()));
    bind_text(re, 9, nonempty(r.scope));
    re.bind(10, int64_t(r.repeats)).run();
  }

  sql::Stmt di(db,
               "INSERT INTO diagnostics (capture_id, severity, path, line, message) "
               "VALUES (?,?,?,?,?)");
  for (const auto& d : c.diagnostics)
    di.bind(1, capture_id)
        .bind(2, to_string(d.severity))
        .bind(3, d.where.path.str())
        .bind(4, int64_t(d.where.line))
        .bind(5, d.message)
        .run();

  tx.commit();
  return capture_id;
}

QueryResult Store::query(const std::string& text) {
  QueryResult out;
  try {
    sql::Stmt s(*db_, text);
    if (!s.readonly()) throw StoreError("db query: only statements that read are allowed");
    for (int i = 0; i < s.columns(); ++i) out.columns.push_back(s.column_name(i));
    while (s.step()) {
      std::vector<sql::Value> row;
      row.reserve(size_t(s.columns()));
      for (int i = 0; i < s.columns(); ++i) row.push_back(s.value(i));
      out.rows.push_back(std::move(row));
    }
  } catch (const sql::Error& e) {
    throw StoreError("db query: " + std::string(e.what()));
  }
  return out;
}

}  // namespace trtlens
