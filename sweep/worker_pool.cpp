#include "sweep/worker_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "model/common/error.h"

namespace neuronsim::sweep {

namespace {

// What a worker sends back after each job.
struct Status {
    int32_t exit_code;
    int32_t pad;
    double wall_seconds, cpu_seconds;
};

double cpu_seconds_now() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

bool send_all(int fd, const void* data, size_t n) {
    const char* p = static_cast<const char*>(data);
    while (n) {
        const ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        p += k, n -= size_t(k);
    }
    return true;
}

bool read_all(int fd, void* data, size_t n) {
    char* p = static_cast<char*>(data);
    while (n) {
        const ssize_t k = ::read(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        p += k, n -= size_t(k);
    }
    return true;
}

// A command: its byte count, then the argument count and each argument as length + bytes.
std::string encode(const std::vector<std::string>& args) {
    std::string m(4, '\0');
    auto put = [&m](uint32_t v) { m.append(reinterpret_cast<const char*>(&v), 4); };
    put(uint32_t(args.size()));
    for (const std::string& a : args) put(uint32_t(a.size())), m += a;
    const uint32_t n = uint32_t(m.size() - 4);
    std::memcpy(m.data(), &n, 4);
    return m;
}

bool read_command(int fd, std::vector<std::string>& args) {
    uint32_t n = 0;
    if (!read_all(fd, &n, 4) || n > (64u << 20)) return false;
    std::string m(n, '\0');
    if (!read_all(fd, m.data(), n)) return false;
    size_t at = 0;
    auto get = [&](uint32_t& v) {
        if (m.size() - at < 4) return false;
        std::memcpy(&v, m.data() + at, 4);
        at += 4;
        return true;
    };
    uint32_t count = 0;
    if (!get(count)) return false;
    args.clear();
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t len = 0;
        if (!get(len) || m.size() - at < len) return false;
        args.emplace_back(m.data() + at, len);
        at += len;
    }
    return true;
}

[[noreturn]] void worker_main(int sock, int err_w, const WorkerPool::RunFn& run, size_t jobs) {
    const int null_in = ::open("/dev/null", O_RDONLY), null_out = ::open("/dev/null", O_WRONLY);
    if (null_in < 0 || null_out < 0 || ::dup2(null_in, STDIN_FILENO) < 0 || ::dup2(null_out, STDOUT_FILENO) < 0 || ::dup2(err_w, STDERR_FILENO) < 0)
        ::_exit(127);
    ::close(null_in), ::close(null_out), ::close(err_w);
    for (int sig : {SIGINT, SIGTERM, SIGPIPE}) std::signal(sig, SIG_DFL);
    sigset_t empty;
    sigemptyset(&empty);
    sigprocmask(SIG_SETMASK, &empty, nullptr);
    std::vector<std::string> args;
    for (size_t n = 0; n < jobs; ++n) {
        if (!read_command(sock, args)) ::_exit(0);  // the sweep closed its end: no more points
        const double t0 = now_seconds(), c0 = cpu_seconds_now();
        const int rc = run(args);
        std::fflush(nullptr);
        const Status s{rc, 0, now_seconds() - t0, cpu_seconds_now() - c0};
        if (!send_all(sock, &s, sizeof s)) ::_exit(0);
        if (rc == 130 || rc == 143) ::_exit(0);  // stopped by a signal: the sweep is stopping
    }
    ::_exit(0);  // (no destructors or atexit handlers of the parent's objects: its database stays its own)
}

}  // namespace

WorkerPool::WorkerPool(RunFn run, size_t jobs_per_worker) : run_(std::move(run)), jobs_per_worker_(jobs_per_worker ? jobs_per_worker : 1) {}

WorkerPool::~WorkerPool() {
    signal_all(SIGKILL);
    for (Worker& w : workers_) reap(w, nullptr, nullptr);
}

void WorkerPool::reap(Worker& w, int* status, double* cpu) {
    int st = 0;
    struct rusage ru {};
    while (::wait4(w.pid, &st, 0, &ru) < 0 && errno == EINTR) {
    }
    if (status) *status = st;
    if (cpu) *cpu = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
    if (w.sock >= 0) ::close(w.sock);
    if (w.err_fd >= 0) ::close(w.err_fd);
    w.sock = w.err_fd = -1;
}

WorkerPool::Worker& WorkerPool::new_worker() {
    int sv[2], err[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) throw Error(std::string("cannot start a worker: no socket: ") + std::strerror(errno));
    if (::pipe2(err, O_CLOEXEC) != 0) {
        const int e = errno;
        ::close(sv[0]), ::close(sv[1]);
        throw Error(std::string("cannot start a worker: no pipe for its stderr: ") + std::strerror(e));
    }
    std::fflush(nullptr);  // (nothing buffered here is written twice)
    const pid_t pid = ::fork();
    if (pid < 0) {
        const int e = errno;
        for (int fd : {sv[0], sv[1], err[0], err[1]}) ::close(fd);
        throw Error(std::string("cannot start a worker: fork failed: ") + std::strerror(e));
    }
    if (pid == 0) {
        // The other workers' ends stay with the sweep: a worker holding one would keep that
        // worker from seeing the sweep close it.
        for (const Worker& o : workers_) ::close(o.sock), ::close(o.err_fd);
        ::close(sv[0]), ::close(err[0]);
        worker_main(sv[1], err[1], run_, jobs_per_worker_);
    }
    ::close(sv[1]), ::close(err[1]);
    ::fcntl(err[0], F_SETFL, ::fcntl(err[0], F_GETFL) | O_NONBLOCK);
    Worker w;
    w.pid = pid;
    w.sock = sv[0];
    w.err_fd = err[0];
    workers_.push_back(std::move(w));
    ++started_;
    return workers_.back();
}

void WorkerPool::send(Worker& w, int id) {
    Job& j = jobs_.at(id);
    j.alone = w.done == 0;
    w.job = id;
    w.job_started = now_seconds();
    w.err.clear();
    const std::string m = encode(j.args);
    if (!send_all(w.sock, m.data(), m.size())) throw Error(std::string("cannot send a point to its worker: ") + std::strerror(errno));
}

int WorkerPool::submit(const std::vector<std::string>& args) {
    const int id = next_id_++;
    jobs_[id].args = args;
    for (Worker& w : workers_)
        if (!w.job && w.done < jobs_per_worker_) {
            try {
                send(w, id);
                return id;
            } catch (const Error&) {  // it died since its last job (wait() reaps it): a new one
                w.job = 0;
                w.done = jobs_per_worker_;
            }
            break;
        }
    try {
        send(new_worker(), id);
    } catch (const Error&) {
        for (Worker& w : workers_)
            if (w.job == id) w.job = 0, w.done = jobs_per_worker_;
        jobs_.erase(id);
        throw;
    }
    return id;
}

size_t WorkerPool::running() const { return jobs_.size(); }

void WorkerPool::signal(int id, int sig) {
    for (const Worker& w : workers_)
        if (w.job == id) {
            jobs_.at(id).signalled = true;
            ::kill(w.pid, sig);
        }
}

void WorkerPool::signal_all(int sig) {
    for (auto& [id, j] : jobs_) j.signalled = true;
    for (const Worker& w : workers_) ::kill(w.pid, sig);
}

void WorkerPool::drain_err(Worker& w) { drain_stderr(w.err_fd, w.err); }

void WorkerPool::worker_ended(size_t i, std::vector<ChildExit>& out) {
    Worker w = std::move(workers_[i]);
    workers_.erase(workers_.begin() + long(i));
    drain_err(w);
    int st = 0;
    double cpu = 0;
    reap(w, &st, &cpu);
    if (!w.job) return;
    const int id = w.job;
    Job& j = jobs_.at(id);
    ChildExit e;
    e.pid = id;
    if (!j.signalled && !j.alone) {
        try {
            send(new_worker(), id);  // (the new worker's first job: alone)
            return;
        } catch (const Error& err) {
            for (Worker& o : workers_)
                if (o.job == id) o.job = 0, o.done = jobs_per_worker_;
            e.exit_code = 1;
            e.stderr_text = std::string("neuronsim: its worker died during the point, which could not run again: ") + err.what() + "\n";
            jobs_.erase(id);
            out.push_back(std::move(e));
            return;
        }
    }
    e.wall_seconds = now_seconds() - w.job_started;
    e.cpu_seconds = std::max(0.0, cpu - w.cpu_reported);  // (the worker's time since its last finished job)
    if (WIFEXITED(st)) e.exit_code = WEXITSTATUS(st);
    else if (WIFSIGNALED(st)) e.signal = WTERMSIG(st);
    e.stderr_text = w.err.size() > kStderrKeep ? w.err.substr(w.err.size() - kStderrKeep) : w.err;
    jobs_.erase(id);
    out.push_back(std::move(e));
}

std::vector<ChildExit> WorkerPool::wait(int timeout_ms) {
    std::vector<ChildExit> out;
    const double deadline = now_seconds() + timeout_ms * 1e-3;
    for (;;) {
        std::vector<pollfd> fds;
        for (const Worker& w : workers_) {
            fds.push_back({w.sock, POLLIN, 0});
            if (w.err_fd >= 0) fds.push_back({w.err_fd, POLLIN, 0});
        }
        const double left = deadline - now_seconds();
        const int ms = out.empty() && !jobs_.empty() && left > 0 ? int(left * 1000) + 1 : 0;
        if (!fds.empty() && ::poll(fds.data(), fds.size(), ms) < 0 && errno != EINTR) throw Error(std::string("poll: ") + std::strerror(errno));
        for (size_t i = workers_.size(); i-- > 0;) {
            Worker& w = workers_[i];
            bool ended = false;
            char buf[256];
            for (;;) {  // statuses first, then the stderr written before them
                const ssize_t n = ::recv(w.sock, buf, sizeof buf, MSG_DONTWAIT);
                if (n > 0) {
                    w.in.append(buf, size_t(n));
                    continue;
                }
                if (n < 0 && errno == EINTR) continue;
                ended = n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
                break;
            }
            drain_err(w);
            while (w.in.size() >= sizeof(Status) && w.job) {
                Status s;
                std::memcpy(&s, w.in.data(), sizeof s);
                w.in.erase(0, sizeof s);
                ChildExit e;
                e.pid = w.job;
                e.exit_code = s.exit_code;
                e.wall_seconds = s.wall_seconds;
                e.cpu_seconds = s.cpu_seconds;
                e.stderr_text = w.err.size() > kStderrKeep ? w.err.substr(w.err.size() - kStderrKeep) : w.err;
                w.err.clear();
                w.cpu_reported += s.cpu_seconds;
                jobs_.erase(w.job);
                w.job = 0;
                ++w.done;
                out.push_back(std::move(e));
            }
            if (ended) worker_ended(i, out);
        }
        if (!out.empty() || jobs_.empty() || now_seconds() >= deadline) return out;
    }
}

}  // namespace neuronsim::sweep
