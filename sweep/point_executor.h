#pragma once
// Runs points as `neuronsim run` child processes, each in its own output directory under a
// work directory, and turns each exit into a PointRecord: status ok with the flattened
// stats.json, or failed with the error text from the child's stderr. A child that ended by
// SIGINT, SIGTERM or SIGHUP (or exit 130/143), or by SIGKILL while the sweep stops its points,
// is reported as interrupted and never recorded, so a resumed sweep runs it again.
#include <map>
#include <string>
#include <vector>

#include "sweep/child_process.h"
#include "sweep/point.h"
#include "sweep/results_db.h"

namespace neuronsim::sweep {

struct ExecutorOptions {
    std::string exe;        // the neuronsim executable (self_executable())
    std::string work_dir;   // each point runs in work_dir/<point key>
    std::string numerics;   // --numerics for every run, when not empty
    bool keep_outputs = false;  // keep each point's output directory
};

struct PointDone {
    size_t index = 0;  // Point::index
    bool interrupted = false;
    PointRecord record;
};

class PointExecutor {
public:
    explicit PointExecutor(ExecutorOptions o);
    void start(const Point& p);
    // Points that ended, waiting up to timeout_ms for one.
    std::vector<PointDone> poll(int timeout_ms);
    size_t running() const { return pool_.running(); }
    // Stops every running point: SIGINT, then SIGKILL after `grace_seconds`; returns when all
    // ended, with the points that still completed (or failed) in the meantime.
    std::vector<PointDone> stop_all(double grace_seconds);

private:
    PointDone finish(const ChildExit& e);

    ExecutorOptions o_;
    ChildPool pool_;
    std::map<pid_t, Point> running_;
    bool stopping_ = false;
};

// "host" recorded with each point (gethostname).
std::string host_name();
// UTC now as 2026-12-01T05:04:05Z.
std::string utc_now();

}  // namespace neuronsim::sweep
