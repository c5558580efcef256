#pragma once
// The four-stage pipeline of the datapath engines (ACT, VectorE; docs/timing-model.md): the
// static instruction overhead (the sequencer), the SBUF/PSUM access start-up, streaming and
// the drain, one instruction in each stage at a time, each held until the next stage takes it.
// Independent instructions overlap: back to back they issue every max(stage) cycles. Plain
// C++; times in picoseconds.
#include <algorithm>
#include <cstdint>

namespace neuronsim::platform {

struct StageCycles {
    uint64_t cycles[4];
};

// The four stages' state: when each takes its next instruction.
class StagePipeline {
public:
    struct Slot {
        uint64_t start = 0;  // enters the first stage (issues)
        uint64_t moved_on = 0;  // leaves the first stage: the sequencer is free
        uint64_t end = 0;  // leaves the last stage (its results are committed)
        uint64_t streaming = 0;  // enters the streaming stage (the third)
    };
    // An instruction that may enter the first stage from `earliest`, with its stages' times.
    Slot issue(uint64_t earliest, const uint64_t (&ps)[4]) {
        const uint64_t start = std::max(earliest, free_[0]);
        uint64_t at = start, streaming = 0;
        for (int k = 0; k < 4; ++k) {
            at = std::max(at, free_[k]);  // stage k takes it ...
            if (k) free_[k - 1] = at;  // ... which frees stage k-1
            if (k == 2) streaming = at;
            at += ps[k];
        }
        free_[3] = at;
        return {start, free_[0], at, streaming};
    }
    // The sequencer alone, for `ps` (a DGE trigger, a table load's issue).
    Slot sequencer(uint64_t earliest, uint64_t ps) {
        const uint64_t start = std::max(earliest, free_[0]);
        free_[0] = start + ps;
        return {start, start + ps, start + ps, start + ps};
    }
    // Everything issued has left the pipeline.
    uint64_t drained() const { return free_[3]; }

private:
    uint64_t free_[4] = {0, 0, 0, 0};
};

}  // namespace neuronsim::platform
