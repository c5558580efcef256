#pragma once
// The contents that decide a point besides its coordinates in the spec: the trace's and its
// data files' SHA-256 (model/trace/trace_digest.h), the overlays' SHA-256, the numerics mode
// and the build of neuronsim that runs it. They are part of the point's key (Point::key), so a
// point whose inputs changed runs again and its row says why (ResultsDb::record).
#include <map>
#include <string>
#include <vector>

#include "sweep/point.h"

namespace neuronsim::sweep {

// The first 16 hex digits of the SHA-256 of this neuronsim executable: any rebuild is a new
// build (the simulator's results may have changed with it).
const std::string& build_id();

class PointInputs {
public:
    // `numerics`: the --numerics every run gets ("" = the run's default, full); `stats`: the
    // globs of the stats kept (what the database holds of each run).
    PointInputs(std::string numerics, std::vector<std::string> stats) : numerics_(std::move(numerics)), stats_(std::move(stats)) {}
    // Fills p.inputs. A trace or overlay that cannot be read is recorded as such (the point then
    // fails with the run's own error); it does not stop the sweep.
    void stamp(Point& p);

private:
    std::string file_digest(const std::string& path, bool trace);
    std::string numerics_;
    std::vector<std::string> stats_;
    std::map<std::string, std::string> cache_;  // path -> its digest JSON (a trace is read once per sweep)
};

// What differs between two points' inputs (Point::inputs JSON), for the database and messages:
// "the trace's content changed; numerics none -> full". `old_inputs` empty: recorded by a build
// that kept no input digests.
std::string inputs_change(const std::string& old_inputs, const std::string& new_inputs);

}  // namespace neuronsim::sweep
