#pragma once
// VectorE's arithmetic over arrays of binary32 values: the engine's fast path (issue 29), each
// function exactly the element loop of vector_ops.cpp (the oracle, which tests/model/dve holds
// these to bit for bit) with the operator chosen once per call instead of once per element.
// The engine converts a row's elements to binary32 (fp::to_f32_n), calls these in chunks and
// converts the results back (fp::from_f32_n).
#include <cstddef>

#include "model/dve/vector_ops.h"

namespace neuronsim::model::dve {

// out[i] = a[i] <op> b[i] (out may be a or b).
void alu_n(AluOp op, const float* a, const float* b, float* out, size_t n);
// x[i] = x[i] <op> v, or v <op> x[i] when `reverse`.
void scalar_n(AluOp op, bool reverse, float v, float* x, size_t n);
// acc <op> x[0] <op> ... <op> x[n-1], left to right (tensor_reduce's order).
float fold_n(ReduceOp op, float acc, const float* x, size_t n);
// x[i] = 1 / x[i].
void reciprocal_n(float* x, size_t n);
// bn_stats of one row of n <= kBnStatsMax elements: out = (count, mean, M2) of the even-indexed
// elements, then of the odd-indexed ones.
void bn_stats_row(const float* x, size_t n, float out[6]);

}  // namespace neuronsim::model::dve
