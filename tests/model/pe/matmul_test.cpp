// TensorE matmul numerics (model/pe/matmul.h): the expected bits are worked by hand from the
// definition (products rounded to binary32, summed in k order from +0 or the bank), and the
// blocked SIMD kernel must give the reference's bits at every level this CPU runs.
#include "model/pe/matmul.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "model/common/error.h"
#include "model/fp/bits.h"

namespace neuronsim::model::pe {
namespace {

using fp::bits_of;
using fp::float_of;

std::vector<SimdLevel> levels() {
    std::vector<SimdLevel> l{SimdLevel::Scalar};
    if (best_simd_level() >= SimdLevel::Avx2) l.push_back(SimdLevel::Avx2);
    if (best_simd_level() >= SimdLevel::Avx512) l.push_back(SimdLevel::Avx512);
    return l;
}

// psum (M x N) of stationary (K x M) and moving (K x N) at every level; each level's bits
// must equal the reference's, which is returned.
std::vector<float> run(uint32_t k, uint32_t m, uint32_t n, const std::vector<float>& s, const std::vector<float>& mv, std::vector<float> psum, bool start) {
    MatmulArgs a{s.data(), m, mv.data(), n, nullptr, n, k, m, n, start};
    std::vector<float> ref = psum;
    a.psum = ref.data();
    matmul_reference(a);
    for (SimdLevel l : levels()) {
        std::vector<float> got = psum;
        a.psum = got.data();
        matmul(a, l);
        for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(bits_of(got[i]), bits_of(ref[i])) << simd_name(l) << " element " << i;
    }
    return ref;
}

TEST(PeMatmul, SumsTheProductsInContractionOrder) {
    // Products 1, 2^-24, 2^-24: (0 + 1) + 2^-24 ties back to 1, twice. Summed the other way
    // (or pairwise) the small ones would make 2^-23 first and the result 1 + 2^-23.
    const float t = std::ldexp(1.0f, -24);
    std::vector<float> ref = run(3, 1, 1, {1.0f, t, t}, {1.0f, 1.0f, 1.0f}, {0.0f}, true);
    EXPECT_EQ(bits_of(ref[0]), 0x3F800000u);
    ref = run(3, 1, 1, {t, t, 1.0f}, {1.0f, 1.0f, 1.0f}, {0.0f}, true);
    EXPECT_EQ(bits_of(ref[0]), 0x3F800001u);  // 1 + 2^-23
}

TEST(PeMatmul, RoundsEachProductBeforeTheSum) {
    // -(1 + 2^-11) first, then (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24, rounded to 1 + 2^-11 before
    // it is added: the sum is 0. A fused multiply-add of that product onto the sum would keep
    // the 2^-24.
    const float x = 1.0f + std::ldexp(1.0f, -12), y = 1.0f + std::ldexp(1.0f, -11);
    std::vector<float> ref = run(2, 1, 1, {-y, x}, {1.0f, x}, {0.0f}, true);
    EXPECT_EQ(bits_of(ref[0]), 0x00000000u);
    EXPECT_NE(bits_of(std::fma(x, x, -y)), 0x00000000u);  // (what an FMA gives: the test can tell)
}

TEST(PeMatmul, AccumulatesOntoTheBankUnlessStart) {
    // Bank 0.5, product 2 x 3: 6.5 when accumulating; 6 from +0 when start (the bank's NaN is ignored).
    std::vector<float> ref = run(1, 1, 1, {2.0f}, {3.0f}, {0.5f}, false);
    EXPECT_EQ(bits_of(ref[0]), bits_of(6.5f));
    ref = run(1, 1, 1, {2.0f}, {3.0f}, {float_of(0x7FC00001u)}, true);
    EXPECT_EQ(bits_of(ref[0]), bits_of(6.0f));
}

TEST(PeMatmul, AStartedSumOfNegativeZerosIsPositiveZero) {
    // +0 + (-0) = +0: the bank starts at +0, so even one -0 product (-1 x 0) gives +0.
    std::vector<float> ref = run(2, 1, 1, {-1.0f, 1.0f}, {0.0f, -0.0f}, {0.0f}, true);
    EXPECT_EQ(bits_of(ref[0]), 0x00000000u);
    ref = run(1, 1, 1, {-1.0f}, {0.0f}, {-0.0f}, false);  // accumulating onto -0 keeps it
    EXPECT_EQ(bits_of(ref[0]), 0x80000000u);
}

TEST(PeMatmul, TransposeThroughAnIdentityIsExactButTurnsInfinityIntoNaN) {
    // moving = identity (K x K): psum[m][n] = stationary[n][m].
    const uint32_t k = 4, m = 3;
    std::vector<float> s(k * m), id(k * k, 0.0f);
    for (uint32_t i = 0; i < k * m; ++i) s[i] = float_of(0x3F800000u + i * 0x01234567u % 0x00800000u) * (i % 2 ? -1.0f : 1.0f);
    s[5] = std::ldexp(1.0f, -140);  // a subnormal passes through
    s[7] = INFINITY;  // stationary[2][1]: row 1 of the result is inf * 0 = NaN, but at n = 2
    for (uint32_t i = 0; i < k; ++i) id[i * k + i] = 1.0f;
    std::vector<float> ref = run(k, m, k, s, id, std::vector<float>(m * k, 0.0f), true);
    for (uint32_t r = 0; r < m; ++r)
        for (uint32_t c = 0; c < k; ++c) {
            const float got = ref[r * k + c];
            if (r == 1 && c != 2) EXPECT_TRUE(std::isnan(got)) << r << "," << c;
            else EXPECT_EQ(bits_of(got), bits_of(s[c * m + r])) << r << "," << c;  // (1, 2): inf x 1 plus zeros is inf
        }
}

TEST(PeMatmul, TheBlockedKernelGivesTheReferenceBitsAtEveryShape) {
    // Shapes across the register tiles' edges (6 rows, 16 columns) and the limits, with
    // values whose sums round, overflow and underflow.
    std::mt19937 rng(27);
    std::uniform_real_distribution<float> u(-2.0f, 2.0f);
    std::uniform_int_distribution<int> e(-70, 70);
    // M mod 6 = 0..5 (every row tail); widths 1, 2, 7, 8, 9, 15 and 16 at the column edge.
    const uint32_t shapes[][3] = {{1, 1, 1},     {128, 128, 512}, {7, 5, 17}, {128, 6, 33}, {64, 13, 31}, {3, 127, 511}, {128, 1, 512}, {2, 128, 9},
                                  {100, 11, 48}, {5, 3, 7},       {9, 4, 8},  {17, 9, 2},   {33, 10, 23}, {128, 2, 15},  {11, 12, 16}};
    for (const auto& sh : shapes) {
        const uint32_t k = sh[0], m = sh[1], n = sh[2];
        std::vector<float> s(k * m), mv(k * n), bank(m * n);
        for (float& v : s) v = std::ldexp(u(rng), e(rng));
        for (float& v : mv) v = std::ldexp(u(rng), e(rng));
        for (float& v : bank) v = u(rng);
        SCOPED_TRACE(std::to_string(k) + "x" + std::to_string(m) + "x" + std::to_string(n));
        run(k, m, n, s, mv, bank, true);
        run(k, m, n, s, mv, bank, false);
    }
}

TEST(PeMatmul, LeadingDimensionsLeaveTheRestOfTheBankAlone) {
    // A 2 x 3 result inside rows of 8: the other five floats of each row keep their bits.
    const uint32_t k = 2, m = 2, n = 3, ld = 8;
    std::vector<float> s{1, 2, 3, 4}, mv(k * ld, 1.0f), bank(m * ld, -7.0f);
    for (SimdLevel l : levels()) {
        std::vector<float> b = bank;
        matmul(MatmulArgs{s.data(), m, mv.data(), ld, b.data(), ld, k, m, n, true}, l);
        for (uint32_t r = 0; r < m; ++r)
            for (uint32_t c = 0; c < ld; ++c) EXPECT_EQ(b[r * ld + c], c < n ? (r ? 6.0f : 4.0f) : -7.0f) << simd_name(l) << r << "," << c;
    }
}

TEST(PeMatmul, OutOfRangeShapesAreErrors) {
    std::vector<float> buf(129 * 513, 0.0f);
    auto args = [&](uint32_t k, uint32_t m, uint32_t n) { return MatmulArgs{buf.data(), m, buf.data(), n, buf.data(), n, k, m, n, true}; };
    EXPECT_THROW(matmul(args(0, 1, 1)), Error);
    EXPECT_THROW(matmul(args(129, 1, 1)), Error);
    EXPECT_THROW(matmul(args(1, 129, 1)), Error);
    EXPECT_THROW(matmul_reference(args(1, 1, 513)), Error);
    MatmulArgs a = args(1, 4, 4);
    a.ldm = 3;
    EXPECT_THROW(matmul(a), Error);
    a = args(1, 1, 1);
    a.psum = nullptr;
    EXPECT_THROW(matmul(a), Error);
    try {
        matmul(args(1, 1, 513));
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("N (moving free size) 513 is not in 1..512"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace neuronsim::model::pe
