#include "sweep/progress.h"

#include <cstdio>

#include "sweep/child_process.h"

namespace neuronsim::sweep {

std::string format_duration(double seconds) {
    if (!(seconds >= 0)) seconds = 0;
    const long s = long(seconds + 0.5);
    char buf[32];
    if (s >= 3600)
        std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    else
        std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
    return buf;
}

Progress::Progress(size_t total, bool enabled) : total_(total), enabled_(enabled), start_(now_seconds()) {}

std::string Progress::line(size_t done, size_t total, size_t failed, double elapsed) {
    constexpr int kWidth = 30;
    const int filled = total ? int(double(done) / double(total) * kWidth) : kWidth;
    std::string bar = "[" + std::string(size_t(filled), '#') + std::string(size_t(kWidth - filled), '.') + "]";
    std::string s = bar + " " + std::to_string(done) + "/" + std::to_string(total) + " points";
    if (failed) s += ", " + std::to_string(failed) + " failed";
    s += ", " + format_duration(elapsed) + " elapsed";
    if (done > 0 && done < total) s += ", ETA " + format_duration(elapsed / double(done) * double(total - done));
    return s;
}

void Progress::update(size_t done, size_t failed, bool force) {
    if (!enabled_) return;
    const double now = now_seconds();
    if (!force && last_ >= 0 && now - last_ < 0.1) return;
    last_ = now;
    std::fprintf(stderr, "\r%s\033[K", line(done, total_, failed, now - start_).c_str());
    std::fflush(stderr);
    drawn_ = true;
}

void Progress::finish() {
    if (enabled_ && drawn_) std::fputc('\n', stderr);
    drawn_ = false;
}

}  // namespace neuronsim::sweep
