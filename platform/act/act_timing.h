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
    struct Stages {
        uint64_t cycles[4];
    };
    Stages compute(uint64_t elements_per_partition, model::fp::Dtype in, model::fp::Dtype out, bool strided) const {
        return {
            {cfg->static_overhead_cycles, cfg->access_startup_cycles, stream_cycles(elements_per_partition, in, out, strided), cfg->pipeline_latency_cycles}};
    }
    Stages read_accumulator() const {
        return {{cfg->static_overhead_cycles, cfg->access_startup_cycles, cfg->accumulator_readout_cycles, cfg->pipeline_latency_cycles}};
    }
};

// The four stages' state: when each takes its next instruction.
class ActPipeline {
public:
    struct Slot {
        uint64_t start = 0;  // enters the first stage (issues)
        uint64_t moved_on = 0;  // leaves the first stage: the sequencer is free
        uint64_t end = 0;  // leaves the last stage (its results are committed)
    };
    // An instruction that may enter the first stage from `earliest`, with its stages' times.
    Slot issue(uint64_t earliest, const uint64_t (&ps)[4]) {
        const uint64_t start = std::max(earliest, free_[0]);
        uint64_t at = start;
        for (int k = 0; k < 4; ++k) {
            at = std::max(at, free_[k]);  // stage k takes it ...
            if (k) free_[k - 1] = at;  // ... which frees stage k-1
            at += ps[k];
        }
        free_[3] = at;
        return {start, free_[0], at};
    }
    // The sequencer alone, for `ps` (a DGE trigger, a table load's issue).
    Slot sequencer(uint64_t earliest, uint64_t ps) {
        const uint64_t start = std::max(earliest, free_[0]);
        free_[0] = start + ps;
        return {start, start + ps, start + ps};
    }
    // Everything issued has left the pipeline.
    uint64_t drained() const { return free_[3]; }

private:
    uint64_t free_[4] = {0, 0, 0, 0};
};

}  // namespace neuronsim::platform
