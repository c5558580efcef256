#pragma once
// The estimate a compiler or a kernel author would make for one instruction, from the public
// and compiler formulas (hardware-facts §E, public-figures §1.4, §2, §4), for `run
// --cost-model`: shown beside the simulated time so users see where the two disagree. It is a
// reference, never used for the simulated time. Plain C++.
#include <cstdint>
#include <string>

#include "platform/config/config.h"

namespace neuronsim::platform {

struct InstructionShape {
    uint8_t opcode = 0;
    uint64_t n = 0;              // elements per partition
    uint32_t rows = 0;           // DMA rows
    uint64_t bytes = 0;          // DMA bytes over all rows
    uint8_t in_dtype = 0, out_dtype = 0;
};

struct CostEstimate {
    double ns = -1;              // -1: no formula for this opcode
    std::string formula;         // which formula, with its numbers
};

CostEstimate cost_estimate(const Config& cfg, const InstructionShape& s);

}  // namespace neuronsim::platform
