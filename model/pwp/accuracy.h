#pragma once
// Accuracy of a generated (or any) profile against the function's closed form, measured with
// evaluate_generic over a dense sweep of every octave of the valid domain.
#include <cstdint>
#include <string>

#include "model/pwp/catalog.h"
#include "model/pwp/profile.h"

namespace neuronsim::model::pwp {

struct Accuracy {
    std::string function;        // "exp_400p"
    size_t lut_size = 0;
    uint64_t samples = 0;
    double max_rel = 0;          // max |y - f| / |f| over samples with |f| >= FLT_MIN
    double mean_rel = 0;
    double max_ulp = 0;          // max distance in float steps
    double max_norm = 0;         // max |y - f| / max(1e-5 |f|, 1e-6): <= 1 meets the bar
    uint32_t worst_input = 0;    // bits of the input with the largest normalised error
    uint32_t worst_output = 0, worst_expected = 0;
    uint32_t worst_rel_input = 0;  // bits of the input with the largest relative error
    uint64_t unhandled = 0;      // inputs evaluate_generic could not evaluate
    uint64_t failing = 0;        // samples over the bar (normalised error > 1)
    double fail_lo = 0, fail_hi = 0;  // smallest and largest |x| among them
    bool pass() const { return max_norm <= 1.0 && unhandled == 0; }
};

// `per_octave` evenly spaced mantissas per octave (4096 by default), both signs where the
// domain has them.
Accuracy measure_accuracy(const CatalogFn& fn, const Profile& p, uint32_t per_octave = 4096);

// Distance between two floats in representable steps (0 for equal, incl. equal infinities).
double ulp_distance(float a, float b);

}  // namespace neuronsim::model::pwp
