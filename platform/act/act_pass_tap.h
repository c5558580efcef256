#pragma once
// A benchmark's window on ACT's batch passes (bench/run_vs_passes_bench.cpp): while a tap is
// set, it sees each instruction's decoded table when the instruction resolves its function, and
// every batch of inputs the engine then hands to model::pwp::fast_pass, so the benchmark can
// time the same passes alone. Unset (the default) it costs one atomic load per instruction and
// per batch of 512 elements. Process-wide and not for virtual platforms: batches come from
// whichever host thread evaluates them (a tap that keeps them runs the simulation on one).
#include <cstddef>

#include "model/pwp/flat_table.h"

namespace neuronsim::platform {

class ActPassTap {
public:
    virtual ~ActPassTap() = default;
    // The table the instruction's batches use (valid until the instruction ends).
    virtual void table(const model::pwp::FlatTable& table) = 0;
    virtual void batch(const float* in, size_t n) = 0;
};

// nullptr removes the tap. The caller keeps `tap` alive until it is removed.
void set_act_pass_tap(ActPassTap* tap);
ActPassTap* act_pass_tap();

}  // namespace neuronsim::platform
