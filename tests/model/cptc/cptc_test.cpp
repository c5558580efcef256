// The CPTC codec (docs/cptc-format.md): the firmware's de-interleave table, the bit-plane
// layout checked against hand-built bytes, round trips for every code width, block scales, the
// quantiser's error bound, the encoder's view of the routing and legs (targets, refusals),
// signed 1-bit codes, the integer leg and the printed instruction fields. The round trip
// through the firmware model is tests/firmware_model/cptc_roundtrip_test.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>

#include <gtest/gtest.h>

#include "model/common/error.h"
#include "model/cptc/cptc.h"
#include "model/fp/dtype.h"

namespace neuronsim::test {
namespace {

using namespace model::cptc;

TEST(Cptc, DeinterleaveTableIsTheFirmwaresBytes) {
    // §F.7: the firmware's .rodata bytes (the first 16 are quoted there; the rest follow its rule).
    const uint8_t want[64] = {
        0x01, 0x21, 0x41, 0x61, 0x03, 0x23, 0x43, 0x63, 0x05, 0x25, 0x45, 0x65, 0x07, 0x27, 0x47, 0x67, 0x09, 0x29, 0x49, 0x69, 0x0b, 0x2b,
        0x4b, 0x6b, 0x0d, 0x2d, 0x4d, 0x6d, 0x0f, 0x2f, 0x4f, 0x6f, 0x11, 0x31, 0x51, 0x71, 0x13, 0x33, 0x53, 0x73, 0x15, 0x35, 0x55, 0x75,
        0x17, 0x37, 0x57, 0x77, 0x19, 0x39, 0x59, 0x79, 0x1b, 0x3b, 0x5b, 0x7b, 0x1d, 0x3d, 0x5d, 0x7d, 0x1f, 0x3f, 0x5f, 0x7f,
    };
    const auto& t = deinterleave_table();
    for (unsigned j = 0; j < 64; ++j) EXPECT_EQ(t[j], want[j]) << j;
    bool seen[64] = {};
    for (unsigned j = 0; j < 64; ++j) {
        EXPECT_EQ(t[j] & 1, 1) << j;
        EXPECT_EQ(stored_position(j), (t[j] - 1u) / 2) << j;
        seen[stored_position(j)] = true;
    }
    for (bool s : seen) EXPECT_TRUE(s);  // a permutation of the 64 positions
}

TEST(Cptc, BitPlaneLayoutMatchesHandBuiltBytes) {
    // Element 1 = 5 (0b101) at position s(1) = 16: bit 0 in plane 0 byte 2 bit 0, bit 2 in plane 2.
    // Element 4 = 3 at s(4) = 1: planes 0 and 1, byte 0 bit 1. K = 3 -> 24 bytes, padded to 32.
    std::vector<int32_t> codes(64, 0);
    codes[1] = 5;
    codes[4] = 3;
    const std::vector<uint8_t> got = pack_codes(codes, 3);
    std::vector<uint8_t> want(32, 0);
    want[0 * 8 + 2] |= 0x01;
    want[2 * 8 + 2] |= 0x01;
    want[0 * 8 + 0] |= 0x02;
    want[1 * 8 + 0] |= 0x02;
    EXPECT_EQ(got, want);
    const auto back = unpack_codes(want.data(), 64, 3, false);
    EXPECT_EQ(back[1], 5);
    EXPECT_EQ(back[4], 3);
    EXPECT_EQ(unpack_codes(want.data(), 64, 3, true)[1], -3);  // 0b101 two's complement
}

TEST(Cptc, StreamSizes) {
    EXPECT_EQ(stream_bytes(4, 128, 64, true), 2 * 32 + 16u);  // 2 groups of 32 B, 2 scales padded to 16
    EXPECT_EQ(stream_bytes(1, 64, 64, false), 16u);  // 8 B of one plane, padded
    EXPECT_EQ(stream_bytes(7, 65, 8, true), 2 * 64 + 32u);  // 9 scales = 18 B -> 32
    EXPECT_EQ(stream_bytes(2, 64, 64, false), 16u);
}

TEST(Cptc, EveryWidthRoundTripsSignedAndUnsigned) {
    std::mt19937 rng(7);
    for (unsigned k = 1; k <= 7; ++k)
        for (bool is_signed : {false, true}) {
            const int lo = is_signed ? -(1 << (k - 1)) : 0, hi = is_signed ? (1 << (k - 1)) - 1 : (1 << k) - 1;
            std::uniform_int_distribution<int> d(lo, hi);
            std::vector<int32_t> codes(200);
            for (auto& c : codes) c = d(rng);
            codes[0] = lo;
            codes[1] = hi;
            const auto bytes = pack_codes(codes, k);
            EXPECT_EQ(bytes.size(), (200 + 63) / 64 * ((k * 8 + 15) / 16 * 16)) << k;
            EXPECT_EQ(unpack_codes(bytes.data(), codes.size(), k, is_signed), codes) << "K=" << k << " signed=" << is_signed;
        }
    EXPECT_THROW(pack_codes({1}, 0), Error);
    EXPECT_THROW(pack_codes({1}, 8), Error);
}

Target target(unsigned bits, model::fp::Dtype out = model::fp::Dtype::Invalid) { return route_target(bits, default_routing(), out); }

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(Cptc, BlockScalesFollowTheGroups) {
    std::vector<float> v(128);
    for (unsigned i = 0; i < 64; ++i) v[i] = i % 2 ? 7.0f : -7.0f;  // block 0: scale 1
    for (unsigned i = 64; i < 128; ++i) v[i] = 0.25f * static_cast<float>(i % 8);  // block 1: 1.75 / 7
    const Encoded e = encode(v, target(4), 64);
    EXPECT_EQ(e.s0, 0x3c00);
    EXPECT_EQ(e.s1, kFormatBlockScales);
    ASSERT_EQ(e.bytes.size(), stream_bytes(4, 128, 64, true));
    EXPECT_EQ(e.bytes[64], 0x00);  // fp16 1.0 = 0x3c00, little-endian, right after the groups
    EXPECT_EQ(e.bytes[65], 0x3c);
    EXPECT_EQ(e.bytes[66] | e.bytes[67] << 8, 0x3400);  // 0.25
    EXPECT_EQ(block_scale(e.bytes.data(), 4, 128, 64, e.s1, 63), 1.0f);
    EXPECT_EQ(block_scale(e.bytes.data(), 4, 128, 64, e.s1, 64), 0.25f);
    EXPECT_EQ(block_scale(e.bytes.data(), 4, 128, 64, 0, 64), 1.0f);  // format word without scales
    const auto codes = unpack_codes(e.bytes.data(), 128, 4, true);
    EXPECT_EQ(codes[0], -7);
    EXPECT_EQ(codes[1], 7);
    EXPECT_EQ(codes[64 + 7], 7);  // 1.75 / 0.25
    EXPECT_EQ(codes, e.codes);
    ASSERT_EQ(e.decoded.size(), 128u * 2);  // impl<3> stores fp16
    EXPECT_EQ(e.decoded[0] | e.decoded[1] << 8, 0xc700);  // -7
    EXPECT_EQ(e.decoded[2 * 71] | e.decoded[2 * 71 + 1] << 8, 0x3f00);  // 1.75
}

TEST(Cptc, QuantisationErrorIsAtMostHalfAStep) {
    std::mt19937 rng(3);
    std::normal_distribution<float> d(0.0f, 2.0f);
    std::vector<float> v(1024);
    for (auto& x : v) x = d(rng);
    for (unsigned k : {4u, 5u, 6u, 7u}) {  // the signed float legs
        const Target t = target(k);
        ASSERT_TRUE(t.is_signed);
        const Encoded e = encode(v, t, 32);
        const auto codes = unpack_codes(e.bytes.data(), v.size(), k, true);
        EXPECT_EQ(codes, e.codes);
        for (size_t i = 0; i < v.size(); ++i) {
            const float s = block_scale(e.bytes.data(), k, v.size(), 32, e.s1, i);
            EXPECT_EQ(e.steps[i], s);
            const int top = (1 << (k - 1)) - 1;
            // The scale is max|block| / top rounded to fp16, so the top value may sit up to one
            // fp16 ulp beyond the top code: allow half a step plus that rounding.
            EXPECT_LE(std::fabs(codes[i] * s - v[i]), 0.5f * s + top * s * 0x1p-11f) << "K=" << k << " i=" << i;
            EXPECT_LE(std::abs(codes[i]), top);
        }
    }
}

TEST(Cptc, UnsignedClampsNegativesAndBadInputIsRefused) {
    const Encoded e = encode({-1.0f, 0.0f, 3.0f, 1.5f, 0, 0, 0, 0}, target(2), 8);  // impl<2>: unsigned
    const auto c = unpack_codes(e.bytes.data(), 4, 2, false);
    EXPECT_EQ(c, (std::vector<int32_t>{0, 0, 3, 2}));  // scale 1; 1.5 rounds to even 2
    EXPECT_THROW(encode({1.0f}, target(4), 12), Error);  // block_size not a multiple of 8
    EXPECT_THROW(encode({1.0f}, target(4), 256), Error);  // nor one byte
    EXPECT_THROW(encode({NAN}, target(4), 8), Error);
    EXPECT_NE(error_of([] { encode({1e6f}, target(4), 8); }).find("beyond fp16's 65504"), std::string::npos);
}

TEST(Cptc, DefaultRoutingTargets) {
    using model::fp::Dtype;
    struct Want {
        unsigned impl;
        Dtype out;
        bool is_signed, integer;
    };
    const Want want[8] = {{},
                          {1, Dtype::Fp32, true, false},
                          {2, Dtype::Fp16, false, false},
                          {5, Dtype::Uint8, false, true},
                          {3, Dtype::Fp16, true, false},
                          {4, Dtype::Fp16, true, false},
                          {6, Dtype::Fp16, true, false},
                          {6, Dtype::Fp16, true, false}};
    for (unsigned k = 1; k <= 7; ++k) {
        const Target t = target(k);
        EXPECT_EQ(t.bits, k);
        EXPECT_EQ(t.impl, want[k].impl) << k;
        EXPECT_EQ(t.out, want[k].out) << k;
        EXPECT_EQ(t.is_signed, want[k].is_signed) << k;
        EXPECT_EQ(t.integer, want[k].integer) << k;
    }
    EXPECT_FALSE(target(6, Dtype::Uint8).is_signed);  // impl<6> reads codes unsigned for UINT8
    EXPECT_TRUE(target(7, Dtype::Int8).is_signed);
    EXPECT_EQ(describe(target(3)),
              "cptc_decode_impl<5> (CPTC3 -> impl<5>): unsigned codes 0..7, UINT8 output, integer leg (code x mconst0 as an integer, "
              "clamped to 255; no block scales)");
    EXPECT_EQ(describe(target(1)), "cptc_decode_impl<1> (CPTC1 -> impl<1>): signed codes -1..0, FP32 output");
}

TEST(Cptc, RefusalsSayWhyAndWhatToUse) {
    using model::fp::Dtype;
    EXPECT_EQ(
        error_of([] { target(4, Dtype::Fp32); }),
        "CPTC4 is decoded by cptc_decode_impl<3>, which stores FP16, not FP32; for FP32 use CPTC1 (impl<1>), CPTC5 (impl<4>), CPTC6 (impl<6>) or CPTC7 (impl<6>)");
    EXPECT_EQ(
        error_of([] { target(3, Dtype::Fp16); }),
        "CPTC3 is decoded by cptc_decode_impl<5>, which stores UINT8, not FP16; for FP16 use CPTC2 (impl<2>), CPTC4 (impl<3>), CPTC5 (impl<4>), CPTC6 (impl<6>) "
        "or CPTC7 (impl<6>)");
    EXPECT_EQ(error_of([] { target(1, Dtype::Int8); }),
              "CPTC1 is decoded by cptc_decode_impl<1>, which stores FP32, not INT8; for INT8 use CPTC6 (impl<6>) or CPTC7 (impl<6>)");
    EXPECT_EQ(error_of([] { target(6, Dtype::Bfloat16); }),
              "CPTC6 is decoded by cptc_decode_impl<6>, which stores FP16, FP32, INT8 or UINT8, not BFLOAT16; no CPTC kernel stores BFLOAT16");
    Routing r = default_routing();
    set_route(r, 7, 5);
    EXPECT_EQ(error_of([&] { route_target(7, r); }),
              "CPTC7 is routed to cptc_decode_impl<5>, which serves only CPTC3 (its guard rejects value 7); route CPTC7 to an even kernel (2, 4 or 6)");
    set_route(r, 7, 4);
    EXPECT_EQ(route_target(7, r, Dtype::Fp32).impl, 4u);
    EXPECT_EQ(error_of([&] { set_route(r, 3, 2); }), "CPTC3 is fixed to impl<5> (observed in the firmware); only 2, 5, 6, 7 are configurable");
    EXPECT_NE(error_of([&] { set_route(r, 2, 7); }).find("there is no cptc_decode_impl<7>"), std::string::npos);
    EXPECT_EQ(error_of([] { target(8); }), "CPTC codes are 1..7 bits, not 8");
}

TEST(Cptc, SignedOneBitCodesAreMinusOneAndZero) {
    // Two's complement 1 bit holds {-1, 0}: each block's value of largest magnitude v decodes
    // from -1 with the block scale -v; values of the other sign clamp to 0.
    std::vector<float> v(16, 0.0f);
    const float b0[4] = {-3.0f, -1.0f, -2.0f, 1.0f}, b1[4] = {0.5f, 2.0f, -1.5f, 0.75f};  // v = -3 (scale 3), v = 2 (scale -2)
    std::copy(b0, b0 + 4, v.begin());
    std::copy(b1, b1 + 4, v.begin() + 8);
    const Target t = target(1);
    const Encoded e = encode(v, t, 8);
    EXPECT_EQ(std::vector<int32_t>(e.codes.begin(), e.codes.begin() + 4), (std::vector<int32_t>{-1, 0, -1, 0}));  // -2/3 rounds to -1
    EXPECT_EQ(std::vector<int32_t>(e.codes.begin() + 8, e.codes.begin() + 12), (std::vector<int32_t>{0, -1, 0, 0}));  // -1.5 / -2 clamps to 0
    EXPECT_EQ(unpack_codes(e.bytes.data(), 16, 1, true), e.codes);
    EXPECT_EQ(block_scale(e.bytes.data(), 1, 16, 8, e.s1, 0), 3.0f);
    EXPECT_EQ(block_scale(e.bytes.data(), 1, 16, 8, e.s1, 8), -2.0f);
    float f;
    std::memcpy(&f, e.decoded.data() + 0 * 4, 4);
    EXPECT_EQ(f, -3.0f);
    std::memcpy(&f, e.decoded.data() + 9 * 4, 4);
    EXPECT_EQ(f, 2.0f);
    std::memcpy(&f, e.decoded.data() + 10 * 4, 4);
    EXPECT_EQ(f, 0.0f);
    EXPECT_EQ(encode(std::vector<float>(8, 0.0f), t, 8).codes, std::vector<int32_t>(8, 0));  // an all-zero block: scale 1, codes 0
}

TEST(Cptc, IntegerLegHasAMultiplierAndNoBlockScales) {
    // impl<5>: value = code x mconst0 as integers, clamped to 255; the encoder picks the
    // smallest multiplier that reaches max x with code 7.
    EXPECT_EQ(integer_multiplier({0.0f, 7.0f}, 3), 1);
    EXPECT_EQ(integer_multiplier({0.0f, 7.5f}, 3), 2);
    EXPECT_EQ(integer_multiplier({-9.0f}, 3), 1);
    EXPECT_EQ(integer_multiplier({1000.0f}, 3), 37);  // 255 / 7 -> 37 (7 x 37 = 259 clamps to 255)
    const Target t = target(3);
    const Encoded e = encode({0.0f, 1.0f, 2.6f, 7.0f, 9.0f, -4.0f, 3.5f, 14.0f}, t, 8);
    EXPECT_EQ(e.s0, 2);
    EXPECT_EQ(e.s1, 0);
    EXPECT_EQ(e.bytes.size(), stream_bytes(3, 8, 8, false));
    EXPECT_EQ(e.codes, (std::vector<int32_t>{0, 0, 1, 4, 4, 0, 2, 7}));  // x / 2, to nearest even, in [0, 7]
    EXPECT_EQ(e.decoded, (std::vector<uint8_t>{0, 0, 2, 8, 8, 0, 4, 14}));
    const Encoded big = encode({255.0f, 240.0f}, t, 8);
    EXPECT_EQ(big.s0, 37);
    EXPECT_EQ(big.decoded, (std::vector<uint8_t>{255, 222}));  // 7 x 37 clamps; 6 x 37
    EXPECT_EQ(encode({5.0f}, t, 8, 3).codes, std::vector<int32_t>{2});  // a given multiplier (mconst0 is per instruction)
}

TEST(Cptc, CodesAreStoredAsTheyAreAndDecodeToThemselves) {
    const Encoded e = encode_codes({0, 7, 3}, target(3));
    EXPECT_EQ(e.s0, 1);  // the integer leg: x 1
    EXPECT_EQ(e.s1, 0);
    EXPECT_EQ(e.decoded, (std::vector<uint8_t>{0, 7, 3}));
    const Encoded s = encode_codes({-1, 0}, target(1));
    EXPECT_EQ(s.s0, 0x3c00);
    float f;
    std::memcpy(&f, s.decoded.data(), 4);
    EXPECT_EQ(f, -1.0f);
    EXPECT_EQ(error_of([] {
                  encode_codes({0, -1}, target(3));
              }),
              "code 1 (-1) is not in [0, 7], the codes of cptc_decode_impl<5> (CPTC3 -> impl<5>): unsigned codes 0..7, UINT8 output, integer leg (code x "
              "mconst0 as an integer, clamped to 255; no block scales)");
}

TEST(Cptc, InstructionFieldsInTraceSyntax) {
    EXPECT_EQ(instruction_fields(target(3), 64, 1, 0, 48, 128),
              "in_dtype=9 out_dtype=3 lut_dtype=0x1b block_size=64 mconst0=0x1 mconst1=0x0 num_active_rows=128 num_active_cols=128 row_grp=15 col_grp=15 "
              "src.num=4,3 src.step=1,4 dst.num=128,1,1 dst.step=1,0,0");
}

}  // namespace
}  // namespace neuronsim::test
