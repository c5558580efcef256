#pragma once
// The fast, bit-exact ACT element path over a FlatTable (flat_table.h). A branch-free pass
// evaluates a batch with explicit SIMD (AVX-512 or AVX2, chosen at run time; a scalar loop on
// any other x86-64) and flags the elements it cannot decide; those, and only those, go through
// the reference path (evaluate_generic or the table-memory evaluator), which stays the oracle.
//
// Why it is exact: the reference computes the cube with libm pow(t, 3.0); the pass computes
// t*t*t in double (t*t is exact, so this is the correctly rounded cube). The two differ by at
// most an ulp or so, which moves the double result r by less than
// B = 2^-49 * (|d3*t^3| + |r|); when r - B and r + B convert to the same binary32 bits, so does
// the reference's r (conversion is monotonic). Otherwise the element is flagged. Also flagged:
// a NaN result (its payload depends on operand order inside the reference's compiled code), a
// selection the reference would throw on (invalid octave, bucket or clamp section).
// -ffp-contract=off applies: no fused multiply-add anywhere.
#include <cstddef>
#include <cstdint>

#include "model/common/simd_level.h"
#include "model/pwp/flat_table.h"
#include "model/pwp/profile.h"

namespace neuronsim::model::pwp {

using model::active_simd_level;
using model::best_simd_level;
using model::simd_name;
using model::SimdLevel;

// out[i] for every i < n; the indices the pass could not decide are written to `flagged`
// (capacity n), in increasing order, and counted in the return value. out[i] of a flagged
// element is unspecified until the caller evaluates it by the reference path.
size_t fast_pass(const FlatTable& t, const float* in, float* out, size_t n, uint32_t* flagged);
size_t fast_pass(const FlatTable& t, const float* in, float* out, size_t n, uint32_t* flagged, SimdLevel level);

// One element, scalar: false when it needs the reference path (out is then unspecified).
bool fast_one(const FlatTable& t, float v, float& out);

// out[i] = ref(in[i]) for every i, bit for bit, with the reference called only for flagged
// elements, in increasing order. If ref throws, out[] past the failing element may already
// hold results.
template <class Ref>
void evaluate_fast_n(const FlatTable& t, const float* in, float* out, size_t n, Ref&& ref) {
    constexpr size_t kChunk = 1024;
    uint32_t flagged[kChunk];
    for (size_t at = 0; at < n; at += kChunk) {
        const size_t m = n - at < kChunk ? n - at : kChunk;
        const size_t k = fast_pass(t, in + at, out + at, m, flagged);
        for (size_t j = 0; j < k; ++j) out[at + flagged[j]] = ref(in[at + flagged[j]]);
    }
}

// evaluate_generic_n(p, in, out, n) through the fast path; t = flatten_profile(p).
void evaluate_profile_fast_n(const Profile& p, const FlatTable& t, const float* in, float* out, size_t n);

}  // namespace neuronsim::model::pwp
