#pragma once
// A tensor access pattern over one partition (a TENSORnD operand's steps and counts, in
// elements): its byte bounds are computed once from the steps, so each partition needs one
// bounds check rather than one per element, and its elements are walked in order, innermost
// dimension first, without storing their offsets. Every engine's operands use it.
#include <cstdint>
#include <string>

namespace neuronsim::model::isa {

struct AccessPattern {
    int64_t start = 0;  // byte offset of element (0, 0, 0) in the partition
    int64_t step[3] = {0, 0, 0};  // bytes
    uint32_t num[3] = {1, 1, 1};
    uint64_t elem_bytes = 4;
    uint64_t n = 0;  // elements
    int64_t lo = 0, hi = 0;  // lowest byte touched and one past the highest

    uint64_t span() const { return n ? static_cast<uint64_t>(hi - lo) : 0; }
    // The innermost stride is 16 bytes or more: streaming at half bandwidth (public-figures §1.4).
    bool strided() const { return (step[0] < 0 ? -step[0] : step[0]) >= 16; }
    int64_t offset(uint64_t i0, uint64_t i1, uint64_t i2) const {
        return start + step[0] * static_cast<int64_t>(i0) + step[1] * static_cast<int64_t>(i1) + step[2] * static_cast<int64_t>(i2);
    }

    // Elements in order; next() gives each one's byte offset relative to lo.
    class Cursor {
    public:
        explicit Cursor(const AccessPattern& p) : p_(p), o_(p.start - p.lo) {}
        uint64_t next() {
            const uint64_t at = static_cast<uint64_t>(o_);
            if (++i_[0] < p_.num[0]) {
                o_ += p_.step[0];
            } else {
                i_[0] = 0;
                if (++i_[1] == p_.num[1]) {
                    i_[1] = 0;
                    ++i_[2];
                }
                o_ = p_.start - p_.lo + p_.step[1] * i_[1] + p_.step[2] * i_[2];
            }
            return at;
        }

    private:
        const AccessPattern& p_;
        uint32_t i_[3] = {0, 0, 0};
        int64_t o_;
    };
};

// From an operand's fields: `dims` steps and counts (the rest 0 and 1). A count of 0 gives an
// empty pattern. Throws Error naming `what` when the pattern reaches below offset 0.
AccessPattern make_access_pattern(uint64_t start, const int16_t* step, const uint16_t* num, int dims, uint64_t elem_bytes, const std::string& what);

// Whether [lo, hi) lies in a partition of `partition_bytes` (an empty pattern always does).
inline bool fits_partition(const AccessPattern& p, uint64_t partition_bytes) { return !p.n || (p.lo >= 0 && static_cast<uint64_t>(p.hi) <= partition_bytes); }

// Throws Error naming `what` and `where` unless the pattern fits_partition; `kind` names the
// partition ("sbuf partition").
void check_in_partition(const AccessPattern& p, uint64_t partition_bytes, const std::string& what, const std::string& where,
                        const std::string& kind = "partition");

}  // namespace neuronsim::model::isa
