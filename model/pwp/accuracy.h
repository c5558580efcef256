#pragma once
// Accuracy of a generated (or any) profile against the function's closed form, measured with
// evaluate_generic over a dense sweep of every octave of the valid domain.
//
// The bar (docs/pwp-tables.md, "The generator"): |y - f| <= 1e-6 |f|, or 1e-7 where |f| < 0.1. Its score is
// |y - f| / max(|f|, 0.1): relative error where |f| >= 0.1, ten times the absolute error below;
// a table meets the bar where the score is at most 1e-6.
#include <cstdint>
#include <string>

#include "model/pwp/catalog.h"
#include "model/pwp/profile.h"

namespace neuronsim::model::pwp {

constexpr double kAccuracyBar = 1e-6;

// The error score of output y against the expected c (0 for equal infinities, inf for one).
double error_score(float y, float c);

struct Accuracy {
    std::string function;  // "exp_400p"
    size_t lut_size = 0;
    uint64_t samples = 0;
    double max_rel = 0;  // max |y - f| / |f| over samples with |f| >= FLT_MIN
    double mean_rel = 0;
    double max_ulp = 0;  // max distance in float steps
    uint32_t worst_rel_input = 0;  // bits of the input with the largest relative error
    uint64_t unhandled = 0;  // inputs evaluate_generic could not evaluate
    // The certified domain (CatalogFn::certified): its worst score and where.
    uint64_t certified_samples = 0;
    double max_score = 0;
    uint32_t worst_input = 0;  // bits of the certified input with the largest score
    uint32_t worst_output = 0, worst_expected = 0;
    uint64_t failing = 0;  // certified samples over the bar
    double fail_lo = 0, fail_hi = 0;  // smallest and largest |x| among them
    // Outside the certified domain (still in the sweep): the largest score, for the report.
    double max_score_outside = 0;
    uint32_t worst_outside_input = 0;
    bool pass() const { return max_score <= kAccuracyBar && unhandled == 0; }
};

// `per_octave` evenly spaced mantissas per octave (4096 by default), both signs where the
// domain has them.
Accuracy measure_accuracy(const CatalogFn& fn, const Profile& p, uint32_t per_octave = 4096);

// Distance between two floats in representable steps (0 for equal, incl. equal infinities).
double ulp_distance(float a, float b);

}  // namespace neuronsim::model::pwp
