#pragma once
// A per-cycle model of one ACT instruction, written from the public figures alone
// (public-figures.md §0, §1.1, §1.4) and not from platform/act/act_timing.h or the configs'
// rates, so that it can catch a wrong rate there. It steps one cycle at a time:
//   - the static instruction overhead (~100 cycles) and the SBUF/PSUM access start-up (~60)
//     pass with no data moving;
//   - the read port then delivers the engine-wide figure of elements per cycle (128; 256 for
//     BF16/FP16/FP8 inputs on NC-v4 and later), at most its 1/128 share to each of the 128
//     partitions (one lane each), half as often when the innermost stride is 16 bytes or
//     more ("a larger stride halves bandwidth"); every active partition streams its own N
//     elements, for at least the minimum initiation interval (MIN_II ~64);
//   - each issue slot takes `pipeline_latency` cycles to write back (the one number here that
//     is neuronsim's assumption, taken from the config).
// ReadAccumulator is the public ~64 cycles.
#include <cstdint>

#include "model/fp/dtype.h"

namespace neuronsim::test {

struct CycleModelResult {
    uint64_t cycles = 0;
    uint64_t written = 0;  // elements written back, all partitions
};

// The engine-wide ScalarE datapath of public-figures §0 for an input type.
uint64_t public_act_elements_per_cycle(int nc_version, model::fp::Dtype in);

CycleModelResult act_cycles_by_simulation(int nc_version, model::fp::Dtype in, uint64_t elements_per_partition, uint32_t active_partitions,
                                          bool strided, uint32_t pipeline_latency);

inline constexpr uint64_t kPublicReadAccumulatorCycles = 64;

}  // namespace neuronsim::test
