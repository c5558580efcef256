#pragma once
// The sweep's progress line (model/common/progress_line.h): points done of total, failures,
// elapsed time and an ETA. Drawn at most 10 times a second, only when enabled (a tty and no
// --no-progress).
#include <cstddef>
#include <string>

#include "model/common/progress_line.h"

namespace neuronsim::sweep {

class Progress {
public:
    Progress(size_t total, bool enabled) : line_(total, "points", enabled) {}
    void update(size_t done, size_t failed, bool force = false) { line_.update(done, failed_text(failed), force); }
    void finish() { line_.finish(); }
    // The line update() draws, for tests: "[#####.....] 5/10 points, 1 failed, 0:03 elapsed, ETA 0:03".
    static std::string line(size_t done, size_t total, size_t failed, double elapsed) {
        return ProgressLine::line(done, total, "points", failed_text(failed), elapsed);
    }

private:
    static std::string failed_text(size_t failed) { return failed ? std::to_string(failed) + " failed" : ""; }
    ProgressLine line_;
};

using neuronsim::format_duration;

}  // namespace neuronsim::sweep
