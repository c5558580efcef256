#pragma once
// Warm workers for a local sweep (docs/what-if.md, `--spawn`): forks of the warmed sweep process that run
// points one after another, each in a fresh simulation context, instead of one fork per point,
// so that a point pays neither a fork (page tables copied, copy-on-write faults afterwards) nor
// a process's end. What a point sees is what a `neuronsim run` process sees:
// its own stderr (ChildExit::stderr_text), stdin and stdout at /dev/null, SIGINT and SIGTERM at
// their defaults outside what the run installs, its own wall and CPU seconds.
//
// A worker runs at most `jobs_per_worker` points and then exits: each point leaves its
// SystemC context behind (platform::fresh_simulation_context), which bounds what a worker holds.
// When a worker dies during a point that was not its first (a crash, an exit from inside the
// run), the point runs again alone in a new worker and that attempt is its result: a point is
// never blamed for what an earlier one left. A point ended by signal() is not run again.
#include <sys/types.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sweep/child_process.h"

namespace neuronsim::sweep {

class WorkerPool {
public:
    using RunFn = std::function<int(const std::vector<std::string>&)>;
    // `run` is called in a worker with a point's `neuronsim run` arguments and returns its exit
    // status; it must not throw. Only for a single-threaded caller that is not an MPI rank.
    WorkerPool(RunFn run, size_t jobs_per_worker);
    ~WorkerPool();  // kills (SIGKILL) and reaps every worker
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    // Runs `args` in an idle worker (a new one when none is): returns the job's id (> 0); an
    // Error when no worker can be started.
    int submit(const std::vector<std::string>& args);
    // The jobs that ended (ChildExit::pid is the job's id), waiting up to `timeout_ms` for at
    // least one (0: do not wait).
    std::vector<ChildExit> wait(int timeout_ms);
    size_t running() const;  // jobs in flight
    void signal(int job, int sig);  // the worker running the job
    void signal_all(int sig);  // every worker, idle or not
    size_t workers_started() const { return started_; }

private:
    struct Worker {
        pid_t pid = 0;
        int sock = -1;  // commands out, statuses in
        int err_fd = -1;  // the read end of its stderr (non-blocking)
        std::string err;  // the current job's stderr so far (the last kStderrKeep bytes)
        std::string in;  // status bytes not yet parsed
        int job = 0;  // in flight; 0: idle
        size_t done = 0;  // jobs it finished
        double job_started = 0;
        double cpu_reported = 0;  // the CPU seconds of the jobs it finished
    };
    struct Job {
        std::vector<std::string> args;
        bool signalled = false;  // ended by signal(): its outcome stands
        bool alone = false;  // the first job of its worker
    };
    Worker& new_worker();
    void send(Worker& w, int job);
    void drain_err(Worker& w);
    // The worker's end: reaps it; the job in flight (if any) ends with its status, or runs again.
    void worker_ended(size_t i, std::vector<ChildExit>& out);
    void reap(Worker& w, int* status, double* cpu);

    RunFn run_;
    size_t jobs_per_worker_;
    std::vector<Worker> workers_;
    std::map<int, Job> jobs_;  // in flight, by id
    int next_id_ = 1;
    size_t started_ = 0;
};

}  // namespace neuronsim::sweep
