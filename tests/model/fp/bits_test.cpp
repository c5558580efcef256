#include <cmath>

#include <gtest/gtest.h>

#include "model/fp/bits.h"

namespace neuronsim::model::fp {
namespace {

TEST(Bits, RoundTripAndHex) {
    EXPECT_EQ(bits_of(1.0f), 0x3f800000u);
    EXPECT_EQ(bits_of(float_of(0x7fc12345)), 0x7fc12345u);  // NaN payloads survive
    EXPECT_EQ(hex8(0x3f800000), "3f800000");
    EXPECT_EQ(hex8(0xABCDEF01), "abcdef01");
}

TEST(Bits, ParseHex8) {
    uint32_t u = 0;
    EXPECT_TRUE(parse_hex8("3f800000", u));
    EXPECT_EQ(u, 0x3f800000u);
    EXPECT_TRUE(parse_hex8("0xDEADBEEF", u));
    EXPECT_EQ(u, 0xdeadbeefu);
    EXPECT_FALSE(parse_hex8("3f80000", u));
    EXPECT_FALSE(parse_hex8("3f8000000", u));
    EXPECT_FALSE(parse_hex8("3f80000g", u));
    EXPECT_FALSE(parse_hex8("", u));
}

TEST(Bits, ParseFloatOperand) {
    float f = 0;
    EXPECT_TRUE(parse_float_operand("0.5", f));
    EXPECT_EQ(f, 0.5f);
    EXPECT_TRUE(parse_float_operand("0x3f000000", f));
    EXPECT_EQ(f, 0.5f);
    EXPECT_TRUE(parse_float_operand("-1e-3", f));
    EXPECT_EQ(f, -1e-3f);
    EXPECT_TRUE(parse_float_operand("inf", f));
    EXPECT_TRUE(std::isinf(f));
    EXPECT_FALSE(parse_float_operand("0.5x", f));
    EXPECT_FALSE(parse_float_operand("1e39", f));  // not a float32
    EXPECT_FALSE(parse_float_operand("", f));
}

}  // namespace
}  // namespace neuronsim::model::fp
