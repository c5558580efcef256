#include "sweep/results_db.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "model/common/error.h"
#include "stats/stats_schema.h"
#include "sweep/host_info.h"
#include "sweep/point_inputs.h"

namespace neuronsim::sweep {

namespace {

const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS points(
  id INTEGER PRIMARY KEY,
  point_key TEXT NOT NULL UNIQUE,
  point_index INTEGER NOT NULL,
  trace TEXT NOT NULL,
  generation TEXT NOT NULL,
  overlays TEXT NOT NULL,
  params TEXT NOT NULL,
  run_args TEXT NOT NULL,
  repeat INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
  exit_code INTEGER NOT NULL,
  error TEXT NOT NULL,
  wall_seconds REAL NOT NULL,
  cpu_seconds REAL NOT NULL,
  neuronsim_version TEXT NOT NULL,
  numerics TEXT NOT NULL,
  host TEXT NOT NULL,
  finished_at TEXT NOT NULL,
  coord_key TEXT NOT NULL DEFAULT '',
  inputs TEXT NOT NULL DEFAULT '',
  rerun_reason TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS points_by_coord ON points(coord_key);
CREATE TABLE IF NOT EXISTS sweeps(
  id INTEGER PRIMARY KEY,
  started_at TEXT NOT NULL,
  command_line TEXT NOT NULL,
  spec_path TEXT NOT NULL,
  spec_sha256 TEXT NOT NULL,
  spec_text TEXT NOT NULL,
  build_id TEXT NOT NULL,
  neuronsim_version TEXT NOT NULL,
  host TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS params(
  point_id INTEGER NOT NULL REFERENCES points(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  num REAL,
  PRIMARY KEY (point_id, key)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS stats(
  point_id INTEGER NOT NULL REFERENCES points(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value,
  ord INTEGER NOT NULL,
  PRIMARY KEY (point_id, key)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS stat_keys(
  key TEXT PRIMARY KEY,
  unit TEXT NOT NULL,
  meaning TEXT NOT NULL) WITHOUT ROWID;
CREATE VIEW IF NOT EXISTS results AS
  SELECT p.id AS point_id, p.point_key, p.trace, p.generation, p.params, p.repeat, p.status, s.key AS stat, s.value
  FROM points p JOIN stats s ON s.point_id = p.id;
)sql";

bool file_exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

bool parse_number(const std::string& s, double& out) {
    if (s.empty()) return false;
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size();
}

nlohmann::json params_json(const std::vector<Param>& ps) {
    nlohmann::json j = nlohmann::json::array();
    for (const Param& p : ps) j.push_back({p.key, p.value});
    return j;
}

void bind_value(Stmt& st, int i, const FlatValue& v) {
    switch (v.kind) {
        case FlatValue::Kind::integer: st.bind(i, v.i); break;
        case FlatValue::Kind::real: st.bind(i, v.d); break;
        case FlatValue::Kind::text: st.bind(i, v.s); break;
        case FlatValue::Kind::null: st.bind_null(i); break;
    }
}

FlatValue column_value(const Stmt& st, int col) {
    FlatValue v;
    switch (st.type(col)) {
        case SQLITE_INTEGER:
            v.kind = FlatValue::Kind::integer;
            v.i = st.int64(col);
            break;
        case SQLITE_FLOAT:
            v.kind = FlatValue::Kind::real;
            v.d = st.real(col);
            break;
        case SQLITE_NULL: break;
        default:
            v.kind = FlatValue::Kind::text;
            v.s = st.text(col);
            break;
    }
    return v;
}

const char* kPointColumns =
    "id, point_key, point_index, trace, generation, overlays, params, run_args, repeat, status, exit_code, error, "
    "wall_seconds, cpu_seconds, neuronsim_version, numerics, host, finished_at, coord_key, inputs, rerun_reason";
// A version 1 database read as it is: its points have no content key.
const char* kPointColumnsV1 =
    "id, point_key, point_index, trace, generation, overlays, params, run_args, repeat, status, exit_code, error, "
    "wall_seconds, cpu_seconds, neuronsim_version, numerics, host, finished_at, point_key, '', ''";

// Reads a points row (kPointColumns) and its stats.
PointRecord read_point(Db& db, Stmt& row, Stmt& stats_of) {
    PointRecord r;
    const int64_t id = row.int64(0);
    r.point_key = row.text(1);
    r.point_index = row.int64(2);
    r.trace = row.text(3);
    r.generation = row.text(4);
    try {
        for (const auto& o : nlohmann::json::parse(row.text(5))) r.overlays.push_back(o.get<std::string>());
        for (const auto& p : nlohmann::json::parse(row.text(6))) r.params.push_back({p.at(0).get<std::string>(), p.at(1).get<std::string>()});
        for (const auto& a : nlohmann::json::parse(row.text(7))) r.run_args.push_back(a.get<std::string>());
    } catch (const nlohmann::json::exception& e) {
        throw Error(db.path() + ": point " + r.point_key + ": malformed overlays, params or run_args column: " + e.what());
    }
    r.repeat = row.int64(8);
    r.status = row.text(9);
    r.exit_code = row.int64(10);
    r.error = row.text(11);
    r.wall_seconds = row.real(12);
    r.cpu_seconds = row.real(13);
    r.neuronsim_version = row.text(14);
    r.numerics = row.text(15);
    r.host = row.text(16);
    r.finished_at = row.text(17);
    r.coord_key = row.text(18);
    r.inputs = row.text(19);
    r.rerun_reason = row.text(20);
    stats_of.bind(1, id);
    while (stats_of.step()) r.stats.push_back({stats_of.text(0), column_value(stats_of, 1)});
    stats_of.reset();
    return r;
}

}  // namespace

PointRecord record_for(const Point& p) {
    PointRecord r;
    r.point_key = p.key();
    r.point_index = int64_t(p.index);
    r.trace = p.trace;
    r.generation = p.generation;
    r.overlays = p.overlays;
    r.params = p.params;
    r.params.insert(r.params.end(), p.labels.begin(), p.labels.end());  // (queried like parameters: --where oat=baseline)
    r.run_args = p.run_args;
    r.repeat = p.repeat;
    r.coord_key = p.coord_key();
    r.inputs = p.inputs;
    return r;
}

static const std::string& existing(const std::string& path, bool create) {
    if (!create && !file_exists(path)) throw Error(path + ": no such database");
    return path;
}

// The insert statements are prepared once the schema exists; until then they hold a no-op.
ResultsDb::ResultsDb(const std::string& path, bool create)
    : db_(existing(path, create), create),
      insert_point_(db_, "SELECT 1"),
      insert_param_(db_, "SELECT 1"),
      insert_stat_(db_, "SELECT 1"),
      insert_stat_key_(db_, "SELECT 1") {
    if (create) lock_as_writer();  // (before the schema: two sweeps may both find the file new)
    bool has_meta = false;
    {
        Stmt t(db_, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'");
        has_meta = t.step() && t.int64(0) > 0;
    }
    if (has_meta) {
        Stmt v(db_, "SELECT value FROM meta WHERE key = 'schema_version'");
        const std::string version = v.step() ? v.text(0) : "";
        if (version == "1") {
            schema_v1_ = true;
        } else if (version != std::to_string(kDbSchemaVersion)) {
            throw Error(path + ": not a neuronsim sweep database of schema version " + std::to_string(kDbSchemaVersion) +
                        (version.empty() ? "" : " (it has version " + version + ")"));
        }
    } else {
        Stmt any(db_, "SELECT count(*) FROM sqlite_master");
        if (any.step() && any.int64(0) > 0) throw Error(path + ": an SQLite database, but not a neuronsim sweep database (no meta table)");
        if (!create) throw Error(path + ": empty database (no sweep results)");
    }
    db_.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;");
    if (!has_meta) {
        db_.exec(std::string("BEGIN;") + kSchema + "INSERT INTO meta VALUES ('schema_version', '" + std::to_string(kDbSchemaVersion) +
                 "'), ('created_by', 'neuronsim sweep'); COMMIT;");
    } else if (create) {
        if (schema_v1_) {
            // Version 1 -> 2: the points keep their key as their place in the study (the key of
            // version 1 is Point::coord_key) with no inputs, so each runs again once, saying why.
            db_.exec(
                "BEGIN; ALTER TABLE points ADD COLUMN coord_key TEXT NOT NULL DEFAULT ''; ALTER TABLE points ADD COLUMN inputs TEXT NOT NULL DEFAULT ''; "
                "ALTER TABLE points ADD COLUMN rerun_reason TEXT NOT NULL DEFAULT ''; UPDATE points SET coord_key = point_key; "
                "UPDATE meta SET value = '2' WHERE key = 'schema_version'; COMMIT;");
            schema_v1_ = false;
        }
        db_.exec(kSchema);  // (adds what a database of an earlier build lacks: stat_keys, sweeps)
    }
    if (create) {
        Stmt w(db_, "INSERT OR REPLACE INTO meta(key, value) VALUES ('writer', ?)");
        w.bind(1, "process " + std::to_string(::getpid()) + " on " + host_name() + ", since " + utc_now());
        w.run();
    }
    if (schema_v1_) return;  // (a version 1 file opened to read: nothing is recorded into it)
    insert_point_ = Stmt(db_, std::string("INSERT INTO points(") + (kPointColumns + 4) + ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    insert_param_ = Stmt(db_, "INSERT INTO params(point_id, key, value, num) VALUES (?,?,?,?)");
    insert_stat_ = Stmt(db_, "INSERT INTO stats(point_id, key, value, ord) VALUES (?,?,?,?)");
    // (Only a writer has made sure stat_keys exists: a database of an earlier build opened to
    // read has none, and its points are recorded without describing their keys.)
    if (create) {
        insert_stat_key_ = Stmt(db_, "INSERT OR IGNORE INTO stat_keys(key, unit, meaning) VALUES (?,?,?)");
        describes_keys_ = true;
    }
}

ResultsDb::~ResultsDb() {
    if (lock_fd_ >= 0) ::close(lock_fd_);  // (releases the flock)
}

// flock, not fcntl: SQLite's own locks are fcntl locks on the same file, and the two kinds do
// not interact on Linux, so this lock neither blocks nor is broken by SQLite's.
void ResultsDb::lock_as_writer() {
    lock_fd_ = ::open(db_.path().c_str(), O_RDONLY | O_CLOEXEC);
    if (lock_fd_ < 0) throw Error(db_.path() + ": cannot open it to lock it: " + std::strerror(errno));
    if (::flock(lock_fd_, LOCK_EX | LOCK_NB) == 0) return;
    const int err = errno;
    ::close(lock_fd_);
    lock_fd_ = -1;
    if (err != EWOULDBLOCK) throw Error(db_.path() + ": cannot lock it: " + std::strerror(err));
    std::string holder = "another process";
    try {
        Stmt w(db_, "SELECT value FROM meta WHERE key = 'writer'");
        if (w.step()) holder = w.text(0);
    } catch (const std::exception&) {  // (the holder may not have written its row yet)
    }
    throw Error(db_.path() + ": another sweep is writing this database (" + holder +
                "); wait for it to finish, or give this sweep another -o and join the two with `sweep merge`");
}

std::set<std::string> ResultsDb::point_keys() {
    std::set<std::string> keys;
    Stmt st(db_, "SELECT point_key FROM points");
    while (st.step()) keys.insert(st.text(0));
    return keys;
}

bool ResultsDb::has(const std::string& point_key) {
    Stmt st(db_, "SELECT 1 FROM points WHERE point_key = ?");
    st.bind(1, point_key);
    return st.step();
}

size_t ResultsDb::failed_count() {
    Stmt st(db_, "SELECT count(*) FROM points WHERE status != 'ok'");
    return st.step() ? size_t(st.int64(0)) : 0;
}

std::vector<std::pair<std::string, std::string>> ResultsDb::superseded(const std::string& coord_key, const std::string& point_key) {
    std::vector<std::pair<std::string, std::string>> out;
    if (schema_v1_) return out;
    Stmt st(db_, "SELECT point_key, inputs FROM points WHERE coord_key = ? AND point_key != ?");
    st.bind(1, coord_key).bind(2, point_key);
    while (st.step()) out.push_back({st.text(0), st.text(1)});
    return out;
}

void ResultsDb::add_sweep_run(const SweepRun& run) {
    Stmt st(db_, "INSERT INTO sweeps(started_at, command_line, spec_path, spec_sha256, spec_text, build_id, neuronsim_version, host) VALUES (?,?,?,?,?,?,?,?)");
    st.bind(1, run.started_at).bind(2, run.command_line).bind(3, run.spec_path).bind(4, run.spec_sha256);
    st.bind(5, run.spec_text).bind(6, run.build_id).bind(7, run.neuronsim_version).bind(8, run.host);
    st.run();
}

std::vector<SweepRun> ResultsDb::sweep_runs() {
    std::vector<SweepRun> out;
    if (schema_v1_) return out;
    Stmt st(db_, "SELECT started_at, command_line, spec_path, spec_sha256, spec_text, build_id, neuronsim_version, host FROM sweeps ORDER BY id");
    while (st.step()) out.push_back({st.text(0), st.text(1), st.text(2), st.text(3), st.text(4), st.text(5), st.text(6), st.text(7)});
    return out;
}

void ResultsDb::delete_failed() { db_.exec("DELETE FROM points WHERE status != 'ok'"); }

void ResultsDb::record(const PointRecord& r) {
    db_.exec("BEGIN IMMEDIATE");
    try {
        if (has(r.point_key))  // (only when something else wrote the file without the lock)
            throw Error(db_.path() + ": point " + r.point_key + " is already recorded: another process wrote this database meanwhile");
        insert_point_.bind(1, r.point_key).bind(2, r.point_index).bind(3, r.trace).bind(4, r.generation);
        insert_point_.bind(5, nlohmann::json(r.overlays).dump()).bind(6, params_json(r.params).dump()).bind(7, nlohmann::json(r.run_args).dump());
        insert_point_.bind(8, r.repeat).bind(9, r.status).bind(10, r.exit_code).bind(11, r.error).bind(12, r.wall_seconds);
        insert_point_.bind(13, r.cpu_seconds).bind(14, r.neuronsim_version).bind(15, r.numerics).bind(16, r.host).bind(17, r.finished_at);
        // An earlier result at the same place in the study, from other inputs, is replaced.
        std::string reason = r.rerun_reason;
        if (!r.coord_key.empty())
            for (const auto& [key, inputs] : superseded(r.coord_key, r.point_key)) {
                if (reason.empty()) reason = inputs_change(inputs, r.inputs);
                Stmt del(db_, "DELETE FROM points WHERE point_key = ?");
                del.bind(1, key);
                del.run();
            }
        insert_point_.bind(18, r.coord_key.empty() ? r.point_key : r.coord_key).bind(19, r.inputs).bind(20, reason);
        insert_point_.run();
        const int64_t id = db_.last_insert_id();
        for (const Param& p : r.params) {
            insert_param_.bind(1, id).bind(2, p.key).bind(3, p.value);
            double num = 0;
            if (parse_number(p.value, num)) insert_param_.bind(4, num);
            else insert_param_.bind_null(4);
            insert_param_.run();
        }
        for (size_t i = 0; i < r.stats.size(); ++i) {
            const FlatStat& s = r.stats[i];
            insert_stat_.bind(1, id).bind(2, s.key).bind(4, int64_t(i));
            bind_value(insert_stat_, 3, s.value);
            insert_stat_.run();
            // Each key's unit and meaning, from the stat record that declares it.
            if (!describes_keys_ || described_.count(s.key)) continue;
            if (const stats::Stat* rec = stats::record_of_flat_key(s.key)) {
                insert_stat_key_.bind(1, s.key).bind(2, std::string(stats::unit_name(rec->unit))).bind(3, std::string(rec->meaning));
                insert_stat_key_.run();
            }
            described_.insert(s.key);
        }
        db_.exec("COMMIT");
    } catch (...) {
        insert_point_.reset();
        insert_param_.reset();
        insert_stat_.reset();
        sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
}

void ResultsDb::for_each(const std::function<void(const PointRecord&)>& fn) {
    Stmt rows(db_, std::string("SELECT ") + (schema_v1_ ? kPointColumnsV1 : kPointColumns) + " FROM points ORDER BY point_index, point_key");
    Stmt stats_of(db_, "SELECT key, value FROM stats WHERE point_id = ? ORDER BY ord");
    while (rows.step()) fn(read_point(db_, rows, stats_of));
}

std::unique_ptr<PointRecord> ResultsDb::find(const std::string& point_key) {
    Stmt rows(db_, std::string("SELECT ") + (schema_v1_ ? kPointColumnsV1 : kPointColumns) + " FROM points WHERE point_key = ?");
    Stmt stats_of(db_, "SELECT key, value FROM stats WHERE point_id = ? ORDER BY ord");
    rows.bind(1, point_key);
    if (!rows.step()) return nullptr;
    return std::make_unique<PointRecord>(read_point(db_, rows, stats_of));
}

std::vector<std::string> ResultsDb::stat_keys() {
    std::vector<std::string> out;
    Stmt st(db_, "SELECT DISTINCT key FROM stats ORDER BY key");
    while (st.step()) out.push_back(st.text(0));
    return out;
}

std::vector<std::string> ResultsDb::param_keys() {
    std::vector<std::string> out;
    Stmt st(db_, "SELECT DISTINCT key FROM params ORDER BY key");
    while (st.step()) out.push_back(st.text(0));
    return out;
}

bool same_results(const PointRecord& a, const PointRecord& b, std::string* difference) {
    auto differ = [&](const std::string& what) {
        if (difference) *difference = what;
        return false;
    };
    if (a.point_key != b.point_key) return differ("point key");
    if (a.status != b.status) return differ("status " + a.status + " vs " + b.status);
    if (a.exit_code != b.exit_code) return differ("exit code");
    if (a.stats.size() != b.stats.size()) return differ(std::to_string(a.stats.size()) + " vs " + std::to_string(b.stats.size()) + " stats");
    for (size_t i = 0; i < a.stats.size(); ++i) {
        if (a.stats[i].key != b.stats[i].key) return differ("stat key " + a.stats[i].key + " vs " + b.stats[i].key);
        if (a.stats[i].value != b.stats[i].value) return differ(a.stats[i].key + " = " + a.stats[i].value.to_text() + " vs " + b.stats[i].value.to_text());
    }
    return true;
}

}  // namespace neuronsim::sweep
