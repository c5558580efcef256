#pragma once
// Weighted least-squares cubic fits for the table generator. Coefficients come out as float32
// in the evaluator's form d0 + d1 t + d2 t^2 + d3 t^3, t = s - x.
#include <functional>

#include "model/pwp/profile.h"

namespace neuronsim::model::pwp {

// Fits g over [a, b] about the breakpoint x (a float), weighting each sample by
// 1/max(|g|, floor) so the error is relative where g is away from zero. The float rounding of
// d1..d3 is compensated in d0.
Section fit_cubic(const std::function<double(double)>& g, double a, double b, float x);

// As fit_cubic about x = 0 with d0 fixed to g(0) rounded: the low clamp near the origin.
Section fit_cubic_at_zero(const std::function<double(double)>& g, double edge);

}  // namespace neuronsim::model::pwp
