#pragma once
// Runs the points of a sweep into its database: locally with N child processes at a time, or
// (mpi_runner.h) spread over MPI ranks. Points whose key is already in the database are not
// run again; a failing point is recorded with its error and the sweep goes on.
#include <string>
#include <vector>

#include "sweep/point.h"
#include "sweep/point_executor.h"
#include "sweep/results_db.h"

namespace neuronsim::sweep {

struct SweepOptions {
    ExecutorOptions exec;
    int jobs = 1;  // points at once on this machine (per MPI worker)
    bool progress = false;  // draw the progress line
    bool retry_failed = false;  // delete failed points from the database first, then run them again
    SweepRun run;  // recorded in the database's sweeps table when started_at is set
};

struct SweepOutcome {
    size_t points = 0;  // of the spec (or shard)
    size_t already = 0;  // found in the database, not run
    size_t rerun = 0;  // to run again: recorded from other inputs (ResultsDb::record says why)
    std::string rerun_example;  // one such point and why
    size_t ran = 0;  // recorded by this sweep
    size_t failed = 0;  // of those, failed
    size_t unrecorded = 0;  // stopped by an interrupt, to be run by a resumed sweep
    bool interrupted = false;
};

// Points I (0-based) of N: those whose index mod N is I.
bool in_shard(const Point& p, int index, int count);
std::vector<Point> shard_points(const std::vector<Point>& points, int index, int count);

// The points still to run: not in `done_keys`, each key once (a spec that names the same
// point twice runs it once).
std::vector<Point> points_to_run(const std::vector<Point>& points, const std::set<std::string>& done_keys);

// Counts (into `out`) the points of `todo` recorded in `db` from other inputs.
void count_reruns(const std::vector<Point>& todo, ResultsDb& db, SweepOutcome& out);

// Runs `points` locally into `db`.
SweepOutcome run_local(const std::vector<Point>& points, ResultsDb& db, const SweepOptions& o);

// Parses "I/N" (0 <= I < N); an Error otherwise.
void parse_shard(const std::string& text, int& index, int& count);

}  // namespace neuronsim::sweep
