// A thin RAII layer over SQLite's C API: one connection, prepared statements with bound values.
// Values are always bound, never spliced into SQL text.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

struct sqlite3;
struct sqlite3_stmt;

namespace trtlens::sql {

class Error : public std::runtime_error {
 public:
  Error(int code, const std::string& what) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

// NULL, integer, real or text: what a cell of a result holds.
using Value = std::variant<std::monostate, int64_t, double, std::string>;

class Db;

class Stmt {
 public:
  Stmt(Db& db, std::string_view sql);
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  // Bind by 1-based position; nullopt binds NULL.
  Stmt& bind(int i, int64_t v);
  Stmt& bind(int i, double v);
  Stmt& bind(int i, std::string_view v);
  Stmt& bind(int i, std::nullopt_t);
  Stmt& bind(int i, const std::optional<double>& v) {
    return v ? bind(i, *v) : bind(i, std::nullopt);
  }
  Stmt& bind(int i, const std::optional<uint64_t>& v) {
    return v ? bind(i, int64_t(*v)) : bind(i, std::nullopt);
  }
  Stmt& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
  Stmt& bind(int i, const std::string& v) { return bind(i, std::string_view(v)); }
  Stmt& bind(int i, int v) { return bind(i, int64_t(v)); }
  Stmt& bind(int i, uint64_t v) { return bind(i, int64_t(v)); }

  // true while a row is available.
  bool step();
  // Runs to completion (statements without rows) and resets for the next bindings.
  void run();
  void reset();

  int columns() const;
  std::string column_name(int i) const;
  Value value(int i) const;
  int64_t int64(int i) const;
  std::string text(int i) const;
  bool is_null(int i) const;
  bool readonly() const;

 private:
  Db& db_;
  sqlite3_stmt* s_ = nullptr;
};

class Db {
 public:
  enum class Mode { ReadOnly, ReadWriteCreate };
  Db(const std::string& path, Mode mode);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  void exec(const std::string& sql);  // statements without bound values (schema, BEGIN)
  // exec() for a statement that asks for the write lock after reading, as a change of journal
  // mode does. SQLite answers such a request with SQLITE_BUSY at once instead of waiting (the
  // writer holding the lock may be waiting for this reader), so it is retried here until the
  // busy timeout has passed.
  void exec_upgrading(const std::string& sql);
  int64_t last_insert_id() const;
  int changes() const;
  std::string errmsg() const;
  sqlite3* handle() { return db_; }

 private:
  sqlite3* db_ = nullptr;
};

// BEGIN IMMEDIATE (takes the write lock at once, so concurrent writers wait on the busy timeout
// instead of failing mid-transaction); rolls back unless commit() was called.
class Transaction {
 public:
  explicit Transaction(Db& db);
  ~Transaction();
  void commit();

 private:
  Db& db_;
  bool done_ = false;
};

}  // namespace trtlens::sql
