#pragma once
// The one progress line of neuronsim's long jobs on stderr — a run's instructions, a sweep's
// points, `pwp verify`'s 2^32 inputs: "[#####.....] 5/10 points, 1 failed, 0:03 elapsed,
// ETA 0:03". Drawn only when enabled (the caller decides: a tty, no --no-progress), at most
// once per `interval` seconds, and erased or ended by finish().
#include <chrono>
#include <cstdint>
#include <string>

namespace neuronsim {

class ProgressLine {
public:
    ProgressLine(uint64_t total, std::string unit, bool enabled, double interval_seconds = 0.1);
    // `extra`: after the count ("1 failed"); empty for none. `force`: draw now.
    void update(uint64_t done, const std::string& extra = "", bool force = false);
    // Ends the line: kept (a newline) or erased.
    void finish(bool keep = true);
    bool enabled() const { return enabled_; }

    // The text update() draws.
    static std::string line(uint64_t done, uint64_t total, const std::string& unit, const std::string& extra, double elapsed);

private:
    uint64_t total_;
    std::string unit_;
    bool enabled_;
    double interval_;
    std::chrono::steady_clock::time_point start_, last_;
    bool drawn_ = false;
};

std::string format_duration(double seconds);  // 0:07, 12:03, 1:02:03

}  // namespace neuronsim
