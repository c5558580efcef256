#pragma once
// The sweep's progress line on stderr: bar, points done of total, failures, elapsed time and
// an ETA from the rate so far. Drawn at most 10 times a second, only when enabled (a tty
// and no --no-progress).
#include <cstddef>
#include <string>

namespace neuronsim::sweep {

class Progress {
public:
    Progress(size_t total, bool enabled);
    void update(size_t done, size_t failed, bool force = false);
    void finish();  // ends the line
    // The line update() draws, for tests: "[#####.....] 5/10 points, 1 failed, 0:03 elapsed, ETA 0:03".
    static std::string line(size_t done, size_t total, size_t failed, double elapsed);

private:
    size_t total_;
    bool enabled_;
    double start_, last_ = -1;
    bool drawn_ = false;
};

std::string format_duration(double seconds);  // 0:07, 12:03, 1:02:03

}  // namespace neuronsim::sweep
