#pragma once
// A thin RAII layer over the SQLite C API: a connection and prepared statements whose
// errors are Errors naming the database file and the statement.
#include <cstdint>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace neuronsim::sweep {

class Stmt;

class Db {
public:
    // Opens (creating when `create`) the database file `path`.
    Db(const std::string& path, bool create);
    ~Db();
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;

    void exec(const std::string& sql);  // one or more statements, no results
    Stmt prepare(const std::string& sql);
    int64_t last_insert_id() const;
    const std::string& path() const { return path_; }
    sqlite3* handle() const { return db_; }
    [[noreturn]] void fail(const std::string& what) const;

private:
    sqlite3* db_ = nullptr;
    std::string path_;
};

class Stmt {
public:
    Stmt(Db& db, const std::string& sql);
    ~Stmt();
    Stmt(Stmt&& o) noexcept : db_(o.db_), st_(o.st_), sql_(std::move(o.sql_)) { o.st_ = nullptr; }
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;
    Stmt& operator=(Stmt&& o) noexcept;

    Stmt& bind(int i, int64_t v);
    Stmt& bind(int i, double v);
    Stmt& bind(int i, const std::string& v);
    Stmt& bind_null(int i);
    bool step();  // true: a row is ready
    void run();  // step to the end, then reset
    void reset();

    bool is_null(int col) const;
    int64_t int64(int col) const;
    double real(int col) const;
    std::string text(int col) const;
    int type(int col) const;  // SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_NULL

private:
    Db* db_;
    sqlite3_stmt* st_ = nullptr;
    std::string sql_;
};

}  // namespace neuronsim::sweep
