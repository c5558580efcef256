#pragma once
// Runs points as `neuronsim run` child processes, each in its own output directory under a
// work directory, and turns each exit into a PointRecord: status ok with the flattened
// stats.json, or failed with the error text from the child's stderr. A child that ended by
// SIGINT, SIGTERM or SIGHUP (or exit 130/143), or by SIGKILL while the sweep stops its points,
// is reported as interrupted and never recorded, so a resumed sweep runs it again.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sweep/child_process.h"
#include "sweep/host_info.h"
#include "sweep/kernel_points.h"
#include "sweep/point.h"
#include "sweep/results_db.h"
#include "sweep/worker_pool.h"

namespace neuronsim::sweep {

struct ExecutorOptions {
    std::string exe;  // the neuronsim executable (self_executable())
    std::string work_dir;  // each point runs in work_dir/<point key>
    std::string numerics;  // --numerics for every run, when not empty
    bool keep_outputs = false;  // keep each point's output directory
    std::vector<std::string> stats = default_stat_globs();  // the stats recorded (Spec::stats)
    double timeout_seconds = -1;  // a point still running after this is killed and recorded as failed;
        // -1: default_point_timeout(point), 0: none
    // When set, points run in warm workers (sweep/worker_pool.h), forks of this (warmed,
    // single-threaded) process that call it with each point's `neuronsim run` arguments
    // (run_arguments) one point after another, instead of exec'ing `exe` per point.
    std::function<int(const std::vector<std::string>&)> in_process;
};

// The timeout of a point when neither the spec nor --timeout gives one: 600 s plus 120 s per
// MiB of its trace [A]: the 0.4 MiB trace of a LLaMA-2-7B layer's softmax runs in 1.8 s
// (docs/workloads.md), so a point hundreds of times slower than that has hung, not worked.
double default_point_timeout(const Point& p);

struct PointDone {
    size_t index = 0;  // Point::index
    bool interrupted = false;
    PointRecord record;
};

class PointExecutor {
public:
    explicit PointExecutor(ExecutorOptions o);
    ~PointExecutor();
    // Starts the point's run (a kernel point's trace is built first; when it cannot be, the
    // point fails with the reason without running).
    void start(const Point& p);
    // Points that ended, waiting up to timeout_ms for one.
    std::vector<PointDone> poll(int timeout_ms);
    size_t running() const { return (workers_ ? workers_->running() : pool_.running()) + ended_.size(); }
    // Stops every running point: SIGINT, then SIGKILL after `grace_seconds`; returns when all
    // ended, with the points that still completed (or failed) in the meantime.
    std::vector<PointDone> stop_all(double grace_seconds);

private:
    PointDone finish(const ChildExit& e);
    PointDone failed_to_start(const Point& p, const std::string& why) const;

    ExecutorOptions o_;
    ChildPool pool_;
    std::unique_ptr<WorkerPool> workers_;  // when in_process
    struct Running {
        Point point;
        double deadline = 0, timeout = 0;  // now_seconds(); 0: none
        bool timed_out = false;  // killed at its deadline
    };
    void kill_overdue();
    std::map<int, Running> running_;  // by pid, or by job id for a worker's point
    bool stopping_ = false;
    KernelTraces kernels_;
    std::vector<PointDone> ended_;  // points that failed before a process started
};

}  // namespace neuronsim::sweep
