#include "model/pwp/fast_eval.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "model/fp/bits.h"
#include "model/pwp/evaluate.h"
#include "model/pwp/fast_eval_kernels.h"

namespace neuronsim::model::pwp {

using fp::bits_of;
using fp::float_of;

bool fast_one(const FlatTable& t, float v, float& out) {
    const uint32_t u = bits_of(v);
    const uint32_t a = u & 0x7FFFFFFFu;
    // Special values: the reference returns the table's bits without arithmetic.
    if (a == 0) {
        out = float_of(t.zero_bits);
        return true;
    }
    if (a == 0x7F800000u) {
        out = float_of(u >> 31 ? t.ninf_bits : t.pinf_bits);
        return true;
    }
    const uint32_t sel = t.sym_en ? (a | (t.sym_neg ? 0x80000000u : 0u)) : u;
    const int side = static_cast<int>(sel >> 31);
    const int32_t k = static_cast<int32_t>(sel & 0x7FFFFFFFu);
    const int e = k > t.high_above[side] ? FlatTable::kHighEntry : k <= t.low_upto[side] ? FlatTable::kLowEntry : (k >> 23);
    const size_t ei = static_cast<size_t>(side * FlatTable::kEntriesPerSide + e);
    const uint32_t sc = t.entry_shift_count[ei];
    const uint32_t bucket = (static_cast<uint32_t>(k) & 0x7FFFFFu) >> (sc & 31u);
    if (bucket >= (sc >> 5)) return false;  // the reference throws here
    const size_t i = static_cast<size_t>(t.entry_base[ei]) + bucket;

    // The reference's rounding sequence, with the cube as (t*t)*t in double.
    const float tf = float_of(sel) - t.x[i];
    float lo = tf * t.d1[i];
    lo = lo + t.d0[i];
    const double td = tf;
    const double q = static_cast<double>(lo) + td * td * static_cast<double>(t.d2[i]);
    const double p = td * td * td * static_cast<double>(t.d3[i]);
    const double r = p + q;
    if (std::isnan(r)) return false;
    if (std::isfinite(p) && std::isfinite(r)) {
        const double b = (std::fabs(p) + std::fabs(r)) * detail::kSafety;
        if (bits_of(static_cast<float>(r - b)) != bits_of(static_cast<float>(r + b))) return false;
    }
    float res = static_cast<float>(r);
    if ((u >> 31) && t.sym_en) {
        if (t.sym_invert) res = -res;
        res = res + t.sym_point;
    }
    if (std::isnan(res)) return false;
    out = res;
    return true;
}

namespace detail {

size_t fast_pass_scalar(const FlatTable& t, const float* in, float* out, size_t n, uint32_t* flagged, uint32_t index0) {
    size_t k = 0;
    for (size_t i = 0; i < n; ++i)
        if (!fast_one(t, in[i], out[i])) flagged[k++] = index0 + static_cast<uint32_t>(i);
    return k;
}

}  // namespace detail

size_t fast_pass(const FlatTable& t, const float* in, float* out, size_t n, uint32_t* flagged, SimdLevel level) {
    if (static_cast<int>(level) > static_cast<int>(best_simd_level())) level = best_simd_level();
    switch (level) {
        case SimdLevel::Avx512: return detail::fast_pass_avx512(t, in, out, n, flagged);
        case SimdLevel::Avx2: return detail::fast_pass_avx2(t, in, out, n, flagged);
        default: return detail::fast_pass_scalar(t, in, out, n, flagged, 0);
    }
}

size_t fast_pass(const FlatTable& t, const float* in, float* out, size_t n, uint32_t* flagged) {
    return fast_pass(t, in, out, n, flagged, active_simd_level());
}

void evaluate_profile_fast_n(const Profile& p, const FlatTable& t, const float* in, float* out, size_t n) {
    evaluate_fast_n(t, in, out, n, [&p](float v) { return evaluate_generic(p, v); });
}

}  // namespace neuronsim::model::pwp
