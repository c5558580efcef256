#pragma once
// Cycle-approximate ACT instruction time (public-figures §1.4), all parameters from the
// config: static overhead + access start-up + pipeline latency + max(minimum initiation
// interval, ceil(elements per partition / elements per cycle) x slowdown), where the rate is
// the 16-bit one for 16-bit input types on generations that have it, and the slowdown applies
// when an innermost stride is 16 bytes or more. Plain C++ so the per-cycle reference model in
// the tests can check it.
#include <cstdint>

#include "platform/config/config.h"

namespace neuronsim::platform {

struct ActTiming {
    const ActConfig* cfg = nullptr;
    uint64_t elems_per_cycle(bool sixteen_bit_input) const {
        return sixteen_bit_input ? cfg->elems_per_cycle_16bit : cfg->elems_per_cycle_32bit;
    }
    uint64_t stream_cycles(uint64_t elements, bool sixteen_bit_input, bool strided) const {
        const uint64_t epc = elems_per_cycle(sixteen_bit_input);
        return (elements + epc - 1) / epc * (strided ? cfg->strided_slowdown : 1);
    }
    uint64_t activate_cycles(uint64_t elements, bool sixteen_bit_input, bool strided) const {
        const uint64_t s = stream_cycles(elements, sixteen_bit_input, strided);
        return uint64_t{cfg->static_overhead_cycles} + cfg->access_startup_cycles + cfg->pipeline_latency_cycles +
               (s > cfg->min_ii_cycles ? s : cfg->min_ii_cycles);
    }
    uint64_t read_accumulator_cycles() const { return cfg->accumulator_readout_cycles; }
};

}  // namespace neuronsim::platform
