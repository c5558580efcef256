// fast_pass with AVX-512 (F, DQ, VL), sixteen elements per step (fast_eval.h has the method).
// Compiled with a target attribute: only called when the CPU has those extensions.
#include <immintrin.h>

// GCC 12 reports the "undefined" source operand inside its own AVX-512 intrinsics as
// maybe-uninitialized: a false positive.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "model/pwp/fast_eval_kernels.h"

namespace neuronsim::model::pwp::detail {

namespace {

#define NEURONSIM_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl")))

// The double-precision half of eight lanes (see cubic4 in fast_eval_avx2.cpp): the float
// result, and the lanes the safety test cannot decide.
NEURONSIM_AVX512 inline __m256 cubic8(__m256 tf, __m256 lo, __m256 d2, __m256 d3, __mmask8& undecided) {
    const __m512d inf = _mm512_set1_pd(__builtin_inf());
    const __m512d td = _mm512_cvtps_pd(tf);
    const __m512d tt = _mm512_mul_pd(td, td);
    const __m512d q = _mm512_add_pd(_mm512_cvtps_pd(lo), _mm512_mul_pd(tt, _mm512_cvtps_pd(d2)));
    const __m512d p = _mm512_mul_pd(_mm512_mul_pd(tt, td), _mm512_cvtps_pd(d3));
    const __m512d r = _mm512_add_pd(p, q);
    const __m512d ap = _mm512_abs_pd(p), ar = _mm512_abs_pd(r);
    const __m512d b = _mm512_mul_pd(_mm512_add_pd(ap, ar), _mm512_set1_pd(kSafety));
    const __m256i below = _mm256_castps_si256(_mm512_cvtpd_ps(_mm512_sub_pd(r, b)));
    const __m256i above = _mm256_castps_si256(_mm512_cvtpd_ps(_mm512_add_pd(r, b)));
    const __mmask8 differ = _mm256_cmpneq_epi32_mask(below, above);
    const __mmask8 finite = _mm512_cmp_pd_mask(ap, inf, _CMP_LT_OQ) & _mm512_cmp_pd_mask(ar, inf, _CMP_LT_OQ);
    const __mmask8 nan = _mm512_cmp_pd_mask(r, r, _CMP_UNORD_Q);
    undecided = nan | (finite & differ);
    return _mm512_cvtpd_ps(r);
}

NEURONSIM_AVX512 inline __m256 upper(__m512 v) { return _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)); }

// Slot (0..127) of a 128-entry table held in eight registers.
NEURONSIM_AVX512 inline __m512i pick128(const __m512i* r, __m512i slot, __mmask16 b5, __mmask16 b6) {
    const __m512i lo = _mm512_mask_blend_epi32(b5, _mm512_permutex2var_epi32(r[0], slot, r[1]), _mm512_permutex2var_epi32(r[2], slot, r[3]));
    const __m512i hi = _mm512_mask_blend_epi32(b5, _mm512_permutex2var_epi32(r[4], slot, r[5]), _mm512_permutex2var_epi32(r[6], slot, r[7]));
    return _mm512_mask_blend_epi32(b6, lo, hi);
}

}  // namespace

NEURONSIM_AVX512 size_t fast_pass_avx512(const FlatTable& t, const float* in, float* out, size_t n, uint32_t* flagged) {
    const __m512i abs_mask = _mm512_set1_epi32(0x7FFFFFFF);
    const __m512i sel_keep = _mm512_set1_epi32(t.sym_en ? 0x7FFFFFFF : -1);
    const __m512i sel_or = _mm512_set1_epi32(t.sym_en && t.sym_neg ? static_cast<int>(0x80000000u) : 0);
    const __m512i high0 = _mm512_set1_epi32(t.high_above[0]), high1 = _mm512_set1_epi32(t.high_above[1]);
    const __m512i low0 = _mm512_set1_epi32(t.low_upto[0]), low1 = _mm512_set1_epi32(t.low_upto[1]);
    const __m512i high_entry = _mm512_set1_epi32(FlatTable::kHighEntry), low_entry = _mm512_set1_epi32(FlatTable::kLowEntry);
    const __m512i side_entries = _mm512_set1_epi32(FlatTable::kEntriesPerSide);
    const __m512i mant_mask = _mm512_set1_epi32(0x7FFFFF), shift_mask = _mm512_set1_epi32(31);
    const __m512i inf_bits = _mm512_set1_epi32(0x7F800000);
    const __m512 zero_result = _mm512_castsi512_ps(_mm512_set1_epi32(static_cast<int>(t.zero_bits)));
    const __m512 pinf_result = _mm512_castsi512_ps(_mm512_set1_epi32(static_cast<int>(t.pinf_bits)));
    const __m512 ninf_result = _mm512_castsi512_ps(_mm512_set1_epi32(static_cast<int>(t.ninf_bits)));
    const __m512i flip = _mm512_set1_epi32(t.sym_invert ? static_cast<int>(0x80000000u) : 0);
    const __m512 sym_point = _mm512_set1_ps(t.sym_point);
    const long long* ent = reinterpret_cast<const long long*>(t.entry.data());
    const long long* xd0s = reinterpret_cast<const long long*>(t.x_d0.data());
    const long long* d12s = reinterpret_cast<const long long*>(t.d1_d2.data());
    const float* d3s = t.d3.data();
    const __m512i first0 = _mm512_set1_epi32(t.compact_first[0]), first1 = _mm512_set1_epi32(t.compact_first[1]);
    const __m512i high_slot = _mm512_set1_epi32(30), low_slot = _mm512_set1_epi32(31);
    __m512i cb[4], cs[4];
    for (int r = 0; r < 4; ++r) {
        cb[r] = _mm512_loadu_si512(t.compact_base + 16 * r);
        cs[r] = _mm512_loadu_si512(t.compact_shift_count + 16 * r);
    }
    const __m512i wide_first = _mm512_set1_epi32(t.wide_first), wide_high = _mm512_set1_epi32(126), wide_low = _mm512_set1_epi32(127);
    __m512i wb[8], ws[8];
    for (int r = 0; r < 8; ++r) {
        wb[r] = _mm512_loadu_si512(t.wide_base + 16 * r);
        ws[r] = _mm512_loadu_si512(t.wide_shift_count + 16 * r);
    }
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);

    size_t k = 0, i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512i u = _mm512_loadu_si512(in + i);
        const __m512i a = _mm512_and_si512(u, abs_mask);
        const __m512i sel = _mm512_or_si512(_mm512_and_si512(u, sel_keep), sel_or);
        const __mmask16 side = _mm512_movepi32_mask(sel);  // the sign bit: negative side
        const __m512i key = _mm512_and_si512(sel, abs_mask);
        // Section selection: clamp high, else clamp low, else the octave of the key.
        const __mmask16 is_high = _mm512_cmpgt_epi32_mask(key, _mm512_mask_blend_epi32(side, high0, high1));
        const __mmask16 not_low = _mm512_cmpgt_epi32_mask(key, _mm512_mask_blend_epi32(side, low0, low1));
        __m512i e = _mm512_mask_blend_epi32(not_low, low_entry, _mm512_srli_epi32(key, 23));
        e = _mm512_mask_blend_epi32(is_high, e, high_entry);
        e = _mm512_mask_add_epi32(e, side, e, side_entries);
        __m512i base, sc;
        if (t.compact) {
            // The side's 32 slots by register permutes (flat_table.h): octave - first, 30, 31.
            __m512i slot = _mm512_sub_epi32(_mm512_srli_epi32(key, 23), _mm512_mask_blend_epi32(side, first0, first1));
            slot = _mm512_mask_blend_epi32(not_low, low_slot, slot);
            slot = _mm512_mask_blend_epi32(is_high, slot, high_slot);
            base = _mm512_mask_blend_epi32(side, _mm512_permutex2var_epi32(cb[0], slot, cb[1]), _mm512_permutex2var_epi32(cb[2], slot, cb[3]));
            sc = _mm512_mask_blend_epi32(side, _mm512_permutex2var_epi32(cs[0], slot, cs[1]), _mm512_permutex2var_epi32(cs[2], slot, cs[3]));
        } else if (t.wide) {
            // One side's 128 slots: four two-register permutes, then bits 5 and 6 of the slot.
            __m512i slot = _mm512_sub_epi32(_mm512_srli_epi32(key, 23), wide_first);
            slot = _mm512_mask_blend_epi32(not_low, wide_low, slot);
            slot = _mm512_mask_blend_epi32(is_high, slot, wide_high);
            const __mmask16 b5 = _mm512_test_epi32_mask(slot, _mm512_set1_epi32(32));
            const __mmask16 b6 = _mm512_test_epi32_mask(slot, _mm512_set1_epi32(64));
            base = pick128(wb, slot, b5, b6);
            sc = pick128(ws, slot, b5, b6);
        } else {
            // Paired 64-bit gathers, eight lanes each, split back into sixteen-lane halves.
            const __m512i ent_lo = _mm512_i32gather_epi64(_mm512_castsi512_si256(e), ent, 8);
            const __m512i ent_hi = _mm512_i32gather_epi64(_mm512_extracti64x4_epi64(e, 1), ent, 8);
            base = _mm512_permutex2var_epi32(ent_lo, even, ent_hi);
            sc = _mm512_permutex2var_epi32(ent_lo, odd, ent_hi);
        }
        const __m512i bucket = _mm512_srlv_epi32(_mm512_and_si512(key, mant_mask), _mm512_and_si512(sc, shift_mask));
        const __mmask16 valid = _mm512_cmpgt_epi32_mask(_mm512_srli_epi32(sc, 5), bucket);
        const __m512i idx = _mm512_maskz_add_epi32(valid, base, bucket);
        const __m256i idx_lo = _mm512_castsi512_si256(idx), idx_hi = _mm512_extracti64x4_epi64(idx, 1);
        const __m512i xd0_lo = _mm512_i32gather_epi64(idx_lo, xd0s, 8), xd0_hi = _mm512_i32gather_epi64(idx_hi, xd0s, 8);
        const __m512i d12_lo = _mm512_i32gather_epi64(idx_lo, d12s, 8), d12_hi = _mm512_i32gather_epi64(idx_hi, d12s, 8);
        const __m512 x = _mm512_castsi512_ps(_mm512_permutex2var_epi32(xd0_lo, even, xd0_hi));
        const __m512 d0 = _mm512_castsi512_ps(_mm512_permutex2var_epi32(xd0_lo, odd, xd0_hi));
        const __m512 d1 = _mm512_castsi512_ps(_mm512_permutex2var_epi32(d12_lo, even, d12_hi));
        const __m512 d2 = _mm512_castsi512_ps(_mm512_permutex2var_epi32(d12_lo, odd, d12_hi));
        const __m512 d3 = _mm512_i32gather_ps(idx, d3s, 4);
        // t and the linear term in float, as the reference.
        const __m512 tf = _mm512_sub_ps(_mm512_castsi512_ps(sel), x);
        const __m512 lo = _mm512_add_ps(_mm512_mul_ps(tf, d1), d0);
        __mmask8 und_lo, und_hi;
        const __m256 r_lo = cubic8(_mm512_castps512_ps256(tf), _mm512_castps512_ps256(lo), _mm512_castps512_ps256(d2), _mm512_castps512_ps256(d3), und_lo);
        const __m256 r_hi = cubic8(upper(tf), upper(lo), upper(d2), upper(d3), und_hi);
        __m512 res = _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(r_lo)), _mm256_castps_pd(r_hi), 1));
        // Reconstruction for negative inputs of a symmetric function.
        const __mmask16 neg_in = _mm512_movepi32_mask(u);
        if (t.sym_en) {
            const __m512 flipped = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(res), flip));
            res = _mm512_mask_add_ps(res, neg_in, flipped, sym_point);
        }
        const __mmask16 nan_res = _mm512_cmp_ps_mask(res, res, _CMP_UNORD_Q);
        // Special values override everything.
        const __mmask16 is_zero = _mm512_cmpeq_epi32_mask(a, _mm512_setzero_si512());
        const __mmask16 is_inf = _mm512_cmpeq_epi32_mask(a, inf_bits);
        res = _mm512_mask_blend_ps(is_zero, res, zero_result);
        res = _mm512_mask_blend_ps(is_inf, res, _mm512_mask_blend_ps(neg_in, pinf_result, ninf_result));
        _mm512_storeu_ps(out + i, res);
        unsigned undecided = (static_cast<unsigned>(und_lo) | static_cast<unsigned>(und_hi) << 8 | nan_res | (~valid & 0xFFFFu)) &
                             ~static_cast<unsigned>(is_zero | is_inf) & 0xFFFFu;
        while (undecided) {
            const int lane = __builtin_ctz(undecided);
            flagged[k++] = static_cast<uint32_t>(i + lane);
            undecided &= undecided - 1;
        }
    }
    return k + fast_pass_scalar(t, in + i, out + i, n - i, flagged + k, static_cast<uint32_t>(i));
}

}  // namespace neuronsim::model::pwp::detail
