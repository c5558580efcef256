// fast_pass with AVX2, eight elements per step (fast_eval.h has the method). Compiled with a
// target attribute: only called when the CPU has AVX2.
#include <immintrin.h>

#include "model/pwp/fast_eval_kernels.h"

namespace neuronsim::model::pwp::detail {

namespace {

#define NEURONSIM_AVX2 __attribute__((target("avx2")))

// The double-precision half of four lanes: r = p + q with q = lo + (t*t)*d2 and
// p = ((t*t)*t)*d3, the float result, and the lanes the safety test cannot decide (4 bits).
NEURONSIM_AVX2 inline __m128 cubic4(__m128 tf, __m128 lo, __m128 d2, __m128 d3, int& undecided) {
    const __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
    const __m256d inf = _mm256_set1_pd(__builtin_inf());
    const __m256d td = _mm256_cvtps_pd(tf);
    const __m256d tt = _mm256_mul_pd(td, td);
    const __m256d q = _mm256_add_pd(_mm256_cvtps_pd(lo), _mm256_mul_pd(tt, _mm256_cvtps_pd(d2)));
    const __m256d p = _mm256_mul_pd(_mm256_mul_pd(tt, td), _mm256_cvtps_pd(d3));
    const __m256d r = _mm256_add_pd(p, q);
    const __m256d ap = _mm256_and_pd(p, abs_mask), ar = _mm256_and_pd(r, abs_mask);
    const __m256d b = _mm256_mul_pd(_mm256_add_pd(ap, ar), _mm256_set1_pd(kSafety));
    const __m128i below = _mm_castps_si128(_mm256_cvtpd_ps(_mm256_sub_pd(r, b)));
    const __m128i above = _mm_castps_si128(_mm256_cvtpd_ps(_mm256_add_pd(r, b)));
    const int same = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(below, above)));
    const int finite = _mm256_movemask_pd(_mm256_cmp_pd(ap, inf, _CMP_LT_OQ)) & _mm256_movemask_pd(_mm256_cmp_pd(ar, inf, _CMP_LT_OQ));
    const int nan = _mm256_movemask_pd(_mm256_cmp_pd(r, r, _CMP_UNORD_Q));
    undecided = nan | (finite & ~same & 0xF);
    return _mm256_cvtpd_ps(r);
}

}  // namespace

NEURONSIM_AVX2 size_t fast_pass_avx2(const FlatTable& t, const float* in, float* out, size_t n, uint32_t* flagged) {
    const __m256i abs_mask = _mm256_set1_epi32(0x7FFFFFFF);
    const __m256i sel_keep = _mm256_set1_epi32(t.sym_en ? 0x7FFFFFFF : -1);
    const __m256i sel_or = _mm256_set1_epi32(t.sym_en && t.sym_neg ? static_cast<int>(0x80000000u) : 0);
    const __m256i high0 = _mm256_set1_epi32(t.high_above[0]), high1 = _mm256_set1_epi32(t.high_above[1]);
    const __m256i low0 = _mm256_set1_epi32(t.low_upto[0]), low1 = _mm256_set1_epi32(t.low_upto[1]);
    const __m256i high_entry = _mm256_set1_epi32(FlatTable::kHighEntry), low_entry = _mm256_set1_epi32(FlatTable::kLowEntry);
    const __m256i side_entries = _mm256_set1_epi32(FlatTable::kEntriesPerSide);
    const __m256i mant_mask = _mm256_set1_epi32(0x7FFFFF), shift_mask = _mm256_set1_epi32(31);
    const __m256i inf_bits = _mm256_set1_epi32(0x7F800000), zero = _mm256_setzero_si256();
    const __m256 zero_result = _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int>(t.zero_bits)));
    const __m256 pinf_result = _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int>(t.pinf_bits)));
    const __m256 ninf_result = _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int>(t.ninf_bits)));
    const __m256 flip = _mm256_castsi256_ps(_mm256_set1_epi32(t.sym_invert ? static_cast<int>(0x80000000u) : 0));
    const __m256 sym_point = _mm256_set1_ps(t.sym_point);
    const int* ebase = t.entry_base.data();
    const int* esc = reinterpret_cast<const int*>(t.entry_shift_count.data());
    const float *xs = t.x.data(), *d0s = t.d0.data(), *d1s = t.d1.data(), *d2s = t.d2.data(), *d3s = t.d3.data();

    size_t k = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i u = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
        const __m256i a = _mm256_and_si256(u, abs_mask);
        const __m256i sel = _mm256_or_si256(_mm256_and_si256(u, sel_keep), sel_or);
        const __m256i side = _mm256_srai_epi32(sel, 31);
        const __m256i key = _mm256_and_si256(sel, abs_mask);
        // Section selection: clamp high, else clamp low, else the octave of the key.
        const __m256i is_high = _mm256_cmpgt_epi32(key, _mm256_blendv_epi8(high0, high1, side));
        const __m256i not_low = _mm256_cmpgt_epi32(key, _mm256_blendv_epi8(low0, low1, side));
        __m256i e = _mm256_blendv_epi8(low_entry, _mm256_srli_epi32(key, 23), not_low);
        e = _mm256_blendv_epi8(e, high_entry, is_high);
        e = _mm256_add_epi32(e, _mm256_and_si256(side, side_entries));
        const __m256i base = _mm256_i32gather_epi32(ebase, e, 4);
        const __m256i sc = _mm256_i32gather_epi32(esc, e, 4);
        const __m256i bucket = _mm256_srlv_epi32(_mm256_and_si256(key, mant_mask), _mm256_and_si256(sc, shift_mask));
        const __m256i valid = _mm256_cmpgt_epi32(_mm256_srli_epi32(sc, 5), bucket);
        const __m256i idx = _mm256_and_si256(valid, _mm256_add_epi32(base, bucket));
        const __m256 x = _mm256_i32gather_ps(xs, idx, 4);
        const __m256 d0 = _mm256_i32gather_ps(d0s, idx, 4);
        const __m256 d1 = _mm256_i32gather_ps(d1s, idx, 4);
        const __m256 d2 = _mm256_i32gather_ps(d2s, idx, 4);
        const __m256 d3 = _mm256_i32gather_ps(d3s, idx, 4);
        // t and the linear term in float, as the reference.
        const __m256 tf = _mm256_sub_ps(_mm256_castsi256_ps(sel), x);
        const __m256 lo = _mm256_add_ps(_mm256_mul_ps(tf, d1), d0);
        int und_lo, und_hi;
        const __m128 r_lo = cubic4(_mm256_castps256_ps128(tf), _mm256_castps256_ps128(lo), _mm256_castps256_ps128(d2), _mm256_castps256_ps128(d3), und_lo);
        const __m128 r_hi =
            cubic4(_mm256_extractf128_ps(tf, 1), _mm256_extractf128_ps(lo, 1), _mm256_extractf128_ps(d2, 1), _mm256_extractf128_ps(d3, 1), und_hi);
        __m256 res = _mm256_set_m128(r_hi, r_lo);
        // Reconstruction for negative inputs of a symmetric function.
        const __m256 neg_in = _mm256_castsi256_ps(_mm256_srai_epi32(u, 31));
        if (t.sym_en) res = _mm256_blendv_ps(res, _mm256_add_ps(_mm256_xor_ps(res, flip), sym_point), neg_in);
        const int nan_res = _mm256_movemask_ps(_mm256_cmp_ps(res, res, _CMP_UNORD_Q));
        // Special values override everything.
        const __m256i is_zero = _mm256_cmpeq_epi32(a, zero), is_inf = _mm256_cmpeq_epi32(a, inf_bits);
        res = _mm256_blendv_ps(res, zero_result, _mm256_castsi256_ps(is_zero));
        res = _mm256_blendv_ps(res, _mm256_blendv_ps(pinf_result, ninf_result, neg_in), _mm256_castsi256_ps(is_inf));
        _mm256_storeu_ps(out + i, res);
        const int special = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_or_si256(is_zero, is_inf)));
        int undecided = (und_lo | und_hi << 4 | nan_res | (~_mm256_movemask_ps(_mm256_castsi256_ps(valid)) & 0xFF)) & ~special;
        while (undecided) {
            const int lane = __builtin_ctz(static_cast<unsigned>(undecided));
            flagged[k++] = static_cast<uint32_t>(i + lane);
            undecided &= undecided - 1;
        }
    }
    return k + fast_pass_scalar(t, in + i, out + i, n - i, flagged + k, static_cast<uint32_t>(i));
}

}  // namespace neuronsim::model::pwp::detail
