#pragma once
// evaluate_generic, bit for bit as the reference model computes it (seed 001 §4-§7,
// seed 003 §4), over a Profile in memory. The input is already pre-scaled; this never
// re-scales. Built with -ffp-contract=off: a fused multiply-add would change results.
#include <cstddef>
#include <cstdint>

#include "model/common/error.h"
#include "model/pwp/pipeline.h"
#include "model/pwp/profile.h"

namespace neuronsim::model::pwp {

// Where the reference asserts "Unhandled section in simulation": the input's octave has
// fewer stored sections than its mantissa addresses (or is not declared at all).
class UnhandledSection : public Error {
public:
    UnhandledSection(const std::string& function, const std::string& source, uint32_t input_bits, uint32_t sel_bits, int biased_octave, uint32_t bucket,
                     uint32_t stored);
    uint32_t input_bits;
};

float evaluate_generic(const Profile& p, float v);

// out[i] = evaluate_generic(p, in[i]); stops at the first UnhandledSection (rethrown).
void evaluate_generic_n(const Profile& p, const float* in, float* out, size_t n);

}  // namespace neuronsim::model::pwp
