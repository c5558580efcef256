#pragma once
// Child processes of a sweep: each point is one `neuronsim run`, started with posix_spawn
// (safe from an MPI rank, no fork of a large address space), stdout to /dev/null, stderr
// through a pipe into memory (its last kStderrKeep bytes): the error text arrives even when the
// disk the child writes to is full. SIGINT and SIGTERM are at their defaults in the child.
#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace neuronsim::sweep {

struct ChildExit {
    pid_t pid = 0;
    int exit_code = -1;  // when it exited
    int signal = 0;  // when a signal ended it
    double wall_seconds = 0;
    double cpu_seconds = 0;  // user + system time of the child (wait4)
    std::string stderr_text;  // the end of what it wrote to stderr
};

inline constexpr size_t kStderrKeep = 64 * 1024;

// Appends what the non-blocking `fd` holds now to `into` (keeping about its last kStderrKeep
// bytes); at its end (or an error) closes it and sets it to -1.
void drain_stderr(int& fd, std::string& into);

class ChildPool {
public:
    ~ChildPool();  // kills (SIGKILL) and reaps children still running
    // Starts `exe` with `args` (argv[1..]); an Error if it cannot be started.
    pid_t start(const std::string& exe, const std::vector<std::string>& args);
    // The children that ended, waiting up to `timeout_ms` for at least one (0: do not wait).
    std::vector<ChildExit> wait(int timeout_ms);
    size_t running() const { return children_.size(); }
    void signal_all(int sig);

private:
    struct Child {
        pid_t pid;
        double started;
        int err_fd;  // the read end of its stderr pipe (non-blocking), -1 once at its end
        std::string err;  // what came so far (the last kStderrKeep bytes)
    };
    static void drain(Child& c);
    std::vector<Child> children_;
};

// This executable (/proc/self/exe).
std::string self_executable();
// Monotonic seconds.
double now_seconds();

}  // namespace neuronsim::sweep
