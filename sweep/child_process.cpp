#include "sweep/child_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "model/common/error.h"

extern char** environ;

namespace neuronsim::sweep {

double now_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

std::string self_executable() {
    char buf[4096];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) throw Error(std::string("cannot find this executable (/proc/self/exe): ") + std::strerror(errno));
    return std::string(buf, size_t(n));
}

ChildPool::~ChildPool() {
    signal_all(SIGKILL);
    for (const Child& c : children_) {
        int st = 0;
        while (::waitpid(c.pid, &st, 0) < 0 && errno == EINTR) {
        }
        if (c.err_fd >= 0) ::close(c.err_fd);
    }
}

pid_t ChildPool::start(const std::string& exe, const std::vector<std::string>& args) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw Error("cannot start " + exe + ": no pipe for its stderr: " + std::strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDERR_FILENO);  // (dup2 clears close-on-exec on fd 2)
    sigset_t defaults, empty;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGPIPE);
    sigemptyset(&empty);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setsigmask(&attr, &empty);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(exe.c_str()));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, exe.c_str(), &fa, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        throw Error("cannot start " + exe + ": " + std::strerror(rc));
    }
    ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    children_.push_back({pid, now_seconds(), fds[0], {}});
    return pid;
}

void drain_stderr(int& fd, std::string& into) {
    char buf[4096];
    while (fd >= 0) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n > 0) {
            into.append(buf, size_t(n));
            if (into.size() > 2 * kStderrKeep) into.erase(0, into.size() - kStderrKeep);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        ::close(fd);  // the end (or an error): nothing more comes
        fd = -1;
    }
}

// Reads what the child's stderr holds now (all of it once the child has exited).
void ChildPool::drain(Child& c) { drain_stderr(c.err_fd, c.err); }

std::vector<ChildExit> ChildPool::wait(int timeout_ms) {
    std::vector<ChildExit> out;
    const double deadline = now_seconds() + timeout_ms * 1e-3;
    while (true) {
        for (size_t i = 0; i < children_.size();) {
            Child& c = children_[i];
            drain(c);  // (a child blocked on a full pipe would never exit)
            int st = 0;
            struct rusage ru {};
            const pid_t r = ::wait4(c.pid, &st, WNOHANG, &ru);
            if (r == c.pid || (r < 0 && errno == ECHILD)) {
                ChildExit e;
                e.pid = c.pid;
                e.wall_seconds = now_seconds() - c.started;
                e.cpu_seconds = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
                if (r < 0) {
                    e.exit_code = -1;  // reaped elsewhere: outcome unknown
                } else if (WIFEXITED(st)) {
                    e.exit_code = WEXITSTATUS(st);
                } else if (WIFSIGNALED(st)) {
                    e.signal = WTERMSIG(st);
                }
                // The rest of its stderr (a grandchild holding the pipe open cannot stall this:
                // the read end is non-blocking, so only what is there now is taken).
                drain(c);
                if (c.err_fd >= 0) ::close(c.err_fd);
                e.stderr_text = c.err.size() > kStderrKeep ? c.err.substr(c.err.size() - kStderrKeep) : c.err;
                out.push_back(std::move(e));
                children_.erase(children_.begin() + long(i));
            } else {
                ++i;
            }
        }
        if (!out.empty() || children_.empty() || now_seconds() >= deadline) return out;
        timespec pause{0, 2 * 1000 * 1000};  // 2 ms: wakes 500 times a second, costs nothing measurable
        nanosleep(&pause, nullptr);
    }
}

void ChildPool::signal_all(int sig) {
    for (const Child& c : children_) ::kill(c.pid, sig);
}

}  // namespace neuronsim::sweep
