// VectorE's fast path (model/dve/vector_arrays.h) against its oracle, the element loops of
// model/dve/vector_ops.h, bit for bit: every operator, reverse or not, every reduction, the
// reciprocal and bn_stats, over inputs with NaN payloads, infinities, signed zeros, denormals
// and ordinary values, at lengths around the vector widths.
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "model/dve/vector_arrays.h"
#include "model/dve/vector_ops.h"
#include "model/fp/bits.h"

namespace neuronsim::model::dve {
namespace {

using fp::bits_of;

std::vector<float> hostile(size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    const uint32_t specials[] = {0, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00001u, 0xffa00002u, 1, 0x807fffffu, 0x3f800000u, 0x7f7fffffu};
    std::vector<float> v(n);
    for (float& x : v) {
        const unsigned k = rng() % 6;
        if (k == 0) x = fp::float_of(static_cast<uint32_t>(rng()));
        else if (k == 1) x = fp::float_of(specials[rng() % 10]);
        else x = std::normal_distribution<float>(0.0f, 3.0f)(rng);
    }
    return v;
}

Tile row(std::vector<float>& v) {
    Tile t;
    t.base = reinterpret_cast<uint8_t*>(v.data());
    t.partitions = 1;
    t.n = static_cast<uint32_t>(v.size());
    t.partition_stride = v.size() * 4;
    return t;
}

void expect_bits(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(bits_of(got[i]), bits_of(want[i])) << what << " element " << i;
}

const AluOp kOps[] = {AluOp::Add, AluOp::Subtract, AluOp::Multiply, AluOp::Divide, AluOp::Max, AluOp::Min};

TEST(DveArrays, AluAndScalarStepsAreTheElementLoops) {
    for (size_t n : {1, 7, 16, 33, 512}) {
        std::vector<float> a = hostile(n, 1 + n), b = hostile(n, 100 + n);
        for (AluOp op : kOps) {
            std::vector<float> want(n), got(n);
            tensor_tensor(row(a), row(b), op, row(want));
            alu_n(op, a.data(), b.data(), got.data(), n);
            expect_bits(got, want, alu_name(op));
            for (bool reverse : {false, true})
                for (float v : {2.5f, -0.0f, fp::float_of(0x7fc00005u), fp::float_of(0x7f800000u)}) {
                    ScalarStep s;
                    s.op = op;
                    s.reverse = reverse;
                    s.operand.imm = v;
                    tensor_scalar(row(a), s, std::nullopt, row(want));
                    got = a;
                    scalar_n(op, reverse, v, got.data(), n);
                    expect_bits(got, want, alu_name(op));
                }
        }
    }
}

TEST(DveArrays, FoldIsTheReductionInElementOrder) {
    for (size_t n : {1, 2, 31, 513}) {
        std::vector<float> a = hostile(n, 7 + n);
        for (ReduceOp op : {ReduceOp::Add, ReduceOp::Max, ReduceOp::Min})
            for (bool negate : {false, true}) {
                std::vector<float> want(1);
                Tile o = row(want);
                tensor_reduce(row(a), op, negate, o);
                float got = fold_n(op, a[0], a.data() + 1, n - 1);
                got = negate ? -got : got;
                EXPECT_EQ(bits_of(got), bits_of(want[0])) << reduce_name(op) << " n=" << n;
            }
    }
    // Without NaNs max/min take the order-free path: signed zeros, infinities, denormals.
    for (size_t n : {1, 5, 64, 1000}) {
        std::mt19937 rng(static_cast<unsigned>(n));
        const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, fp::float_of(1), fp::float_of(0x80000001u), -1.0f, 1.0f};
        for (int round = 0; round < 20; ++round) {
            std::vector<float> a(n);
            for (float& x : a) x = rng() % 3 ? std::normal_distribution<float>(0.0f, 1.0f)(rng) : specials[rng() % 8];
            if (round % 4 == 0)
                for (float& x : a) x = rng() % 2 ? 0.0f : -0.0f;  // only zeros: the sign decides
            for (ReduceOp op : {ReduceOp::Max, ReduceOp::Min})
                for (float acc : {-0.0f, 0.0f, -INFINITY, a[0]}) {
                    float want = acc;
                    for (float x : a) want = alu(op == ReduceOp::Max ? AluOp::Max : AluOp::Min, want, x);
                    EXPECT_EQ(bits_of(fold_n(op, acc, a.data(), n)), bits_of(want)) << reduce_name(op) << " n=" << n << " round " << round;
                }
        }
    }
    // A NaN anywhere: the first one's payload, quieted.
    std::vector<float> b(100, 1.0f);
    b[40] = fp::float_of(0x7f800007u);
    b[70] = fp::float_of(0xffc00009u);
    EXPECT_EQ(bits_of(fold_n(ReduceOp::Max, 0.0f, b.data(), b.size())), 0x7fc00007u);
    EXPECT_EQ(bits_of(fold_n(ReduceOp::Min, fp::float_of(0x7fc00003u), b.data(), b.size())), 0x7fc00003u);
    // Order matters for the sum: 1e8 + 1 - 1e8 left to right is 0, not 1.
    const float x[] = {1.0f, -1e8f};
    EXPECT_EQ(fold_n(ReduceOp::Add, 1e8f, x, 2), 0.0f);
}

TEST(DveArrays, ReciprocalAndBnStatsAreTheElementLoops) {
    for (size_t n : {1, 2, 3, 64, 511, 512}) {
        std::vector<float> a = hostile(n, 40 + n), want(n), got = a;
        reciprocal(row(a), row(want));
        reciprocal_n(got.data(), n);
        expect_bits(got, want, "reciprocal");
        std::vector<float> normal(n);
        std::mt19937 rng(static_cast<unsigned>(n));
        for (float& x : normal) x = std::normal_distribution<float>(5.0f, 2.0f)(rng);
        for (std::vector<float>* in : {&a, &normal}) {
            std::vector<float> w6(6), g6(6);
            bn_stats(row(*in), row(w6));
            bn_stats_row(in->data(), n, g6.data());
            expect_bits(g6, w6, "bn_stats");
        }
    }
}

}  // namespace
}  // namespace neuronsim::model::dve
