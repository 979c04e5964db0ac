#include "store/sqlite.h"

#include <sqlite3.h>

#include <chrono>
#include <thread>

#include "io/library.h"

namespace trtlens::sql {
namespace {

constexpr int kBusyTimeoutMs = 60000;

// SQLite is opened by the first store command, not linked: its loading cost every run of the
// other commands a tenth of trtlens's start-up.
// clang-format off
#define TRTLENS_SQLITE_FUNCTIONS(X) \
  X(sqlite3_bind_double) X(sqlite3_bind_int64) X(sqlite3_bind_null) X(sqlite3_bind_text64) \
  X(sqlite3_busy_timeout) X(sqlite3_changes) X(sqlite3_clear_bindings) X(sqlite3_close) \
  X(sqlite3_close_v2) X(sqlite3_column_bytes) X(sqlite3_column_count) \
  X(sqlite3_column_double) X(sqlite3_column_int64) X(sqlite3_column_name) \
  X(sqlite3_column_text) X(sqlite3_column_type) X(sqlite3_errmsg) X(sqlite3_errstr) \
  X(sqlite3_exec) X(sqlite3_extended_result_codes) X(sqlite3_finalize) X(sqlite3_free) \
  X(sqlite3_last_insert_rowid) X(sqlite3_open_v2) X(sqlite3_prepare_v2) X(sqlite3_reset) \
  X(sqlite3_step) X(sqlite3_stmt_readonly)
// clang-format on

struct Sqlite {
#define X(f) decltype(&::f) f = nullptr;
  TRTLENS_SQLITE_FUNCTIONS(X)
#undef X
  std::string missing;  // why it cannot be used, when it cannot
};

const Sqlite& api() {
  static const Sqlite sqlite = [] {
    static Library lib(TRTLENS_SQLITE_SONAME);
    Sqlite s;
#define X(f) \
  if (!lib.get(s.f, #f) && s.missing.empty()) s.missing = lib.error();
    TRTLENS_SQLITE_FUNCTIONS(X)
#undef X
    return s;
  }();
  if (!sqlite.missing.empty())
    throw Error(SQLITE_CANTOPEN,
                "the build store needs SQLite (" TRTLENS_SQLITE_SONAME "): " + sqlite.missing);
  return sqlite;
}

}  // namespace

Db::Db(const std::string& path, Mode mode) {
  int flags = mode == Mode::ReadOnly ? SQLITE_OPEN_READONLY
                                     : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  int rc = api().sqlite3_open_v2(path.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? api().sqlite3_errmsg(db_) : api().sqlite3_errstr(rc);
    api().sqlite3_close(db_);
    db_ = nullptr;
    throw Error(rc, msg);
  }
  api().sqlite3_extended_result_codes(db_, 1);
  // Several CI jobs may write one file: wait for the lock rather than fail.
  api().sqlite3_busy_timeout(db_, kBusyTimeoutMs);
}

Db::~Db() { api().sqlite3_close_v2(db_); }

void Db::exec(const std::string& sql) {
  char* err = nullptr;
  int rc = api().sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : api().sqlite3_errstr(rc);
    api().sqlite3_free(err);
    throw Error(rc, msg);
  }
}

void Db::exec_upgrading(const std::string& sql) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (;;) {
    try {
      exec(sql);
      return;
    } catch (const Error& e) {
      if ((e.code() & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() > deadline) throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

int64_t Db::last_insert_id() const { return api().sqlite3_last_insert_rowid(db_); }
int Db::changes() const { return api().sqlite3_changes(db_); }
std::string Db::errmsg() const { return api().sqlite3_errmsg(db_); }

Stmt::Stmt(Db& db, std::string_view sql) : db_(db) {
  const char* tail = nullptr;
  int rc = api().sqlite3_prepare_v2(db.handle(), sql.data(), int(sql.size()), &s_, &tail);
  if (rc != SQLITE_OK) throw Error(rc, db.errmsg());
  if (!s_) throw Error(SQLITE_MISUSE, "empty statement");
  for (; tail && *tail; ++tail)
    if (*tail != ' ' && *tail != '\n' && *tail != '\t' && *tail != '\r' && *tail != ';')
      throw Error(SQLITE_MISUSE, "more than one statement; give one at a time");
}

Stmt::~Stmt() { api().sqlite3_finalize(s_); }

namespace {
void check_bind(Db& db, int rc) {
  if (rc != SQLITE_OK) throw Error(rc, db.errmsg());
}
}  // namespace

Stmt& Stmt::bind(int i, int64_t v) {
  check_bind(db_, api().sqlite3_bind_int64(s_, i, v));
  return *this;
}
Stmt& Stmt::bind(int i, double v) {
  check_bind(db_, api().sqlite3_bind_double(s_, i, v));
  return *this;
}
Stmt& Stmt::bind(int i, std::string_view v) {
  check_bind(db_,
             api().sqlite3_bind_text64(s_, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
  return *this;
}
Stmt& Stmt::bind(int i, std::nullopt_t) {
  check_bind(db_, api().sqlite3_bind_null(s_, i));
  return *this;
}

bool Stmt::step() {
  int rc = api().sqlite3_step(s_);
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
  api().sqlite3_reset(s_);
  api().sqlite3_clear_bindings(s_);
}

int Stmt::columns() const { return api().sqlite3_column_count(s_); }
std::string Stmt::column_name(int i) const {
  const char* n = api().sqlite3_column_name(s_, i);
  return n ? n : "";
}
bool Stmt::is_null(int i) const { return api().sqlite3_column_type(s_, i) == SQLITE_NULL; }
int64_t Stmt::int64(int i) const { return api().sqlite3_column_int64(s_, i); }
std::string Stmt::text(int i) const {
  const unsigned char* t = api().sqlite3_column_text(s_, i);
  return t ? std::string(reinterpret_cast<const char*>(t),
                         size_t(api().sqlite3_column_bytes(s_, i)))
           : std::string();
}
bool Stmt::readonly() const { return api().sqlite3_stmt_readonly(s_) != 0; }

Value Stmt::value(int i) const {
  switch (api().sqlite3_column_type(s_, i)) {
    case SQLITE_INTEGER:
      return api().sqlite3_column_int64(s_, i);
    case SQLITE_FLOAT:
      return api().sqlite3_column_double(s_, i);
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
