#pragma once
// Runs `body` in a forked child whose files may not grow past `limit` bytes (SIGXFSZ ignored,
// so a write past it fails with EFBIG, as on a real file-size limit) and returns the child's
// exit status: body's return value, or -1 when the child did not exit normally.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <functional>

namespace neuronsim::test {

inline int exit_status_under_file_size_limit(uint64_t limit, const std::function<int()>& body) {
    const pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        rlimit lim{limit, limit};
        setrlimit(RLIMIT_FSIZE, &lim);
        _exit(body());
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

}  // namespace neuronsim::test
