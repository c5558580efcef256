#pragma once
// The per-ISA kernels behind fast_pass (fast_eval.cpp dispatches). Each evaluates n elements
// and returns the number of flagged indices written to `flagged`. The SIMD ones are compiled
// with a target attribute, so the baseline build still runs on any x86-64.
#include <cstddef>
#include <cstdint>

#include "model/pwp/flat_table.h"

namespace neuronsim::model::pwp::detail {

size_t fast_pass_scalar(const FlatTable& t, const float* in, float* out, size_t n, uint32_t* flagged, uint32_t index0);
size_t fast_pass_avx2(const FlatTable& t, const float* in, float* out, size_t n, uint32_t* flagged);
size_t fast_pass_avx512(const FlatTable& t, const float* in, float* out, size_t n, uint32_t* flagged);

// 2^-49: the relative width of the rounding-safety interval (fast_eval.h).
inline constexpr double kSafety = 1.0 / 562949953421312.0;

}  // namespace neuronsim::model::pwp::detail
