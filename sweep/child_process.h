#pragma once
// Child processes of a sweep: each point is one `neuronsim run`, started with posix_spawn
// (safe from an MPI rank, no fork of a large address space), stdout to /dev/null, stderr to a
// file the caller reads for the error text. SIGINT and SIGTERM are at their defaults in the child.
#include <sys/types.h>

#include <string>
#include <vector>

namespace neuronsim::sweep {

struct ChildExit {
    pid_t pid = 0;
    int exit_code = -1;  // when it exited
    int signal = 0;      // when a signal ended it
    double wall_seconds = 0;
    double cpu_seconds = 0;  // user + system time of the child (wait4)
};

class ChildPool {
public:
    ~ChildPool();  // kills (SIGKILL) and reaps children still running
    // Starts `exe` with `args` (argv[1..]); an Error if it cannot be started.
    pid_t start(const std::string& exe, const std::vector<std::string>& args, const std::string& stderr_path);
    // The children that ended, waiting up to `timeout_ms` for at least one (0: do not wait).
    std::vector<ChildExit> wait(int timeout_ms);
    size_t running() const { return children_.size(); }
    void signal_all(int sig);

private:
    struct Child {
        pid_t pid;
        double started;
    };
    std::vector<Child> children_;
};

// This executable (/proc/self/exe).
std::string self_executable();
// Monotonic seconds.
double now_seconds();

}  // namespace neuronsim::sweep
