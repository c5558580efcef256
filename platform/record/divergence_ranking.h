#pragma once
// --cost-model: the instructions whose simulated time differs most from the compiler's
// estimate, kept as they complete (at most five, largest |simulated - model| first, ties in
// completion order), for the run summary.
#include <string>
#include <vector>

#include "platform/record/instruction_record.h"

namespace neuronsim::platform::record {

struct Divergence {
    std::string instruction, mnemonic, source, formula;  // "act#3"
    double simulated_ns = 0, model_ns = 0;
    std::string why;
};

class DivergenceRanking {
public:
    static constexpr size_t kKept = 5;
    void add(const InstructionRecord& r);  // one with an estimate (model_ns >= 0)
    const std::vector<Divergence>& top() const { return top_; }

private:
    std::vector<Divergence> top_;
};

}  // namespace neuronsim::platform::record
