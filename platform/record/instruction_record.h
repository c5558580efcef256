#pragma once
// What one instruction did, as the engine that ran it saw it: what the recordings (CSV,
// timeline), the stall attribution and the cost-model ranking are made of. Strings are
// pointers to long-lived names and text is formatted only when written: this runs once per
// instruction.
#include <cstdint>
#include <string>

#include <systemc>

#include "model/isa/bundle.h"

namespace neuronsim::platform {

struct InstructionRecord {
    const std::string* engine = nullptr;
    uint64_t index = 0;
    uint8_t opcode = 0;
    const std::string* mnemonic = nullptr;
    sc_core::sc_time ready, start, end;  // reached by its engine, issued, done
    double clock_ghz = 1;
    bool sem_wait = false;  // it waited for `wait` (a semaphore condition)
    model::isa::Events wait;
    const std::string* busy_resource = nullptr;  // it queued behind this busy resource ("queue dma.0")
    bool dependency = false;  // it waited for a result of released_by#released_index (its own engine)
    const std::string* released_by = nullptr;  // engine of the instruction whose update (or result) released the wait
    uint64_t released_index = 0;
    sc_core::sc_time released_at;
    const std::string* source_file = nullptr;  // the trace line it came from, when known
    uint64_t line = 0;
    const std::string* function = nullptr;  // ACT: the activation function (or set, kernel)
    uint64_t n = 0;  // ACT/POOL: elements per partition
    uint64_t elements = 0, bytes = 0;  // elements computed, bytes moved
    double model_ns = -1;  // --cost-model: the estimate, or -1
    std::string model_formula;
    std::string model_why;  // ... why the simulation differs (cost_model.h divergence_reason)

    // "semaphore 3 >= 2", "busy queue dma.0", "data from act", "semaphore 3 >= 2, then data
    // from act", or "".
    std::string stall_cause() const;
    // The cause as a stats key (letters, digits, '_'), without the semaphore's value (the stats
    // group the values): "semaphore0_ge", "busy_dma_0", "data_from_act"; with
    // `released_by_engine`, "..._released_by_dma_0".
    std::string stall_cause_key(const std::string* released_by_engine = nullptr) const;
    std::string source() const;  // "FILE:LINE" or ""
};

}  // namespace neuronsim::platform
