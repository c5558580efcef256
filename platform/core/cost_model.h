#pragma once
// The estimate a compiler or a kernel author would make for one instruction, from the public
// and compiler formulas (hardware-facts §E, public-figures §1.4, §2, §4), for `run
// --cost-model`: shown beside the simulated time so users see where the two disagree. It is a
// reference, never used for the simulated time. Plain C++.
#include <cstdint>
#include <string>

#include "platform/config.h"

namespace neuronsim::platform {

struct InstructionShape {
    uint8_t opcode = 0;
    uint64_t n = 0;  // elements per partition
    uint32_t rows = 0;  // DMA rows
    uint64_t bytes = 0;  // DMA bytes over all rows
    uint8_t in_dtype = 0, out_dtype = 0;
    // DMA: the rows of the engine that moves most of them (8 for 128 spread partitions, all
    // when pinned to one engine), and who generated the descriptors.
    uint32_t busiest_rows = 0;
    bool pinned = false;
    enum class Dge : uint8_t { None, Hardware, Software } dge = Dge::None;
};

struct CostEstimate {
    double ns = -1;  // -1: no formula for this opcode
    std::string formula;  // which formula, with its numbers
};

CostEstimate cost_estimate(const Config& cfg, const InstructionShape& s);

// Why the simulation's issue-to-completion time differs from the estimate, in words ("" when
// they agree within 1%): which of neuronsim's rules (docs/timing-model.md) the formula leaves
// out, and what is left (queueing behind other work).
std::string divergence_reason(const Config& cfg, const InstructionShape& s, double simulated_ns, double model_ns);

}  // namespace neuronsim::platform
