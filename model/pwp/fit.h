#pragma once
// Minimax cubic fits for the table generator. Coefficients come out as float32 in the
// evaluator's form d0 + d1 t + d2 t^2 + d3 t^3, t = s - x, fitted so that the weighted error
// max w(s) |p(s) - g(s)| is as small as float coefficients allow: each coefficient is rounded
// to float in turn (highest degree first) and the lower ones are re-fitted around it.
#include <functional>

#include "model/pwp/profile.h"

namespace neuronsim::model::pwp {

struct FitTarget {
    std::function<double(double)> g;  // the stored region's function
    std::function<double(double)> weight;  // of the value g(s): 1 / the scale of its error (> 0)
};

// Fits g over [a, b] about the breakpoint x (a float inside [a, b], so that t = s - x is exact
// in float for every input of the bucket: Sterbenz). Where a coefficient would overflow float
// (1/sqrt(s) far below 1) the degree drops.
Section fit_minimax(const FitTarget& t, double a, double b, float x);

// As fit_minimax, with the breakpoint moved by up to `steps` floats from x to where the cubic's
// value d0 = p(x) lies nearest a float: d0's rounding shifts the whole error curve, which
// matters where an ulp of the stored value is large against the bar (sigmoid's 1 - r).
Section fit_minimax_snapped(const FitTarget& t, double a, double b, float x, int steps);

// The last bits: the cascade rounds one coefficient at a time; this searches +-2 float steps
// of each of d0..d3 (coordinate descent) for the smallest weighted error in exact arithmetic
// on a grid twice as dense as the fit's. The evaluator's own rounding (d0 + d1 t in float,
// the final conversion) is noise no choice of bits removes, so it is not the objective.
Section polish_bits(const FitTarget& t, const Section& s, double a, double b);

// The largest weighted error w(s) |p(s) - g(s)| of a section over [a, b] on the fit's grid,
// in exact arithmetic (the evaluator's float rounding not included).
double fit_error(const FitTarget& t, const Section& s, double a, double b);

// The low clamp: a cubic about x = 0 over [min(0, edge), max(0, edge)] with d0 = g(0) rounded
// (tiny inputs return f(0), or keep their relative accuracy where f(0) = 0), fitted on a grid
// that reaches down to edge * 2^-40 so the error stays small near 0.
Section fit_minimax_at_zero(const FitTarget& t, double edge);

}  // namespace neuronsim::model::pwp
