#include "tests/support/act_cycle_model.h"

#include <algorithm>
#include <vector>

namespace neuronsim::test {

namespace {
constexpr uint64_t kPartitions = 128, kStatic = 100, kAccessStartup = 60, kMinII = 64;
}

uint64_t public_act_elements_per_cycle(int nc_version, model::fp::Dtype in) {
    using model::fp::Dtype;
    const bool small_float = in == Dtype::Bfloat16 || in == Dtype::Fp16 || in == Dtype::Fp8Exp3 || in == Dtype::Fp8Exp4 || in == Dtype::Fp8Exp5;
    return nc_version >= 4 && small_float ? 256 : 128;
}

CycleModelResult act_cycles_by_simulation(int nc_version, model::fp::Dtype in, uint64_t n, uint32_t active, bool strided, uint32_t latency) {
    const uint64_t engine_rate = public_act_elements_per_cycle(nc_version, in);
    const uint64_t lane_rate = engine_rate / kPartitions;
    std::vector<uint64_t> left(active, n);           // per active partition
    std::vector<uint64_t> in_flight(latency + 1, 0);  // elements issued k cycles ago, not yet written
    CycleModelResult r;
    const uint64_t total = n * active;
    uint64_t cycle = 0, issue_cycles = 0, issued = 0;
    bool slots_in_flight;
    std::vector<bool> slot(latency + 1, false);
    for (;;) {
        ++cycle;
        if (cycle <= kStatic + kAccessStartup) continue;
        const bool issuing = issued < total || issue_cycles < kMinII;
        uint64_t now = 0;
        if (issuing) {
            // The read port delivers every cycle, or every other cycle under a large stride.
            const bool delivers = !strided || issue_cycles % 2 == 1;
            if (delivers) {
                uint64_t budget = engine_rate;
                for (uint64_t& l : left) {
                    const uint64_t take = std::min({lane_rate, l, budget});
                    l -= take;
                    budget -= take;
                    now += take;
                }
            }
            issued += now;
            ++issue_cycles;
        }
        // Shift the pipeline by one stage; the last stage writes back what was issued
        // `latency` cycles ago (latency 0: this cycle's issue).
        for (size_t s = latency; s > 0; --s) {
            in_flight[s] = in_flight[s - 1];
            slot[s] = slot[s - 1];
        }
        in_flight[0] = now;
        slot[0] = issuing;
        r.written += in_flight[latency];
        slots_in_flight = false;
        for (size_t s = 0; s < latency; ++s) slots_in_flight = slots_in_flight || slot[s];
        const bool issue_done = issued == total && issue_cycles >= kMinII;
        if (issue_done && !slots_in_flight && r.written == total) break;  // this cycle wrote the last slot back
    }
    r.cycles = cycle;
    return r;
}

}  // namespace neuronsim::test
