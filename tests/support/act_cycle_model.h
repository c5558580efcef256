#pragma once
// A per-cycle model of the ACT lookup pipeline, used only by tests to check the clockless
// timing of platform/act/act_timing.h. It steps one cycle at a time: the static overhead and
// the SBUF/PSUM access start-up pass first; then the issue stage runs for at least the
// minimum initiation interval, reading `rate` elements every `slowdown` cycles (a bubble
// otherwise) into a chain of `pipeline_latency` stage registers (CAM, PROFILE, CONTROL,
// BUCKET, the cubic stages, symmetry/special post-processing, write-back); the instruction is
// done in the cycle the last issue slot leaves the last stage (its write-back), with every
// element written: an issue slot takes pipeline_latency cycles from issue to write-back.
#include <cstdint>

#include "platform/config/config.h"

namespace neuronsim::test {

struct CycleModelResult {
    uint64_t cycles = 0;
    uint64_t written = 0;
};

CycleModelResult act_cycles_by_simulation(const platform::ActConfig& cfg, uint64_t elements, bool sixteen_bit_input, bool strided);

}  // namespace neuronsim::test
