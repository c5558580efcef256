#pragma once
// `pwp verify`: every one of the 2^32 float inputs through evaluate_generic on a profile and
// through the table-memory evaluator on the packed set, compared bit for bit; with `fast`, the
// batch pass (fast_eval.h) on the decoded profile and on the decoded set instead, counting the
// elements it hands to the reference path. Both sides failing on an input ("unhandled by
// both") is agreement.
#include <cstdint>
#include <functional>
#include <optional>

#include "model/pwp/profile.h"
#include "model/pwp/table_eval.h"

namespace neuronsim::model::pwp {

struct VerifyResult {
    uint64_t equal = 0, both_unhandled = 0, mismatched = 0;
    std::optional<uint32_t> first_mismatch;  // the lowest input that differs
    uint64_t fallbacks_profile = 0, fallbacks_set = 0;  // fast: elements the batch pass handed back
    double seconds = 0;
};

// Spread over `threads` threads; `progress` (may be empty) is called about twice a second from
// the calling thread with the inputs compared so far, until the end or the first mismatch.
// [first, last) limits the inputs (bit patterns) compared; the CLI always compares all.
VerifyResult verify_all_inputs(const Profile& p, TableEvaluator& te, const FuncMeta& f, unsigned threads, bool fast,
                               const std::function<void(uint64_t done)>& progress = {}, uint64_t first = 0, uint64_t last = uint64_t{1} << 32);

}  // namespace neuronsim::model::pwp
