#include "sweep/sqlite.h"

#include <sqlite3.h>

#include "model/common/error.h"

namespace neuronsim::sweep {

Db::Db(const std::string& path, bool create) : path_(path) {
    const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
        const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        db_ = nullptr;
        throw Error(path + ": cannot open the database: " + msg);
    }
    sqlite3_busy_timeout(db_, 10000);
    sqlite3_extended_result_codes(db_, 1);
}

Db::~Db() { sqlite3_close_v2(db_); }

void Db::fail(const std::string& what) const { throw Error(path_ + ": " + what + ": " + sqlite3_errmsg(db_)); }

void Db::exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        const std::string msg = err ? err : "unknown error";
        sqlite3_free(err);
        throw Error(path_ + ": " + msg + " (in: " + sql.substr(0, 80) + ")");
    }
}

Stmt Db::prepare(const std::string& sql) { return Stmt(*this, sql); }

int64_t Db::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }

Stmt::Stmt(Db& db, const std::string& sql) : db_(&db), sql_(sql) {
    if (sqlite3_prepare_v2(db.handle(), sql.c_str(), int(sql.size()), &st_, nullptr) != SQLITE_OK) db.fail("cannot prepare \"" + sql.substr(0, 80) + "\"");
}

Stmt::~Stmt() { sqlite3_finalize(st_); }

Stmt& Stmt::operator=(Stmt&& o) noexcept {
    if (this != &o) {
        sqlite3_finalize(st_);
        db_ = o.db_;
        st_ = o.st_;
        sql_ = std::move(o.sql_);
        o.st_ = nullptr;
    }
    return *this;
}

Stmt& Stmt::bind(int i, int64_t v) {
    if (sqlite3_bind_int64(st_, i, v) != SQLITE_OK) db_->fail("bind");
    return *this;
}
Stmt& Stmt::bind(int i, double v) {
    if (sqlite3_bind_double(st_, i, v) != SQLITE_OK) db_->fail("bind");
    return *this;
}
Stmt& Stmt::bind(int i, const std::string& v) {
    if (sqlite3_bind_text(st_, i, v.data(), int(v.size()), SQLITE_TRANSIENT) != SQLITE_OK) db_->fail("bind");
    return *this;
}
Stmt& Stmt::bind_null(int i) {
    if (sqlite3_bind_null(st_, i) != SQLITE_OK) db_->fail("bind");
    return *this;
}

bool Stmt::step() {
    const int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    const std::string msg = sqlite3_errmsg(db_->handle());
    sqlite3_reset(st_);
    throw Error(db_->path() + ": " + msg + " (in: " + sql_.substr(0, 80) + ")");
}

void Stmt::run() {
    while (step()) {
    }
    reset();
}

void Stmt::reset() {
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
}

bool Stmt::is_null(int col) const { return sqlite3_column_type(st_, col) == SQLITE_NULL; }
int64_t Stmt::int64(int col) const { return sqlite3_column_int64(st_, col); }
double Stmt::real(int col) const { return sqlite3_column_double(st_, col); }
std::string Stmt::text(int col) const {
    const unsigned char* t = sqlite3_column_text(st_, col);
    return t ? std::string(reinterpret_cast<const char*>(t), size_t(sqlite3_column_bytes(st_, col))) : std::string();
}
int Stmt::type(int col) const { return sqlite3_column_type(st_, col); }

}  // namespace neuronsim::sweep
