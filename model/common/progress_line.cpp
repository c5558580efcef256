#include "model/common/progress_line.h"

#include <cstdio>

namespace neuronsim {

std::string format_duration(double seconds) {
    if (!(seconds >= 0)) seconds = 0;
    const long s = long(seconds + 0.5);
    char buf[32];
    if (s >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    else std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
    return buf;
}

ProgressLine::ProgressLine(uint64_t total, std::string unit, bool enabled, double interval_seconds)
    : total_(total), unit_(std::move(unit)), enabled_(enabled), interval_(interval_seconds), start_(std::chrono::steady_clock::now()) {}

std::string ProgressLine::line(uint64_t done, uint64_t total, const std::string& unit, const std::string& extra, double elapsed) {
    constexpr int kWidth = 30;
    const int filled = total ? int(double(done) / double(total) * kWidth) : kWidth;
    std::string s = "[" + std::string(size_t(filled), '#') + std::string(size_t(kWidth - filled), '.') + "] " + std::to_string(done) + "/" +
                    std::to_string(total) + " " + unit;
    if (!extra.empty()) s += ", " + extra;
    s += ", " + format_duration(elapsed) + " elapsed";
    if (done > 0 && done < total) s += ", ETA " + format_duration(elapsed / double(done) * double(total - done));
    return s;
}

void ProgressLine::update(uint64_t done, const std::string& extra, bool force) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (!force && drawn_ && std::chrono::duration<double>(now - last_).count() < interval_) return;
    last_ = now;
    std::fprintf(stderr, "\r%s\033[K", line(done, total_, unit_, extra, std::chrono::duration<double>(now - start_).count()).c_str());
    std::fflush(stderr);
    drawn_ = true;
}

void ProgressLine::finish(bool keep) {
    if (enabled_ && drawn_) std::fputs(keep ? "\n" : "\r\033[K", stderr);
    drawn_ = false;
}

}  // namespace neuronsim
