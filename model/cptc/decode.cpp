#include "model/cptc/decode.h"

#include <atomic>

#include "model/cptc/decode_tap.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include <immintrin.h>

// GCC 12 reports the "undefined" source operand inside its own AVX-512 intrinsics
// (_mm512_cvtepu8_epi32, _mm512_slli_epi32, ...) as maybe-uninitialized: a false positive.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "model/cptc/cptc.h"

namespace neuronsim::model::cptc {

namespace {

// Stage F: the float legs saturate (no infinity out; NaN becomes the largest value, as
// std::fmin returns its other operand), then store with the dtype's rounding.
void store(fp::Dtype d, float v, uint8_t* p) {
    if (d == fp::Dtype::Fp16) v = std::fmax(std::fmin(v, 65504.0f), -65504.0f);
    if (d == fp::Dtype::Fp32) v = std::fmax(std::fmin(v, std::numeric_limits<float>::max()), -std::numeric_limits<float>::max());
    fp::from_f32(d, v, p);
}

uint64_t group_bytes(unsigned bits) { return (uint64_t{bits} * 8 + 15) / 16 * 16; }

}  // namespace

void decode_reference(const DecodeParams& p, const uint8_t* stream, uint8_t* out) {
    const size_t ob = fp::dtype_bytes(p.out);
    const float scale0 = fp::fp16_to_f32(p.s0);
    const uint64_t blocks = (p.elements + p.block_size - 1) / p.block_size;
    std::vector<float> scales(blocks);
    const std::vector<int32_t> codes = unpack_codes(stream, p.elements, p.bits, p.is_signed);
    for (uint64_t b = 0; b < blocks; ++b) scales[b] = block_scale(stream, p.bits, p.elements, p.block_size, p.s1, b * p.block_size);
    for (uint64_t k = 0; k < p.elements; ++k) {
        uint8_t* dst = out + k * ob;
        if (p.integer) {  // impl<5>: code x s0 as integers, clamped to 255
            const uint64_t v = static_cast<uint64_t>(codes[k]) * p.s0;
            dst[0] = static_cast<uint8_t>(v > 255 ? 255 : v);
            continue;
        }
        float v = static_cast<float>(codes[k]) * scale0;  // stage D: scale, then the block scale
        v = v * scales[k / p.block_size];
        store(p.out, v, dst);
    }
}

namespace {

#define NEURONSIM_AVX512_CPTC __attribute__((target("avx512f,avx512bw,avx512vl,avx512bitalg,avx512vbmi")))

// Byte j of the selector: the stored position of element j of a group (stored_position).
NEURONSIM_AVX512_CPTC __m512i position_selector() {
    alignas(64) uint8_t s[64];
    for (unsigned j = 0; j < 64; ++j) s[j] = static_cast<uint8_t>(stored_position(j));
    return _mm512_load_si512(s);
}

// The unsigned codes of one 64-element group, element order, one byte each: for plane b,
// bitshuffle picks bit stored_position(j) of the plane into bit j of a mask, and the masked
// bytes gain 1 << b.
NEURONSIM_AVX512_CPTC inline __m512i group_codes(const uint8_t* g, unsigned bits, __m512i selector) {
    __m512i codes = _mm512_setzero_si512();
    for (unsigned b = 0; b < bits; ++b) {
        uint64_t plane;
        std::memcpy(&plane, g + 8 * b, 8);
        const __mmask64 m = _mm512_bitshuffle_epi64_mask(_mm512_set1_epi64(static_cast<long long>(plane)), selector);
        codes = _mm512_mask_add_epi8(codes, m, codes, _mm512_set1_epi8(static_cast<char>(1 << b)));
    }
    return codes;
}

NEURONSIM_AVX512_CPTC void decode_avx512(const DecodeParams& p, const uint8_t* stream, uint8_t* out) {
    const __m512i selector = position_selector();
    const uint64_t groups = (p.elements + kGroup - 1) / kGroup, gb = group_bytes(p.bits);
    const size_t ob = fp::dtype_bytes(p.out);
    const float scale0 = fp::fp16_to_f32(p.s0);
    const uint64_t blocks = (p.elements + p.block_size - 1) / p.block_size;
    std::vector<float> scales(blocks);
    for (uint64_t b = 0; b < blocks; ++b) scales[b] = block_scale(stream, p.bits, p.elements, p.block_size, p.s1, b * p.block_size);
    // The integer leg has 2^K (at most 128) possible results: a table, looked up 64 codes at a
    // time by a two-register byte permute.
    alignas(64) uint8_t int_result[128] = {};
    if (p.integer)
        for (uint32_t c = 0; c < (1u << p.bits); ++c) {
            const uint64_t v = uint64_t{c} * p.s0;
            int_result[c] = static_cast<uint8_t>(v > 255 ? 255 : v);
        }
    const __m512i int_lo = _mm512_load_si512(int_result), int_hi = _mm512_load_si512(int_result + 64);
    const bool to_int = p.out == fp::Dtype::Int8 || p.out == fp::Dtype::Uint8;
    const bool simd_store = !p.integer && (p.out == fp::Dtype::Fp16 || p.out == fp::Dtype::Fp32 || to_int);
    const __m512 s0v = _mm512_set1_ps(scale0);
    // Stage F's bounds: the float legs saturate to the largest finite value; the integer
    // outputs (fp::from_f32: NaN -> 0, round to nearest even, saturate) clamp to their range,
    // which rounds the same when done before the rounding.
    float hi_v = std::numeric_limits<float>::max(), lo_v = -hi_v;
    if (p.out == fp::Dtype::Fp16) hi_v = 65504.0f, lo_v = -65504.0f;
    if (p.out == fp::Dtype::Int8) hi_v = 127.0f, lo_v = -128.0f;
    if (p.out == fp::Dtype::Uint8) hi_v = 255.0f, lo_v = 0.0f;
    const __m512 hi = _mm512_set1_ps(hi_v), lo = _mm512_set1_ps(lo_v);
    const unsigned sign_shift = 32 - p.bits;
    alignas(64) uint8_t code_bytes[64];
    for (uint64_t g = 0; g < groups; ++g) {
        const __m512i codes = group_codes(stream + g * gb, p.bits, selector);
        const uint64_t first = g * kGroup;
        const unsigned n = static_cast<unsigned>(p.elements - first < kGroup ? p.elements - first : kGroup);
        if (p.integer) {
            const __mmask64 all = n == 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1;
            _mm512_mask_storeu_epi8(out + first, all, _mm512_permutex2var_epi8(int_lo, codes, int_hi));
            continue;
        }
        _mm512_store_si512(code_bytes, codes);
        if (!simd_store) {
            for (unsigned j = 0; j < n; ++j) {
                const uint64_t k = first + j;
                uint8_t* dst = out + k * ob;
                if (p.integer) {
                    dst[0] = int_result[code_bytes[j]];
                    continue;
                }
                int32_t c = code_bytes[j];
                if (p.is_signed && (c >> (p.bits - 1) & 1)) c -= 1 << p.bits;
                float v = static_cast<float>(c) * scale0;
                v = v * scales[k / p.block_size];
                store(p.out, v, dst);
            }
            continue;
        }
        for (unsigned q = 0; q < n; q += 16) {
            const uint64_t k = first + q;
            const unsigned m = n - q < 16 ? n - q : 16;
            const __mmask16 lanes = static_cast<__mmask16>((1u << m) - 1);
            __m512i c = _mm512_cvtepu8_epi32(_mm_load_si128(reinterpret_cast<const __m128i*>(code_bytes + q)));
            if (p.is_signed) c = _mm512_srai_epi32(_mm512_slli_epi32(c, sign_shift), sign_shift);
            __m512 bs;
            if (p.block_size % 16 == 0) {
                bs = _mm512_set1_ps(scales[k / p.block_size]);
            } else {
                alignas(64) float s[16];
                for (unsigned j = 0; j < 16; ++j) s[j] = scales[(k + j < p.elements ? k + j : k) / p.block_size];
                bs = _mm512_load_ps(s);
            }
            // Stage D then F, as the reference: code * s0, * block scale, saturate (min/max
            // return their second operand for NaN, as fmin/fmax return the number).
            __m512 v = _mm512_mul_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(c), s0v), bs);
            if (to_int) {
                const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
                const __m512i r = _mm512_maskz_cvtps_epi32(static_cast<__mmask16>(~nan), _mm512_max_ps(_mm512_min_ps(v, hi), lo));
                _mm_mask_storeu_epi8(out + k, lanes, _mm512_cvtepi32_epi8(r));
                continue;
            }
            v = _mm512_max_ps(_mm512_min_ps(v, hi), lo);
            if (p.out == fp::Dtype::Fp16) _mm256_mask_storeu_epi16(out + k * 2, lanes, _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
            else _mm512_mask_storeu_ps(out + k * 4, lanes, v);
        }
    }
}

}  // namespace

bool decode_fast_simd() {
    static const bool ok = [] {
        __builtin_cpu_init();
        const char* e = std::getenv("NEURONSIM_SIMD");
        if (e && std::strcmp(e, "avx512") != 0) return false;  // scalar or avx2: no AVX-512 path
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512bitalg") && __builtin_cpu_supports("avx512vbmi");
    }();
    return ok;
}

void decode_fast(const DecodeParams& p, const uint8_t* stream, uint8_t* out) {
    // Signed integer-leg codes (no kernel reads them so) keep the reference's arithmetic.
    if (!decode_fast_simd() || p.bits < 1 || p.bits > 7 || (p.integer && p.is_signed)) return decode_reference(p, stream, out);
    decode_avx512(p, stream, out);
}

namespace {
std::atomic<DecodeTap*> g_tap{nullptr};
}

void set_decode_tap(DecodeTap* tap) { g_tap.store(tap, std::memory_order_release); }
DecodeTap* decode_tap() { return g_tap.load(std::memory_order_acquire); }

}  // namespace neuronsim::model::cptc
