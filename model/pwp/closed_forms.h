#pragma once
// The exact closed forms of the reference simulator's sim_<fn> kernels: its no-profile
// numerics and the target the PWP tables approximate. Seed 003 §5 gives the constants
// (sqrt2, 1/sqrt2, sqrt(2/pi), 1/sqrt(2pi), 2/sqrt(pi), 0.044715, 1.702, Lrelu slope 0.01);
// the per-function formula table it refers to did not survive into our copy, so the formulas
// and their float/double precision are this project's reconstruction, documented per function
// in closed_forms.cpp. Composites call the exact inner helpers, as the reference does.
#include "model/pwp/act_fn.h"

namespace neuronsim::model::pwp {

float exact(ActFn fn, float x, float alpha);

// Functions outside the simulator's dispatch that the table generator also fits.
float exact_derivative_sigmoid(float x);
float exact_derivative_tanh(float x);

}  // namespace neuronsim::model::pwp
