#pragma once
// The results database of a sweep (SQLite; schema in docs/what-if.md "The database"):
//   meta(key, value)                      schema_version, created_by, writer
//   sweeps(id, started_at, command_line, spec_path, spec_sha256, spec_text, build_id,
//          neuronsim_version, host)        one row per sweep run into the database
//   points(id, point_key UNIQUE, point_index, trace, generation, overlays, params, run_args,
//          repeat, status, exit_code, error, wall_seconds, cpu_seconds, neuronsim_version, numerics, host,
//          finished_at, coord_key, inputs, rerun_reason)
//   params(point_id, key, value, num)     every -p of the point, num when it is a number
//   stats(point_id, key, value, ord)      stats.json flattened to dotted keys, ord: their order
//   results (view)                        points joined with their stats, one row per value
// Each point is written in its own transaction (WAL journal), so a sweep that is interrupted
// or crashes loses no point already recorded.
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sweep/flatten.h"
#include "sweep/point.h"
#include "sweep/sqlite.h"

namespace neuronsim::sweep {

// 2: points keyed by their inputs' contents (coord_key, inputs, rerun_reason) and the sweeps
// table. A writer upgrades a version 1 file in place; a reader reads it as it is.
inline constexpr int kDbSchemaVersion = 2;

// One row of points with its params and stats.
struct PointRecord {
    std::string point_key;
    int64_t point_index = 0;
    std::string trace, generation;
    std::vector<std::string> overlays;
    std::vector<Param> params;
    std::vector<std::string> run_args;
    int64_t repeat = 0;
    std::string status;  // ok | failed
    int64_t exit_code = 0;
    std::string error;
    double wall_seconds = 0;  // of the point's run: its process start to exit (--spawn, MPI), or the run in a warm worker
    double cpu_seconds = 0;  // its user + system CPU time
    std::string neuronsim_version, numerics, host, finished_at;
    std::string coord_key;  // Point::coord_key: the place in the study, whatever the inputs
    std::string inputs;  // Point::inputs
    std::string rerun_reason;  // why an earlier result of the same place was replaced ("" when none was)
    std::vector<FlatStat> stats;
};

// One sweep run into a database: what ran, from which spec, with which build, where.
struct SweepRun {
    std::string started_at, command_line, spec_path, spec_sha256, spec_text, build_id, neuronsim_version, host;
};

// A record for `p` with its identity filled in (the outcome is the caller's).
PointRecord record_for(const Point& p);

class ResultsDb {
public:
    // Opens `path`, creating it and its schema when `create`; an existing file must be a
    // neuronsim sweep database of this schema version. `create` opens it as its one writer:
    // an exclusive lock on the file (flock; released when the process ends, however it ends)
    // and the meta row `writer` saying who holds it; a second writer gets an Error naming the
    // process that holds the lock, before any point runs.
    ResultsDb(const std::string& path, bool create);
    ~ResultsDb();
    ResultsDb(const ResultsDb&) = delete;
    ResultsDb& operator=(const ResultsDb&) = delete;

    std::set<std::string> point_keys();
    size_t failed_count();
    void delete_failed();  // for --retry-failed
    // One transaction. A recorded point of the same coord_key and other inputs is replaced, and
    // r's rerun_reason (when empty) says what changed.
    void record(const PointRecord& r);
    // The keys and inputs of recorded points at `coord_key` with a key other than `point_key`.
    std::vector<std::pair<std::string, std::string>> superseded(const std::string& coord_key, const std::string& point_key);
    void add_sweep_run(const SweepRun& run);
    std::vector<SweepRun> sweep_runs();
    bool has(const std::string& point_key);

    // Every point in point_index, then point_key order, stats and params included.
    void for_each(const std::function<void(const PointRecord&)>& fn);
    std::vector<std::string> stat_keys();  // distinct, sorted
    std::vector<std::string> param_keys();  // distinct, sorted
    std::unique_ptr<PointRecord> find(const std::string& point_key);
    Db& db() { return db_; }

private:
    void lock_as_writer();
    Db db_;
    int lock_fd_ = -1;
    Stmt insert_point_, insert_param_, insert_stat_, insert_stat_key_;
    bool describes_keys_ = false;  // a writer: stat_keys exists
    bool schema_v1_ = false;  // a version 1 file opened to read
    std::set<std::string> described_;  // stat keys already in stat_keys
};

// `neuronsim sweep merge`: joins `inputs` into a new database `out` (which must not exist,
// written under a temporary name and renamed when complete). A point key in several inputs
// with the same outcome and stats is kept once; with a different one it is a conflict: an
// Error naming the keys and files. Returns the number of points written.
size_t merge_databases(const std::string& out, const std::vector<std::string>& inputs);

// `neuronsim sweep export DB --csv FILE`: one row per point; columns: the point's fields,
// then param:KEY for every parameter and stat:KEY for every stat. Written atomically.
size_t export_csv(const std::string& db, const std::string& csv);

// True when two records have the same identity, outcome and stats (wall time, host and
// finish time are not compared).
bool same_results(const PointRecord& a, const PointRecord& b, std::string* difference = nullptr);

}  // namespace neuronsim::sweep
