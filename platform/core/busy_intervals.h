#pragma once
// When something was busy, as disjoint [start, end) intervals in picoseconds, kept merged as
// they are added in time order (an engine's instructions, a DMA engine's packets), so its
// size is the number of idle gaps, not of instructions. The derived stats (overlap of DMA with
// compute) are unions and intersections of these.
#include <cstdint>
#include <utility>
#include <vector>

namespace neuronsim::platform {

class BusyIntervals {
public:
    using Span = std::pair<uint64_t, uint64_t>;  // [start, end) in ps
    // Adds [start, end); start must not be before the last span's start (in time order).
    void add(uint64_t start, uint64_t end);
    const std::vector<Span>& spans() const { return spans_; }
    uint64_t total() const;
    static BusyIntervals unite(const BusyIntervals& a, const BusyIntervals& b);
    static BusyIntervals intersect(const BusyIntervals& a, const BusyIntervals& b);

private:
    std::vector<Span> spans_;
};

}  // namespace neuronsim::platform
