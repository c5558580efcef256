#include "model/fp/dtype.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "model/common/simd_level.h"
#include "model/fp/bits.h"

namespace neuronsim::model::fp {

std::string dtype_name(uint8_t code) {
    static const char* n[] = {"INVALID", "UINT64", "INT8", "UINT8", "INT16", "UINT16",   "BFLOAT16", "FP16",
                              "INT32",   "UINT32", "FP32", "FP32R", "INT64", "FP8_EXP3", "FP8_EXP4", "FP8_EXP5"};
    if (code < 16) return n[code];
    static const char* m[] = {"FP4_EXP2", "FP8_EXP2", "INT4", "SFP8_E8", "SFP8_E7", "SFP8_E6", "SFP8_E5"};
    if (code >= 0x10 && code <= 0x16) return m[code - 0x10];
    if (is_cptc(code)) return "CPTC" + std::to_string(cptc_bits(code));
    return hex2(code);
}

size_t dtype_bytes(Dtype d) {
    switch (d) {
        case Dtype::Int8:
        case Dtype::Uint8:
        case Dtype::Fp8Exp3:
        case Dtype::Fp8Exp4:
        case Dtype::Fp8Exp5: return 1;
        case Dtype::Int16:
        case Dtype::Uint16:
        case Dtype::Bfloat16:
        case Dtype::Fp16: return 2;
        case Dtype::Int32:
        case Dtype::Uint32:
        case Dtype::Fp32:
        case Dtype::Fp32R: return 4;
        case Dtype::Uint64:
        case Dtype::Int64: return 8;
        default: return 0;
    }
}

bool is_16bit(Dtype d) { return dtype_bytes(d) == 2; }

bool dtype_exists(uint8_t c, int nc) {
    if (c <= 0x0F) return true;
    if (nc <= 3) return false;  // SUNDA, CAYMAN
    if (c == 0x10 || is_cptc(c)) return true;
    return nc >= 5 && c >= 0x11 && c <= 0x16;
}

bool act_input_dtype(uint8_t c) { return (c >= 0x02 && c <= 0x0A) || (c >= 0x0D && c <= 0x0F); }
bool act_output_dtype(uint8_t c) { return act_input_dtype(c) || c == 0x0B; }

namespace {

// Round a finite float to a minifloat with `ebits`/`mbits`, bias 2^(ebits-1)-1. `ieee`: the
// top exponent is inf/NaN; otherwise only all-ones is NaN and values saturate.
uint32_t to_mini(float v, int ebits, int mbits, bool ieee) {
    const uint32_t sign = std::signbit(v) ? 1u : 0u;
    const uint32_t s = sign << (ebits + mbits);
    const int bias = (1 << (ebits - 1)) - 1;
    const uint32_t all = (1u << (ebits + mbits)) - 1;
    if (std::isnan(v)) return s | all;
    const uint32_t max_finite = ieee ? (((1u << ebits) - 2) << mbits) | ((1u << mbits) - 1) : all - 1;
    double a = std::fabs(static_cast<double>(v));
    if (std::isinf(v)) return s | (ieee ? ((1u << ebits) - 1) << mbits : max_finite);
    // Scale into the integer significand grid of the target, RNE via nearbyint.
    int ex = 0;
    if (a != 0) std::frexp(a, &ex);  // a = f * 2^ex, f in [0.5, 1)
    int e = a == 0 ? 1 - bias : std::max(ex - 1, 1 - bias);
    double q = std::nearbyint(std::ldexp(a, mbits - e));  // significand * 2^mbits
    if (q >= std::ldexp(1.0, mbits + 1)) {
        q /= 2;
        ++e;
    }
    uint32_t code;
    if (q < std::ldexp(1.0, mbits)) code = static_cast<uint32_t>(q);  // subnormal (or zero)
    else code = (static_cast<uint32_t>(e + bias) << mbits) | (static_cast<uint32_t>(q) - (1u << mbits));
    if (code > max_finite) code = ieee ? ((1u << ebits) - 1) << mbits : max_finite;
    return s | code;
}

float from_mini(uint8_t c, int ebits, int mbits, bool ieee) {
    const int bias = (1 << (ebits - 1)) - 1;
    const bool neg = (c >> (ebits + mbits)) & 1;
    const uint32_t e = (c >> mbits) & ((1u << ebits) - 1), m = c & ((1u << mbits) - 1);
    float v;
    if (ieee && e == (1u << ebits) - 1) v = m ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    else if (!ieee && e == (1u << ebits) - 1 && m == (1u << mbits) - 1) v = std::numeric_limits<float>::quiet_NaN();
    else if (e == 0) v = static_cast<float>(std::ldexp(static_cast<double>(m), 1 - bias - mbits));
    else v = static_cast<float>(std::ldexp(1.0 + std::ldexp(static_cast<double>(m), -mbits), static_cast<int>(e) - bias));
    return neg ? -v : v;
}

template <typename T>
T to_int(float v) {
    if (std::isnan(v)) return 0;
    double r = std::nearbyint(static_cast<double>(v));
    if (r <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
    if (r >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(r);
}

template <typename T>
void put(uint8_t* p, T v) {
    std::memcpy(p, &v, sizeof v);
}
template <typename T>
T get(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

}  // namespace

uint16_t f32_to_bf16(float v) {
    uint32_t u = bits_of(v);
    if (std::isnan(v)) return static_cast<uint16_t>((u >> 16) | 0x40);
    u += 0x7FFF + ((u >> 16) & 1);  // RNE on the dropped 16 bits
    return static_cast<uint16_t>(u >> 16);
}

float bf16_to_f32(uint16_t h) { return float_of(uint32_t{h} << 16); }

// fp16 both ways on the bits (the hot conversion of fp16 tensors); round to nearest even,
// overflow to infinity, NaN to the quiet NaN 0x7E00 with its sign.
uint16_t f32_to_fp16(float v) {
    const uint32_t u = bits_of(v);
    const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000);
    const uint32_t a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00);
    if (a >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00);  // >= 65520 rounds to inf
    if (a >= 0x38800000u) {  // normal: >= 2^-14
        const uint32_t r = a + 0xFFFu + ((a >> 13) & 1u) - 0x38000000u;  // RNE, rebias 127 -> 15
        return static_cast<uint16_t>(sign | (r >> 13));
    }
    if (a < 0x33000000u) return sign;  // <= 2^-25 rounds to zero (2^-25 itself ties to even 0)
    // Subnormal: the significand in units of 2^-24, shifted right by 126 - exponent (14..24).
    const uint32_t m = (a & 0x7FFFFFu) | 0x800000u, shift = 126u - (a >> 23);
    uint32_t q = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) ++q;
    return static_cast<uint16_t>(sign | q);
}

float fp16_to_f32(uint16_t h) {
    const uint32_t sign = uint32_t{h & 0x8000u} << 16, e = (h >> 10) & 0x1F, m = h & 0x3FF;
    if (e == 31) {
        const float v = m ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
        return sign ? -v : v;
    }
    if (e == 0) {
        const float v = static_cast<float>(m) * 0x1p-24f;  // exact
        return sign ? -v : v;
    }
    return float_of(sign | ((e + 112u) << 23) | (m << 13));
}

float to_f32(Dtype d, const uint8_t* p) {
    switch (d) {
        case Dtype::Int8: return static_cast<float>(get<int8_t>(p));
        case Dtype::Uint8: return static_cast<float>(get<uint8_t>(p));
        case Dtype::Int16: return static_cast<float>(get<int16_t>(p));
        case Dtype::Uint16: return static_cast<float>(get<uint16_t>(p));
        case Dtype::Bfloat16: return bf16_to_f32(get<uint16_t>(p));
        case Dtype::Fp16: return fp16_to_f32(get<uint16_t>(p));
        case Dtype::Int32: return static_cast<float>(get<int32_t>(p));
        case Dtype::Uint32: return static_cast<float>(get<uint32_t>(p));
        case Dtype::Fp32:
        case Dtype::Fp32R: return get<float>(p);
        case Dtype::Fp8Exp3: return from_mini(p[0], 3, 4, false);
        case Dtype::Fp8Exp4: return from_mini(p[0], 4, 3, false);
        case Dtype::Fp8Exp5: return from_mini(p[0], 5, 2, true);
        default: return 0.0f;
    }
}

void from_f32(Dtype d, float v, uint8_t* p) {
    switch (d) {
        case Dtype::Int8: put(p, to_int<int8_t>(v)); break;
        case Dtype::Uint8: put(p, to_int<uint8_t>(v)); break;
        case Dtype::Int16: put(p, to_int<int16_t>(v)); break;
        case Dtype::Uint16: put(p, to_int<uint16_t>(v)); break;
        case Dtype::Bfloat16: put(p, f32_to_bf16(v)); break;
        case Dtype::Fp16: put(p, f32_to_fp16(v)); break;
        case Dtype::Int32: put(p, to_int<int32_t>(v)); break;
        case Dtype::Uint32: put(p, to_int<uint32_t>(v)); break;
        case Dtype::Fp32: put(p, v); break;
        case Dtype::Fp32R: {
            uint32_t u = bits_of(v);
            if (!std::isnan(v)) u = (u + 0x1FF + ((u >> 10) & 1)) & ~0x3FFu;  // RNE to 13 mantissa bits
            put(p, u);
            break;
        }
        case Dtype::Fp8Exp3: p[0] = static_cast<uint8_t>(to_mini(v, 3, 4, false)); break;
        case Dtype::Fp8Exp4: p[0] = static_cast<uint8_t>(to_mini(v, 4, 3, false)); break;
        case Dtype::Fp8Exp5: p[0] = static_cast<uint8_t>(to_mini(v, 5, 2, true)); break;
        default: break;
    }
}

namespace {
template <typename T, typename F>
void load_n(const uint8_t* p, float* out, size_t n, F f) {
    for (size_t i = 0; i < n; ++i) out[i] = f(get<T>(p + i * sizeof(T)));
}
template <typename F>
void store_n(const float* v, uint8_t* p, size_t n, F f) {
    for (size_t i = 0; i < n; ++i) put(p + i * sizeof(decltype(f(0.0f))), f(v[i]));
}
}  // namespace

namespace {
// fp16_to_f32 without branches, so that a row's loop vectorises: the bits moved into place and
// rebiased; infinities and NaNs rebiased again (a NaN becomes fp16_to_f32's quiet NaN with
// its sign); zeros and subnormals through an exact float subtraction (m x 2^-24 = (2^-14 +
// m x 2^-24) - 2^-14). The same bits as fp16_to_f32 for all 65536 inputs (a test holds it).
inline float fp16_to_f32_row(uint16_t h) {
    const uint32_t sign = uint32_t{h & 0x8000u} << 16, em = uint32_t{h & 0x7fffu} << 13;
    const uint32_t exp = em & 0x0f800000u;
    const uint32_t special = 0u - static_cast<uint32_t>(exp == 0x0f800000u);  // all ones: inf or NaN
    const uint32_t nan = special & (0u - static_cast<uint32_t>(em != 0x0f800000u));
    const uint32_t tiny = 0u - static_cast<uint32_t>(exp == 0);  // zero or subnormal
    const uint32_t normal = em + ((127u - 15u) << 23);
    const uint32_t small = bits_of(float_of(em + (113u << 23)) - float_of(113u << 23));
    const uint32_t mag = (normal & ~special & ~tiny) | (0x7f800000u & special & ~nan) | (0x7fc00000u & nan) | (small & tiny);
    return float_of(mag | sign);
}
// f32_to_bf16 without branches (a NaN keeps its top bits, made quiet; else nearest even).
inline uint16_t f32_to_bf16_row(float v) {
    const uint32_t u = bits_of(v);
    const uint32_t nan = 0u - static_cast<uint32_t>((u & 0x7fffffffu) > 0x7f800000u);
    const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    return static_cast<uint16_t>((rounded & ~nan) | (((u >> 16) | 0x40u) & nan));
}
}  // namespace

#if defined(__x86_64__)
// fp16_to_f32_row's loop compiled for AVX2 (eight lanes to SSE2's four): integer operations and
// one exact subtraction, so the same bits (a test holds it for all 65536 inputs).
__attribute__((target("avx2"))) void fp16_to_f32_n_avx2(const uint8_t* p, float* out, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = fp16_to_f32_row(get<uint16_t>(p + 2 * i));
}
#endif

void to_f32_n(Dtype d, const uint8_t* p, float* out, size_t n) {
    auto cast = [](auto x) { return static_cast<float>(x); };
    switch (d) {
        case Dtype::Int8: return load_n<int8_t>(p, out, n, cast);
        case Dtype::Uint8: return load_n<uint8_t>(p, out, n, cast);
        case Dtype::Int16: return load_n<int16_t>(p, out, n, cast);
        case Dtype::Uint16: return load_n<uint16_t>(p, out, n, cast);
        case Dtype::Bfloat16: return load_n<uint16_t>(p, out, n, [](uint16_t h) { return bf16_to_f32(h); });
        case Dtype::Fp16:
#if defined(__x86_64__)
            if (active_simd_level() != SimdLevel::Scalar) return fp16_to_f32_n_avx2(p, out, n);
#endif
            return load_n<uint16_t>(p, out, n, fp16_to_f32_row);
        case Dtype::Int32: return load_n<int32_t>(p, out, n, cast);
        case Dtype::Uint32: return load_n<uint32_t>(p, out, n, cast);
        case Dtype::Fp32:
        case Dtype::Fp32R: std::memcpy(out, p, n * 4); return;
        default:
            for (size_t i = 0; i < n; ++i) out[i] = to_f32(d, p + i * dtype_bytes(d));
    }
}

void from_f32_n(Dtype d, const float* v, uint8_t* p, size_t n) {
    switch (d) {
        case Dtype::Int8: return store_n(v, p, n, to_int<int8_t>);
        case Dtype::Uint8: return store_n(v, p, n, to_int<uint8_t>);
        case Dtype::Int16: return store_n(v, p, n, to_int<int16_t>);
        case Dtype::Uint16: return store_n(v, p, n, to_int<uint16_t>);
        case Dtype::Bfloat16: return store_n(v, p, n, f32_to_bf16_row);
        case Dtype::Fp16: return store_n(v, p, n, [](float x) { return f32_to_fp16(x); });
        case Dtype::Int32: return store_n(v, p, n, to_int<int32_t>);
        case Dtype::Uint32: return store_n(v, p, n, to_int<uint32_t>);
        case Dtype::Fp32: std::memcpy(p, v, n * 4); return;
        default:
            for (size_t i = 0; i < n; ++i) from_f32(d, v[i], p + i * dtype_bytes(d));
    }
}

}  // namespace neuronsim::model::fp
