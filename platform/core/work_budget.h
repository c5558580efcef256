#pragma once
// Bounds on the work a trace can ask for (run.max_*): a pathological access pattern (step 0,
// 65535^3 elements) or a runaway trace becomes an error naming the limit and its config key
// before the work starts, instead of a run that never ends. Checked the same way with and
// without numerics, so a timing-only run fails where the full run would.
#include <cstdint>
#include <string>

#include "platform/config.h"

namespace neuronsim::platform {

class WorkBudget {
public:
    explicit WorkBudget(const RunConfig& limits) : limits_(limits) {}
    // One instruction's elements (all partitions) on ACT or POOL.
    void elements(uint64_t n, const std::string& what);
    // One DMA job's bytes.
    void dma_bytes(uint64_t n, const std::string& what);
    uint64_t elements_used() const { return elements_; }
    uint64_t dma_bytes_used() const { return bytes_; }

private:
    RunConfig limits_;
    uint64_t elements_ = 0, bytes_ = 0;
};

}  // namespace neuronsim::platform
