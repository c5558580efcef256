// Conversions through fp32: round-to-nearest-even, saturation, specials, per type.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "model/common/simd_level.h"
#include "model/fp/bits.h"
#include "model/fp/dtype.h"

namespace neuronsim::model::fp {
namespace {

uint32_t out_bits(Dtype d, float v) {
    uint8_t b[4] = {0, 0, 0, 0};
    from_f32(d, v, b);
    return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
}

TEST(Dtype, Bf16RoundsToNearestEven) {
    EXPECT_EQ(f32_to_bf16(1.0f), 0x3f80);
    EXPECT_EQ(f32_to_bf16(float_of(0x3f808000)), 0x3f80);  // tie -> even
    EXPECT_EQ(f32_to_bf16(float_of(0x3f818000)), 0x3f82);  // tie -> even (up)
    EXPECT_EQ(f32_to_bf16(float_of(0x3f808001)), 0x3f81);
    EXPECT_EQ(f32_to_bf16(float_of(0x7f7fffff)), 0x7f80);  // rounds to inf
    EXPECT_EQ(f32_to_bf16(std::numeric_limits<float>::quiet_NaN()) & 0x7fc0, 0x7fc0);
    EXPECT_EQ(bf16_to_f32(0xc000), -2.0f);
}

TEST(Dtype, Fp16) {
    EXPECT_EQ(f32_to_fp16(1.0f), 0x3c00);
    EXPECT_EQ(f32_to_fp16(65504.0f), 0x7bff);
    EXPECT_EQ(f32_to_fp16(65520.0f), 0x7c00);  // halfway past max rounds to inf
    EXPECT_EQ(f32_to_fp16(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
    EXPECT_EQ(f32_to_fp16(std::ldexp(1.0f, -25)), 0x0000);  // tie to even: 0
    EXPECT_EQ(f32_to_fp16(-0.0f), 0x8000);
    EXPECT_EQ(f32_to_fp16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // tie -> even
    EXPECT_EQ(fp16_to_f32(0x3555), 0.333251953125f);
    EXPECT_TRUE(std::isinf(fp16_to_f32(0xfc00)));
}

// An independent reference for binary32 -> fp16: the nearest fp16 in double arithmetic,
// ties to the even code, 65520 and up to infinity.
uint16_t fp16_reference(float v) {
    const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
    if (std::isnan(v)) return sign | 0x7E00;
    const double a = std::fabs(static_cast<double>(v));
    if (a >= 65520.0) return sign | 0x7C00;
    if (a == 0) return sign;
    int e = 0;
    std::frexp(a, &e);
    const int exp = std::max(e - 1, -14);  // the fp16 binade (subnormals share -14)
    const double ulp = std::ldexp(1.0, exp - 10);
    const double q = std::floor(a / ulp), r = a / ulp - q;  // exact: a / ulp is a power-of-2 scaling
    uint32_t n = static_cast<uint32_t>(q) + (r > 0.5 || (r == 0.5 && (static_cast<uint32_t>(q) & 1)) ? 1 : 0);
    // n counts ulps of this binade; convert to a code (the carry into the next binade works out).
    const uint32_t code = exp == -14 ? n : (static_cast<uint32_t>(exp + 15) << 10) + (n - 1024);
    return static_cast<uint16_t>(sign | code);
}

TEST(Dtype, Fp16MatchesAReferenceOnASweepOfAllBinary32) {
    // Every 97th bit pattern (44 million values, every exponent, both signs) and every fp16 code.
    for (uint64_t u = 0; u <= 0xFFFFFFFFull; u += 97) {  // NaNs included: 0x7E00 with their sign
        const float v = float_of(static_cast<uint32_t>(u));
        ASSERT_EQ(f32_to_fp16(v), fp16_reference(v)) << std::hex << u;
    }
    for (uint32_t h = 0; h < 0x10000; ++h) {
        const float f = fp16_to_f32(static_cast<uint16_t>(h));
        if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF)) {
            EXPECT_TRUE(std::isnan(f)) << h;
            continue;
        }
        EXPECT_EQ(f32_to_fp16(f), h) << std::hex << h;  // exact values survive the round trip
    }
}

TEST(Dtype, Fp8) {
    // E4M3 (bias 7): max finite 448, saturates, NaN is S.1111.111.
    EXPECT_EQ(out_bits(Dtype::Fp8Exp4, 1.0f), 0x38u);
    EXPECT_EQ(out_bits(Dtype::Fp8Exp4, 448.0f), 0x7eu);
    EXPECT_EQ(out_bits(Dtype::Fp8Exp4, 1e9f), 0x7eu);
    EXPECT_EQ(out_bits(Dtype::Fp8Exp4, -1e9f), 0xfeu);
    uint8_t b = 0x7f;
    EXPECT_TRUE(std::isnan(to_f32(Dtype::Fp8Exp4, &b)));
    // E5M2 (bias 15): IEEE-like, overflow to inf.
    EXPECT_EQ(out_bits(Dtype::Fp8Exp5, 1.0f), 0x3cu);
    EXPECT_EQ(out_bits(Dtype::Fp8Exp5, 1e9f), 0x7cu);
    b = 0x7b;
    EXPECT_EQ(to_f32(Dtype::Fp8Exp5, &b), 57344.0f);
    // E3M4 (bias 3)
    EXPECT_EQ(out_bits(Dtype::Fp8Exp3, 1.0f), 0x30u);
    EXPECT_EQ(out_bits(Dtype::Fp8Exp3, 1.03125f), 0x30u);  // tie -> even
    for (uint32_t c = 0; c < 256; ++c) {  // every finite code survives a round trip
        uint8_t x = static_cast<uint8_t>(c);
        for (Dtype d : {Dtype::Fp8Exp3, Dtype::Fp8Exp4, Dtype::Fp8Exp5}) {
            float f = to_f32(d, &x);
            if (!std::isnan(f)) {
                EXPECT_EQ(out_bits(d, f), c) << dtype_name(static_cast<uint8_t>(d)) << " " << c;
            }
        }
    }
}

TEST(Dtype, IntegersRoundEvenAndSaturate) {
    EXPECT_EQ(out_bits(Dtype::Uint8, 2.5f), 2u);
    EXPECT_EQ(out_bits(Dtype::Uint8, 3.5f), 4u);
    EXPECT_EQ(out_bits(Dtype::Uint8, 300.0f), 255u);
    EXPECT_EQ(out_bits(Dtype::Uint8, -4.0f), 0u);
    EXPECT_EQ(out_bits(Dtype::Int8, -200.0f), 0x80u);
    EXPECT_EQ(out_bits(Dtype::Int16, std::numeric_limits<float>::quiet_NaN()), 0u);
    EXPECT_EQ(out_bits(Dtype::Int32, 3e9f), 0x7fffffffu);
    EXPECT_EQ(out_bits(Dtype::Uint32, 3e9f), 3000000000u);
}

TEST(Dtype, Fp32RKeeps13MantissaBits) {
    EXPECT_EQ(out_bits(Dtype::Fp32R, float_of(0x3f8003ff)), 0x3f800400u);
    EXPECT_EQ(out_bits(Dtype::Fp32R, float_of(0x3f800200)), 0x3f800000u);  // tie -> even
    EXPECT_EQ(out_bits(Dtype::Fp32R, float_of(0x3f800600)), 0x3f800800u);  // tie -> even (up)
}

// The row conversions (to_f32_n / from_f32_n, the engines' fast paths) against the element
// ones, every type, over random bit patterns (NaN payloads, denormals, out-of-range values).
TEST(Dtype, RowConversionsAreTheElementConversions) {
    std::mt19937 rng(5);
    const size_t n = 1027;  // not a multiple of any vector width
    std::vector<uint8_t> raw(n * 4);
    for (auto& b : raw) b = static_cast<uint8_t>(rng());
    std::vector<float> values(n);
    for (size_t i = 0; i < n; ++i) values[i] = (i % 3) ? float_of(static_cast<uint32_t>(rng())) : static_cast<float>(static_cast<int>(rng() % 70000) - 35000);
    for (uint8_t code = 0x02; code <= 0x0F; ++code) {
        if (code == 0x0C) continue;  // Int64: not a converted type
        const Dtype d = static_cast<Dtype>(code);
        const size_t w = dtype_bytes(d);
        std::vector<float> got(n);
        to_f32_n(d, raw.data(), got.data(), n);
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(bits_of(got[i]), bits_of(to_f32(d, raw.data() + i * w))) << dtype_name(code) << " element " << i;
        std::vector<uint8_t> row(n * w, 0xAA), one(n * w, 0xAA);
        from_f32_n(d, values.data(), row.data(), n);
        for (size_t i = 0; i < n; ++i) from_f32(d, values[i], one.data() + i * w);
        ASSERT_TRUE(row == one) << dtype_name(code);
    }
}

TEST(Dtype, Fp16RowConversionIsTheElementOneForEveryInput) {
    std::vector<uint8_t> all(65536 * 2);
    for (uint32_t h = 0; h < 65536; ++h) all[2 * h] = static_cast<uint8_t>(h), all[2 * h + 1] = static_cast<uint8_t>(h >> 8);
    std::vector<float> got(65536);
    to_f32_n(Dtype::Fp16, all.data(), got.data(), got.size());
    for (uint32_t h = 0; h < 65536; ++h) ASSERT_EQ(bits_of(got[h]), bits_of(fp16_to_f32(static_cast<uint16_t>(h)))) << std::hex << h;
#if defined(__x86_64__)
    if (model::best_simd_level() != model::SimdLevel::Scalar) {  // the AVX2 build of the loop too
        std::fill(got.begin(), got.end(), 0.0f);
        fp16_to_f32_n_avx2(all.data() + 2, got.data(), got.size() - 1);  // (not 32-byte aligned)
        for (uint32_t h = 1; h < 65536; ++h) ASSERT_EQ(bits_of(got[h - 1]), bits_of(fp16_to_f32(static_cast<uint16_t>(h)))) << std::hex << h << " (avx2)";
    }
#endif
}

TEST(Dtype, Bf16RowConversionIsTheElementOneOverASweepOfAllBinary32) {
    std::vector<float> v;
    for (uint64_t u = 0; u < (uint64_t{1} << 32); u += 4099) v.push_back(float_of(static_cast<uint32_t>(u)));
    for (uint32_t u : {0x7f800001u, 0xffffffffu, 0x7fffffffu, 0x7f7fffffu, 0x3f808000u, 0x3f818000u}) v.push_back(float_of(u));
    std::vector<uint8_t> row(v.size() * 2);
    from_f32_n(Dtype::Bfloat16, v.data(), row.data(), v.size());
    for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(row[2 * i] | row[2 * i + 1] << 8, f32_to_bf16(v[i])) << std::hex << bits_of(v[i]);
}

TEST(Dtype, ActTypeSets) {
    EXPECT_TRUE(act_input_dtype(0x0A));
    EXPECT_FALSE(act_input_dtype(0x0B));  // FP32R is output-only
    EXPECT_TRUE(act_output_dtype(0x0B));
    EXPECT_FALSE(act_input_dtype(0x01));  // 64-bit types are gated
    EXPECT_FALSE(act_input_dtype(0x19));  // CPTC codes are transport only
    EXPECT_EQ(dtype_name(0x06), "BFLOAT16");
}

TEST(Dtype, CptcCodesAndPresencePerGeneration) {
    // §F.4: is_cptc = (code & 0xF8) == 0x18 && (code & 7) != 0; 0x18 ("CPTC0") is not one.
    EXPECT_FALSE(is_cptc(0x18));
    for (uint8_t c = 0x19; c <= 0x1F; ++c) {
        EXPECT_TRUE(is_cptc(c));
        EXPECT_EQ(cptc_bits(c), c - 0x18u);
        EXPECT_EQ(dtype_name(c), "CPTC" + std::to_string(c - 0x18));
    }
    EXPECT_FALSE(is_cptc(0x0A));
    EXPECT_FALSE(is_cptc(0x20));
    EXPECT_FALSE(is_cptc(0x11));
    // The CAYMAN (NC-v3) header cannot name CPTC codes; MARIANA (v4) can; SUNDA never.
    EXPECT_FALSE(dtype_exists(0x1C, 2));
    EXPECT_FALSE(dtype_exists(0x1C, 3));
    EXPECT_TRUE(dtype_exists(0x1C, 4));
    EXPECT_TRUE(dtype_exists(0x1C, 5));
    EXPECT_FALSE(dtype_exists(0x18, 5));
    EXPECT_TRUE(dtype_exists(0x0A, 2));
}

}  // namespace
}  // namespace neuronsim::model::fp
