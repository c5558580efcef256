#pragma once
// Cycle-approximate ACT instruction time (public-figures §1.4), all parameters from the
// config: static overhead + access start-up + pipeline latency + max(minimum initiation
// interval, ceil(N / rate) x slowdown). N counts elements per partition: every partition
// (lane) streams its own elements in parallel, so the partition count does not enter. The
// rate is the input dtype's `act.elems_per_partition_cycle` (1; 2 for 16- and 8-bit floats
// on v4+), the slowdown applies when an innermost stride is 16 bytes or more. Plain C++; the
// tests check it against a per-cycle model written from the public figures.
#include <cstdint>

#include "model/fp/dtype.h"
#include "platform/config/config.h"

namespace neuronsim::platform {

struct ActTiming {
    const ActConfig* cfg = nullptr;
    uint64_t rate(model::fp::Dtype in) const { return cfg->rate(model::fp::dtype_name(static_cast<uint8_t>(in))); }
    uint64_t stream_cycles(uint64_t elements_per_partition, model::fp::Dtype in, bool strided) const {
        const uint64_t r = rate(in);
        return (elements_per_partition + r - 1) / r * (strided ? cfg->strided_slowdown : 1);
    }
    uint64_t activate_cycles(uint64_t elements_per_partition, model::fp::Dtype in, bool strided) const {
        const uint64_t s = stream_cycles(elements_per_partition, in, strided);
        return uint64_t{cfg->static_overhead_cycles} + cfg->access_startup_cycles + cfg->pipeline_latency_cycles +
               (s > cfg->min_ii_cycles ? s : cfg->min_ii_cycles);
    }
    uint64_t read_accumulator_cycles() const { return cfg->accumulator_readout_cycles; }
};

}  // namespace neuronsim::platform
