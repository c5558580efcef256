#pragma once
// What an ACT instruction reads and writes, for deciding which instructions of the ACT stream
// may change places (docs/workloads.md, "The reordering rule"). Two instructions are
// independent when neither writes bytes the other reads or writes (SBUF/PSUM byte ranges per
// partition range, pointer operands included), they do not both use the accumulator, and
// neither is "fixed". Fixed: a semaphore wait or update (the stream's order against other
// engines), a register-sourced operand (its address is known only at run time), and anything
// that is not a table load or an Activate / ActivateQuantize / Activate2 / ReadAccumulator.
#include <cstdint>
#include <string>
#include <vector>

#include "model/isa/bundle.h"
#include "model/isa/layouts.h"
#include "model/isa/region.h"

namespace neuronsim::model::workloads {

using isa::Region;

struct ActAccess {
    enum class Kind { TableLoad, Compute, ReadAccumulator, Other } kind = Kind::Other;
    bool fixed = false;
    std::string why_fixed;  // "waits on semaphore 3", ...
    int set = -1;  // TableLoad
    int func_id = -1;  // Compute
    std::vector<Region> reads, writes;
    bool accumulator = false;  // uses the ACT accumulator
};

// Decodes an ACT-stream bundle. Malformed operands are errors (the caller adds file:line).
ActAccess act_access(const isa::Bundle& b);
// True when `a` and `b` must keep their order.
bool conflict(const ActAccess& a, const ActAccess& b);

}  // namespace neuronsim::model::workloads
