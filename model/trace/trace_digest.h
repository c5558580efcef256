#pragma once
// What decides a trace's run besides its configuration: the bytes of the trace file and of
// every `.data file=` it reads. A sweep keys its points by these (sweep/point_inputs.h), so a
// regenerated trace or data file at the same path runs again.
#include <string>
#include <utility>
#include <vector>

namespace neuronsim::model::trace {

struct TraceDigest {
    std::string trace_sha256;
    std::vector<std::pair<std::string, std::string>> data;  // each `.data file=` (absolute path), its SHA-256, in trace order
};

// Reads the trace (an Error naming the file and line on bad input, or naming an unreadable file).
TraceDigest trace_digest(const std::string& path);

}  // namespace neuronsim::model::trace
