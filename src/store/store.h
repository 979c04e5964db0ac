// The store: many analysed captures in one SQLite file (README "db"). Reads the model only; it
// knows no text format. Every value is bound, never spliced into SQL.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "model/capture.h"
#include "store/sqlite.h"

namespace trtlens {

// A store that cannot be opened or used: "DB: reason" (exit 2).
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// model, target, trt_version, date, git: the labels the schema has columns for; other keys
// are kept in `labels` only.
using Labels = std::map<std::string, std::string>;

// Labels as the inputs state them: the bundle manifest first, then the logs (device name,
// TensorRT version), then the input's file name for the model.
Labels derive_labels(const Capture& capture);

struct QueryResult {
  std::vector<std::string> columns;
  std::vector<std::vector<sql::Value>> rows;
};

class Store {
 public:
  enum class Mode { ReadOnly, ReadWrite };
  // ReadWrite creates the file (and the schema) when missing or empty. A file that is not a
  // trtlens store, or one of a newer schema, is refused with StoreError.
  Store(const std::string& path, Mode mode);

  const std::string& path() const { return path_; }
  std::unordered_set<std::string> content_hashes();
  // One capture in one transaction. nullopt when a capture of the same content is already
  // stored (another writer may have stored it since content_hashes() was read).
  std::optional<int64_t> add(const Capture& capture, const std::string& content_hash,
                             const std::string& source, const Labels& labels);
  // One read-only statement.
  QueryResult query(const std::string& sql);
  sql::Db& db() { return *db_; }

 private:
  void check_or_create(Mode mode);
  std::string path_;
  std::unique_ptr<sql::Db> db_;
};

}  // namespace trtlens
