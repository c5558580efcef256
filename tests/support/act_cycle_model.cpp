#include "tests/support/act_cycle_model.h"

#include <vector>

namespace neuronsim::test {

CycleModelResult act_cycles_by_simulation(const platform::ActConfig& cfg, uint64_t elements, bool sixteen_bit_input, bool strided) {
    const uint64_t rate = sixteen_bit_input ? cfg.elems_per_cycle_16bit : cfg.elems_per_cycle_32bit;
    const uint64_t slowdown = strided ? cfg.strided_slowdown : 1;
    struct Slot {
        bool valid = false;   // an issue slot (element group or bubble) occupies the stage
        uint64_t elements = 0;
    };
    std::vector<Slot> stages(cfg.pipeline_latency_cycles);
    CycleModelResult r;
    uint64_t cycle = 0, issued = 0, issue_cycle = 0;
    bool issuing = false;
    for (;;) {
        ++cycle;
        if (cycle <= uint64_t{cfg.static_overhead_cycles} + cfg.access_startup_cycles) continue;  // no data moves yet
        issuing = issued < elements || issue_cycle < cfg.min_ii_cycles;
        // Shift the pipeline: the last stage writes its elements back.
        Slot out = stages.empty() ? Slot{} : stages.back();
        for (size_t s = stages.size(); s-- > 1;) stages[s] = stages[s - 1];
        Slot in;
        if (issuing) {
            in.valid = true;
            if (issued < elements && issue_cycle % slowdown == slowdown - 1) {
                in.elements = std::min(rate, elements - issued);
                issued += in.elements;
            }
            ++issue_cycle;
        }
        if (stages.empty()) out = in;
        else stages[0] = in;
        r.written += out.elements;
        bool busy = issuing;
        for (const Slot& s : stages) busy |= s.valid;
        if (!busy && r.written == elements) break;  // this cycle wrote the last slot back
    }
    r.cycles = cycle;
    return r;
}

}  // namespace neuronsim::test
