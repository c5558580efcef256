#pragma once
// The bytes an operand touches in SBUF or PSUM: a partition range and, in each of them, a byte
// range (the bounding box of its access pattern). What decides whether two instructions
// depend on each other: the ACT engine's pipeline (a result read before it is committed) and
// the advisor's reordering rule.
#include <cstdint>
#include <vector>

#include "model/isa/address.h"

namespace neuronsim::model::isa {

struct Region {
    MemSpace space = MemSpace::Sbuf;
    uint32_t p0 = 0, p1 = 0;  // partitions [p0, p1)
    int64_t lo = 0, hi = 0;  // bytes [lo, hi) in each
};

inline bool overlap(const Region& a, const Region& b) { return a.space == b.space && a.p0 < b.p1 && b.p0 < a.p1 && a.lo < b.hi && b.lo < a.hi; }

inline bool any_overlap(const std::vector<Region>& a, const std::vector<Region>& b) {
    for (const Region& x : a)
        for (const Region& y : b)
            if (overlap(x, y)) return true;
    return false;
}

// Whether two accesses must keep their order: one writes bytes the other reads or writes.
inline bool must_order(const std::vector<Region>& a_reads, const std::vector<Region>& a_writes, const std::vector<Region>& b_reads,
                       const std::vector<Region>& b_writes) {
    return any_overlap(a_writes, b_reads) || any_overlap(a_writes, b_writes) || any_overlap(a_reads, b_writes);
}

}  // namespace neuronsim::model::isa
