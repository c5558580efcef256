#pragma once
// ACT instruction time (docs/timing-model.md, "ACT"), from the config: an instruction passes
// four stages in order, one instruction in each at a time, and holds a stage until the next
// takes it: the static instruction overhead (the sequencer), the SBUF/PSUM access start-up,
// streaming (max(min_ii, ceil(N / rate) x slowdown) cycles, N elements per partition: the
// partitions stream in parallel) and the pipeline's drain. Independent instructions overlap:
// back to back they issue every max(static, access, stream, drain) cycles. An instruction that
// reads what an earlier one writes enters the first stage only once that one has completed,
// so the whole static + access + stream + drain shows. Plain C++; times in picoseconds.
#include <algorithm>
#include <cstdint>

#include "model/fp/dtype.h"
#include "platform/config.h"
#include "platform/core/stage_pipeline.h"

namespace neuronsim::platform {

struct ActTiming {
    const ActConfig* cfg = nullptr;
    // Elements per partition per cycle: the lower of the input's and the output's rates
    // (public-figures §0: 256/cycle for BF16/FP16/FP8 input/output on v4, 128 otherwise).
    uint64_t rate(model::fp::Dtype in, model::fp::Dtype out) const {
        return std::min(cfg->rate(model::fp::dtype_name(static_cast<uint8_t>(in))), cfg->rate(model::fp::dtype_name(static_cast<uint8_t>(out))));
    }
    uint64_t stream_cycles(uint64_t elements_per_partition, model::fp::Dtype in, model::fp::Dtype out, bool strided) const {
        const uint64_t r = rate(in, out);
        const uint64_t s = (elements_per_partition + r - 1) / r * (strided ? cfg->strided_slowdown : 1);
        return std::max<uint64_t>(s, cfg->min_ii_cycles);
    }
    // The four stages' cycles of an Activate / ActivateQuantize / Activate2, and of a ReadAccumulator.
    using Stages = StageCycles;
    Stages compute(uint64_t elements_per_partition, model::fp::Dtype in, model::fp::Dtype out, bool strided) const {
        return {
            {cfg->static_overhead_cycles, cfg->access_startup_cycles, stream_cycles(elements_per_partition, in, out, strided), cfg->pipeline_latency_cycles}};
    }
    Stages read_accumulator() const {
        return {{cfg->static_overhead_cycles, cfg->access_startup_cycles, cfg->accumulator_readout_cycles, cfg->pipeline_latency_cycles}};
    }
};

using ActPipeline = StagePipeline;

}  // namespace neuronsim::platform
