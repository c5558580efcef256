// VectorE's reference numerics (model/dve/vector_ops.h, docs/vector-engine.md), each rule held
// by a case that a different choice fails: binary32 without FMA or a wider intermediate,
// element-order reductions from the first element, one rounding to the output type, IEEE
// 754-2019 maximum/minimum, exact integer iota, the operand order of reverse, strided and
// per-partition operands, and the errors for bad tiles. Expected values are worked out from the
// operation definitions by hand (the comments say how), compared as raw bits.
#include <cmath>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "model/common/error.h"
#include "model/dve/vector_ops.h"
#include "model/fp/bits.h"

namespace neuronsim::model::dve {
namespace {

using fp::bits_of;
using fp::Dtype;
using fp::float_of;

// A dense tile of fp32 rows held by the test.
struct F32 {
    std::vector<float> v;
    Tile t;
    F32(uint32_t p, uint32_t n, std::vector<float> init = {}) : v(init.empty() ? std::vector<float>(size_t{p} * n, 0.0f) : init) {
        t.dtype = Dtype::Fp32;
        t.base = reinterpret_cast<uint8_t*>(v.data());
        t.partitions = p;
        t.n = n;
        t.partition_stride = uint64_t{n} * 4;
    }
    uint32_t bits(size_t i) const { return bits_of(v[i]); }
};

TEST(DveAlu, EachOperatorInBinary32) {
    EXPECT_EQ(bits_of(alu(AluOp::Add, 1.5f, 2.25f)), bits_of(3.75f));
    EXPECT_EQ(bits_of(alu(AluOp::Subtract, 1.0f, 3.0f)), bits_of(-2.0f));  // a - b, not b - a
    EXPECT_EQ(bits_of(alu(AluOp::Multiply, 3.0f, -0.5f)), bits_of(-1.5f));
    EXPECT_EQ(bits_of(alu(AluOp::Divide, 1.0f, 3.0f)), 0x3eaaaaabu);  // 1/3 rounded to nearest
    EXPECT_EQ(bits_of(alu(AluOp::Divide, 1.0f, -0.0f)), 0xff800000u);
    EXPECT_EQ(bits_of(alu(AluOp::Max, 2.0f, 7.0f)), bits_of(7.0f));
    EXPECT_EQ(bits_of(alu(AluOp::Min, 2.0f, 7.0f)), bits_of(2.0f));
}

TEST(DveAlu, MaxAndMinAreIeeeMaximumAndMinimum) {
    // Signed zeros ordered -0 < +0 whichever side they come from.
    EXPECT_EQ(bits_of(alu(AluOp::Max, -0.0f, 0.0f)), 0x00000000u);
    EXPECT_EQ(bits_of(alu(AluOp::Max, 0.0f, -0.0f)), 0x00000000u);
    EXPECT_EQ(bits_of(alu(AluOp::Min, 0.0f, -0.0f)), 0x80000000u);
    EXPECT_EQ(bits_of(alu(AluOp::Min, -0.0f, 0.0f)), 0x80000000u);
    // A NaN operand gives a NaN (fmaxf would return the other operand), quieted, its payload kept.
    const float snan = float_of(0x7f800001u);
    EXPECT_EQ(bits_of(alu(AluOp::Max, 1.0f, snan)), 0x7fc00001u);
    EXPECT_EQ(bits_of(alu(AluOp::Min, snan, 1.0f)), 0x7fc00001u);
    EXPECT_EQ(bits_of(alu(AluOp::Max, float_of(0xffc00005u), float_of(0x7fc00009u))), 0xffc00005u);  // the first NaN
}

TEST(DveAlu, NamesParseBack) {
    for (AluOp op : {AluOp::Add, AluOp::Subtract, AluOp::Multiply, AluOp::Max, AluOp::Min, AluOp::Divide}) EXPECT_EQ(parse_alu(alu_name(op)), op);
    for (ReduceOp op : {ReduceOp::Add, ReduceOp::Max, ReduceOp::Min}) EXPECT_EQ(parse_reduce(reduce_name(op)), op);
    EXPECT_FALSE(parse_alu("pow"));
    EXPECT_FALSE(parse_reduce("multiply"));
}

TEST(DveTensorScalar, TwoStepsAreNotFused) {
    // x = a = 1 + 2^-12: x*a = 1 + 2^-11 + 2^-24 exactly, a tie that rounds to the even 1 + 2^-11;
    // adding -(1 + 2^-11) then gives +0. A fused multiply-add would give 2^-24.
    const float a = 1.0f + std::ldexp(1.0f, -12);
    F32 in(1, 1, {a}), out(1, 1);
    tensor_scalar(in.t, {AluOp::Multiply, {a, {}}, false}, ScalarStep{AluOp::Add, {-(1.0f + std::ldexp(1.0f, -11)), {}}, false}, out.t);
    EXPECT_EQ(out.bits(0), 0x00000000u);
}

TEST(DveTensorScalar, TheIntermediateStaysBinary32AndTheOutputIsRoundedOnce) {
    // bf16 out: (1 + 2^-10) - 1 = 2^-10 (0x3a80). Rounding the intermediate to bf16 first
    // (1 + 2^-10 -> 1.0) would give 0.
    float x = 1.0f;
    uint16_t y = 0xffff;
    Tile in{Dtype::Fp32, reinterpret_cast<uint8_t*>(&x), 1, 1, 4, 1};
    Tile out{Dtype::Bfloat16, reinterpret_cast<uint8_t*>(&y), 1, 1, 2, 1};
    tensor_scalar(in, {AluOp::Add, {std::ldexp(1.0f, -10), {}}, false}, ScalarStep{AluOp::Subtract, {1.0f, {}}, false}, out);
    EXPECT_EQ(y, 0x3a80u);
}

TEST(DveTensorScalar, ReverseSwapsTheOperandsOfEachStep) {
    F32 in(1, 2, {8.0f, 2.0f}), out(1, 2);
    // reverse0: 1 - x; reverse1: 16 / (1 - x)
    tensor_scalar(in.t, {AluOp::Subtract, {1.0f, {}}, true}, ScalarStep{AluOp::Divide, {16.0f, {}}, true}, out.t);
    EXPECT_EQ(out.bits(0), bits_of(16.0f / -7.0f));
    EXPECT_EQ(out.bits(1), bits_of(-16.0f));
    tensor_scalar(in.t, {AluOp::Subtract, {1.0f, {}}, false}, std::nullopt, out.t);  // x - 1
    EXPECT_EQ(out.bits(0), bits_of(7.0f));
    EXPECT_EQ(out.bits(1), bits_of(1.0f));
}

TEST(DveTensorScalar, PerPartitionOperandsTakeTheRowsFirstElement) {
    F32 in(3, 2, {1, 2, 3, 4, 5, 6}), col(3, 2, {10, 99, 20, 99, 30, 99}), out(3, 2);
    Scalar s;
    s.per_partition = col.t;
    s.per_partition->n = 1;
    tensor_scalar(in.t, {AluOp::Multiply, s, false}, std::nullopt, out.t);
    EXPECT_EQ(out.v, (std::vector<float>{10, 20, 60, 80, 150, 180}));
    F32 short_col(2, 1);
    s.per_partition = short_col.t;
    EXPECT_THROW(tensor_scalar(in.t, {AluOp::Add, s, false}, std::nullopt, out.t), Error);
}

TEST(DveTensorTensor, ElementwiseOverStridedRows) {
    // in0 reads every other element of a 2 x 8 buffer; in1 is dense; out has a row pitch of 5.
    F32 buf(2, 8, {1, -1, 2, -1, 3, -1, 4, -1, 5, -1, 6, -1, 7, -1, 8, -1});
    Tile a = buf.t;
    a.n = 4;
    a.step = 2;
    F32 b(2, 4, {10, 20, 30, 40, 50, 60, 70, 80}), out(2, 5);
    out.t.n = 4;
    tensor_tensor(a, b.t, AluOp::Subtract, out.t);
    EXPECT_EQ(out.v, (std::vector<float>{-9, -18, -27, -36, 0, -45, -54, -63, -72, 0}));
}

TEST(DveTensorTensor, InPlaceReadsEachElementBeforeWritingIt) {
    F32 a(1, 3, {1, 2, 3});
    tensor_tensor(a.t, a.t, AluOp::Multiply, a.t);
    EXPECT_EQ(a.v, (std::vector<float>{1, 4, 9}));
}

TEST(DveTensorReduce, SumsInElementOrder) {
    // ((1e8 + 1) - 1e8) + 1 = (1e8 - 1e8) + 1 = 1 in binary32; a pairwise sum gives 0, and so
    // does summing from the last element.
    F32 in(1, 4, {1e8f, 1.0f, -1e8f, 1.0f}), out(1, 1);
    tensor_reduce(in.t, ReduceOp::Add, false, out.t);
    EXPECT_EQ(out.bits(0), bits_of(1.0f));
}

TEST(DveTensorReduce, StartsFromTheFirstElementAndNegatesLast) {
    // From +0 as an identity, -0 alone would sum to +0.
    F32 z(1, 1, {-0.0f}), out(1, 1);
    tensor_reduce(z.t, ReduceOp::Add, false, out.t);
    EXPECT_EQ(out.bits(0), 0x80000000u);
    F32 in(2, 3, {1, 5, 3, -2, -7, -4}), o2(2, 1);
    tensor_reduce(in.t, ReduceOp::Max, true, o2.t);
    EXPECT_EQ(o2.v, (std::vector<float>{-5, 2}));
    tensor_reduce(in.t, ReduceOp::Min, false, o2.t);
    EXPECT_EQ(o2.v, (std::vector<float>{1, -7}));
    F32 wide(2, 2);
    EXPECT_THROW(tensor_reduce(in.t, ReduceOp::Add, false, wide.t), Error);
}

TEST(DveTensorCopy, RoundsToNearestEvenOnce) {
    // 0x3f808000 lies halfway between bf16 0x3f80 and 0x3f81: to the even 0x3f80; 0x3f818000
    // halfway between 0x3f81 and 0x3f82: to 0x3f82. Truncation would give 0x3f81 for the second.
    F32 in(1, 2, {float_of(0x3f808000u), float_of(0x3f818000u)});
    uint16_t y[2] = {0, 0};
    Tile out{Dtype::Bfloat16, reinterpret_cast<uint8_t*>(y), 1, 2, 4, 1};
    tensor_copy(in.t, out);
    EXPECT_EQ(y[0], 0x3f80u);
    EXPECT_EQ(y[1], 0x3f82u);
}

TEST(DveMemsetAndIota, ValuesOfTheOutputType) {
    int32_t ints[2][3];
    Tile t{Dtype::Int32, reinterpret_cast<uint8_t*>(ints), 2, 3, 12, 1};
    memset(t, -3.5f);  // to nearest even: -4
    for (auto& row : ints)
        for (int32_t v : row) EXPECT_EQ(v, -4);
    // Exact in 64-bit integers: 2^24 + 1 survives in int32 (through a float it would be 2^24).
    iota(t, (1 << 24) + 1, 100, -1);
    EXPECT_EQ(ints[0][0], (1 << 24) + 1);
    EXPECT_EQ(ints[0][2], (1 << 24) - 1);
    EXPECT_EQ(ints[1][1], (1 << 24) + 100);
    F32 f(1, 1);
    iota(f.t, (1 << 24) + 1, 0, 0);  // rounded once, to the even 2^24
    EXPECT_EQ(f.bits(0), bits_of(16777216.0f));
    int8_t small[2];
    Tile s8{Dtype::Int8, reinterpret_cast<uint8_t*>(small), 1, 2, 2, 1};
    iota(s8, 100, 0, 100);  // 100, 200 saturated to 127
    EXPECT_EQ(small[0], 100);
    EXPECT_EQ(small[1], 127);
    EXPECT_THROW(iota(s8, int64_t{1} << 41, 0, 0), Error);
}

TEST(DveReciprocal, AnIeeeDivision) {
    F32 in(1, 4, {3.0f, 0.0f, -0.0f, float_of(0x7f7fffffu)}), out(1, 4);
    reciprocal(in.t, out.t);
    EXPECT_EQ(out.bits(0), 0x3eaaaaabu);
    EXPECT_EQ(out.bits(1), 0x7f800000u);
    EXPECT_EQ(out.bits(2), 0xff800000u);
    EXPECT_EQ(out.bits(3), 0x00200000u);  // 1 / FLT_MAX: a subnormal, not flushed
}

TEST(DveTranspose, RowsBecomeColumnsWithinABank) {
    F32 in(3, 5), out(5, 3);
    for (int i = 0; i < 15; ++i) in.v[i] = static_cast<float>(i);
    transpose(in.t, out.t);
    for (int p = 0; p < 3; ++p)
        for (int j = 0; j < 5; ++j) EXPECT_EQ(out.v[j * 3 + p], in.v[p * 5 + j]);
    F32 square(4, 4);
    for (int i = 0; i < 16; ++i) square.v[i] = static_cast<float>(i);
    transpose(square.t, square.t);  // in place
    EXPECT_EQ(square.v[1], 4.0f);
    EXPECT_EQ(square.v[4], 1.0f);
    F32 tall(33, 2), t2(2, 33);
    EXPECT_THROW(transpose(tall.t, t2.t), Error);
    EXPECT_THROW(transpose(in.t, in.t), Error);  // 3 x 5 into 3 x 5
}

TEST(DveBnStats, CountMeanAndM2OfTheEvenThenTheOddElements) {
    // Even elements 1, 2, 3: mean 2, M2 = 1 + 0 + 1; odd 10, 20, 30: mean 20, M2 = 100 + 0 + 100.
    F32 in(2, 6, {1, 10, 2, 20, 3, 30, 5, 0, 0, 0, 0, 0}), out(2, 6);
    bn_stats(in.t, out.t);
    EXPECT_EQ(std::vector<float>(out.v.begin(), out.v.begin() + 6), (std::vector<float>{3, 2, 2, 3, 20, 200}));
    // A one-element row leaves the odd class empty: (0, 0, 0).
    F32 one(1, 1, {5}), o1(1, 6);
    bn_stats(one.t, o1.t);
    EXPECT_EQ(o1.v, (std::vector<float>{1, 5, 0, 0, 0, 0}));
}

TEST(DveBnStats, TheMeanSumsInElementOrderAndM2IsTwoPass) {
    // Even class 1e8, 1, -1e8: (1e8 + 1) rounds to 1e8, so the sum in element order is 0 and the
    // mean 0 (any other order gives 1/3); M2 = 1e16 + 1 + 1e16 rounded step by step.
    F32 in(1, 5, {1e8f, 0, 1.0f, 0, -1e8f}), out(1, 6);
    bn_stats(in.t, out.t);
    EXPECT_EQ(out.bits(1), bits_of(0.0f));
    EXPECT_EQ(out.bits(2), bits_of((1e16f + 1.0f) + 1e16f));
    // 10001, 10002, 10003: mean 10002 exactly, M2 = (x - mean)^2 summed = 2. The one-pass form
    // sum(x^2) - n mean^2 loses it to cancellation in binary32 (its terms are ~3e8, ulp 32).
    F32 c(1, 5, {10001, 0, 10002, 0, 10003}), oc(1, 6);
    bn_stats(c.t, oc.t);
    EXPECT_EQ(oc.bits(1), bits_of(10002.0f));
    EXPECT_EQ(oc.bits(2), bits_of(2.0f));
    const float one_pass = (100020001.0f + 100040004.0f + 100060009.0f) - 3.0f * (10002.0f * 10002.0f);
    EXPECT_NE(bits_of(one_pass), bits_of(2.0f));
}

TEST(DveBnAggr, CombinesTheTriplesLeftToRight) {
    // (3, 2, 2) and (3, 20, 200), the bn_stats of 1, 10, 2, 20, 3, 30: n 6, t 0.5, delta 18,
    // mean 2 + 9 = 11, M2 = 202 + (324 * 3) * 0.5 = 688, variance 688 / 6 (the population's).
    F32 in(1, 6, {3, 2, 2, 3, 20, 200}), out(1, 2);
    bn_aggr(in.t, out.t);
    EXPECT_EQ(out.bits(0), bits_of(11.0f));
    EXPECT_EQ(out.bits(1), bits_of(688.0f / 6.0f));
    // Empty triples are skipped; one triple alone is itself; all empty gives 0, 0.
    F32 sparse(1, 9, {0, 0, 0, 1, 5, 0, 0, 0, 0}), o2(1, 2);
    bn_aggr(sparse.t, o2.t);
    EXPECT_EQ(o2.v, (std::vector<float>{5, 0}));
    F32 none(1, 3, {0, 0, 0}), o3(1, 2);
    bn_aggr(none.t, o3.t);
    EXPECT_EQ(o3.v, (std::vector<float>{0, 0}));
    // The update's order, with values whose roundings show it: (3, 0.1, 0.3) then (7, 0.7, 0.9).
    // mean = 0.1 + 0.6 * (7/10) and M2 = 1.2 + ((0.6 * 0.6) * 3) * 0.7, each step binary32,
    // differ in their last bits from the weighted form (3 * 0.1 + 7 * 0.7) / 10 and from
    // delta * delta * (na * nb / n).
    F32 ord(1, 6, {3, 0.1f, 0.3f, 7, 0.7f, 0.9f}), o4(1, 2);
    bn_aggr(ord.t, o4.t);
    const float t = 7.0f / 10.0f, delta = 0.7f - 0.1f, dd = delta * delta, dn = dd * 3.0f;
    const float mean = 0.1f + delta * t, m2 = (0.3f + 0.9f) + dn * t;
    EXPECT_EQ(o4.bits(0), bits_of(mean));
    EXPECT_EQ(o4.bits(1), bits_of(m2 / 10.0f));
    EXPECT_NE(bits_of(mean), bits_of((3.0f * 0.1f + 7.0f * 0.7f) / 10.0f));  // (the case tells the forms apart)
    EXPECT_NE(bits_of(m2 / 10.0f), bits_of(((0.3f + 0.9f) + dd * (3.0f * 7.0f / 10.0f)) / 10.0f));
}

TEST(DveBnStats, LimitsAreErrors) {
    F32 wide(1, 513), out(1, 6), two(1, 2);
    EXPECT_THROW(bn_stats(wide.t, out.t), Error);
    F32 ok(1, 4);
    EXPECT_THROW(bn_stats(ok.t, two.t), Error);
    EXPECT_THROW(bn_aggr(ok.t, two.t), Error);  // 4 elements: not triples
    F32 six(1, 6);
    EXPECT_THROW(bn_aggr(six.t, out.t), Error);  // out must be (mean, variance)
}

TEST(DveErrors, NameTheOperationAndTheOperand) {
    F32 a(2, 3), b(2, 4), out(2, 3);
    try {
        tensor_tensor(a.t, b.t, AluOp::Add, out.t);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("tensor_tensor: in0 is 2 x 3, in1 2 x 4"), std::string::npos) << e.what();
    }
    Tile r = a.t;
    r.dtype = Dtype::Fp32R;  // written, never read
    EXPECT_THROW(tensor_copy(r, out.t), Error);
    EXPECT_NO_THROW(tensor_copy(a.t, r));
    Tile bad = a.t;
    bad.dtype = Dtype::Int64;
    try {
        tensor_copy(a.t, bad);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("tensor_copy: out has element type INT64"), std::string::npos) << e.what();
    }
    Tile none = a.t;
    none.base = nullptr;
    EXPECT_THROW(memset(none, 0.0f), Error);
    Tile empty = a.t;
    empty.n = 0;
    EXPECT_THROW(memset(empty, 0.0f), Error);
}

}  // namespace
}  // namespace neuronsim::model::dve
