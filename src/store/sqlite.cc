#include "store/sqlite.h"

#include <sqlite3.h>

namespace trtlens::sql {

Db::Db(const std::string& path, Mode mode) {
  int flags = mode == Mode::ReadOnly ? SQLITE_OPEN_READONLY
                                     : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error(rc, msg);
  }
  sqlite3_extended_result_codes(db_, 1);
  // Several CI jobs may write one file: wait for the lock rather than fail.
  sqlite3_busy_timeout(db_, 60000);
}

Db::~Db() { sqlite3_close_v2(db_); }

void Db::exec(const std::string& sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    throw Error(rc, msg);
  }
}

int64_t Db::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }
int Db::changes() const { return sqlite3_changes(db_); }
std::string Db::errmsg() const { return sqlite3_errmsg(db_); }

Stmt::Stmt(Db& db, std::string_view sql) : db_(db) {
  const char* tail = nullptr;
  int rc = sqlite3_prepare_v2(db.handle(), sql.data(), int(sql.size()), &s_, &tail);
  if (rc != SQLITE_OK) throw Error(rc, db.errmsg());
  if (!s_) throw Error(SQLITE_MISUSE, "empty statement");
  for (; tail && *tail; ++tail)
    if (*tail != ' ' && *tail != '\n' && *tail != '\t' && *tail != '\r' && *tail != ';')
      throw Error(SQLITE_MISUSE, "more than one statement; give one at a time");
}

Stmt::~Stmt() { sqlite3_finalize(s_); }

namespace {
void check_bind(Db& db, int rc) {
  if (rc != SQLITE_OK) throw Error(rc, db.errmsg());
}
}  // namespace

Stmt& Stmt::bind(int i, int64_t v) {
  check_bind(db_, sqlite3_bind_int64(s_, i, v));
  return *this;
}
Stmt& Stmt::bind(int i, double v) {
  check_bind(db_, sqlite3_bind_double(s_, i, v));
  return *this;
}
Stmt& Stmt::bind(int i, std::string_view v) {
  check_bind(db_, sqlite3_bind_text64(s_, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
  return *this;
}
Stmt& Stmt::bind(int i, std::nullopt_t) {
  check_bind(db_, sqlite3_bind_null(s_, i));
  return *this;
}

bool Stmt::step() {
  int rc = sqlite3_step(s_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw Error(rc, db_.errmsg());
}

void Stmt::run() {
  while (step()) {
  }
  reset();
}

void Stmt::reset() {
  sqlite3_reset(s_);
  sqlite3_clear_bindings(s_);
}

int Stmt::columns() const { return sqlite3_column_count(s_); }
std::string Stmt::column_name(int i) const {
  const char* n = sqlite3_column_name(s_, i);
  return n ? n : "";
}
bool Stmt::is_null(int i) const { return sqlite3_column_type(s_, i) == SQLITE_NULL; }
int64_t Stmt::int64(int i) const { return sqlite3_column_int64(s_, i); }
std::string Stmt::text(int i) const {
  const unsigned char* t = sqlite3_column_text(s_, i);
  return t ? std::string(reinterpret_cast<const char*>(t), size_t(sqlite3_column_bytes(s_, i)))
           : std::string();
}
bool Stmt::readonly() const { return sqlite3_stmt_readonly(s_) != 0; }

Value Stmt::value(int i) const {
  switch (sqlite3_column_type(s_, i)) {
    case SQLITE_INTEGER: return sqlite3_column_int64(s_, i);
    case SQLITE_FLOAT: return sqlite3_column_double(s_, i);
    case SQLITE_NULL: return std::monostate{};
    default: return text(i);  // TEXT, and BLOB as its bytes
  }
}

Transaction::Transaction(Db& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }
Transaction::~Transaction() {
  if (!done_) {
    try {
      db_.exec("ROLLBACK");
    } catch (const Error&) {
    }
  }
}
void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace trtlens::sql
