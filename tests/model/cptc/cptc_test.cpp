// The CPTC codec (docs/cptc-format.md): the firmware's de-interleave table, the bit-plane
// layout checked against hand-built bytes, round trips for every code width, block scales and
// the quantiser's error bound.
#include <cmath>
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
        0x01, 0x21, 0x41, 0x61, 0x03, 0x23, 0x43, 0x63, 0x05, 0x25, 0x45, 0x65, 0x07, 0x27, 0x47, 0x67,
        0x09, 0x29, 0x49, 0x69, 0x0b, 0x2b, 0x4b, 0x6b, 0x0d, 0x2d, 0x4d, 0x6d, 0x0f, 0x2f, 0x4f, 0x6f,
        0x11, 0x31, 0x51, 0x71, 0x13, 0x33, 0x53, 0x73, 0x15, 0x35, 0x55, 0x75, 0x17, 0x37, 0x57, 0x77,
        0x19, 0x39, 0x59, 0x79, 0x1b, 0x3b, 0x5b, 0x7b, 0x1d, 0x3d, 0x5d, 0x7d, 0x1f, 0x3f, 0x5f, 0x7f,
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
    EXPECT_EQ(stream_bytes(4, 128, 64, true), 2 * 32 + 16u);   // 2 groups of 32 B, 2 scales padded to 16
    EXPECT_EQ(stream_bytes(1, 64, 64, false), 16u);            // 8 B of one plane, padded
    EXPECT_EQ(stream_bytes(7, 65, 8, true), 2 * 64 + 32u);     // 9 scales = 18 B -> 32
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

TEST(Cptc, BlockScalesFollowTheGroups) {
    std::vector<float> v(128);
    for (unsigned i = 0; i < 64; ++i) v[i] = i % 2 ? 7.0f : -7.0f;  // block 0: scale 1
    for (unsigned i = 64; i < 128; ++i) v[i] = 0.25f * static_cast<float>(i % 8);  // block 1: 1.75 / 7
    const Encoded e = encode(v, 4, 64, true);
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
}

TEST(Cptc, QuantisationErrorIsAtMostHalfAStep) {
    std::mt19937 rng(3);
    std::normal_distribution<float> d(0.0f, 2.0f);
    std::vector<float> v(1024);
    for (auto& x : v) x = d(rng);
    for (unsigned k : {3u, 5u, 7u}) {
        const Encoded e = encode(v, k, 32, true);
        const auto codes = unpack_codes(e.bytes.data(), v.size(), k, true);
        for (size_t i = 0; i < v.size(); ++i) {
            const float s = block_scale(e.bytes.data(), k, v.size(), 32, e.s1, i);
            const int top = (1 << (k - 1)) - 1;
            // The scale is max|block| / top rounded to fp16, so the top value may sit up to one
            // fp16 ulp beyond the top code: allow half a step plus that rounding.
            EXPECT_LE(std::fabs(codes[i] * s - v[i]), 0.5f * s + top * s * 0x1p-11f) << "K=" << k << " i=" << i;
            EXPECT_LE(std::abs(codes[i]), top);
        }
    }
}

TEST(Cptc, UnsignedClampsNegativesAndBadInputIsRefused) {
    const Encoded e = encode({-1.0f, 0.0f, 3.0f, 1.5f, 0, 0, 0, 0}, 2, 8, false);
    const auto c = unpack_codes(e.bytes.data(), 4, 2, false);
    EXPECT_EQ(c, (std::vector<int32_t>{0, 0, 3, 2}));  // scale 1; 1.5 rounds to even 2
    EXPECT_THROW(encode({1.0f}, 1, 8, true), Error);   // signed 1-bit has no magnitude
    EXPECT_THROW(encode({1.0f}, 4, 12, true), Error);  // block_size not a multiple of 8
    EXPECT_THROW(encode({NAN}, 4, 8, true), Error);
    try {
        encode({1e6f}, 4, 8, true);
        ADD_FAILURE() << "no error";
    } catch (const Error& x) {
        EXPECT_NE(std::string(x.what()).find("beyond fp16's 65504"), std::string::npos) << x.what();
    }
}

}  // namespace
}  // namespace neuronsim::test
