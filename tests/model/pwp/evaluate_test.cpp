// evaluate_generic, rule by rule. Expected bit patterns are derived independently of this
// code: by hand where the arithmetic is exact, otherwise with tests/tools/pwp_ref.py (a
// Python transcription of seed 001 §7), as noted at each case.
#include <cfloat>
#include <cmath>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "model/pwp/evaluate.h"
#include "tests/support/profile_builder.h"

namespace neuronsim::test {
namespace {

using model::pwp::cubic;
using model::pwp::evaluate_generic;
using model::pwp::UnhandledSection;

uint32_t eval_bits(const Profile& p, uint32_t in) { return bits(evaluate_generic(p, flt(in))); }

// ---- the cubic's rounding sequence ------------------------------------------------------

struct Vector {
    Section s;
    uint32_t sel, expected;
};

std::vector<Vector> load_vectors() {
    std::ifstream f(NEURONSIM_SOURCE_DIR "/tests/data/cubic_vectors.txt");
    std::vector<Vector> out;
    std::string line;
    while (std::getline(f, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream ss(line);
        uint32_t v[7];
        for (auto& x : v) ss >> std::hex >> x;
        out.push_back({sec_bits(v[0], v[1], v[2], v[3], v[4]), v[5], v[6]});
    }
    return out;
}

// Variants that "fix" a quirk; each must disagree with the reference on some vector.
float cubic_ttt(const Section& s, float sel) {
    float t = sel - s.x;
    float lo = t * s.d1;
    lo = lo + s.d0;
    double dt = t;
    double r = static_cast<double>(lo) + dt * dt * static_cast<double>(s.d2);
    r = (dt * dt * dt) * static_cast<double>(s.d3) + r;
    return static_cast<float>(r);
}
float cubic_all_double(const Section& s, float sel) {
    double t = static_cast<double>(sel - s.x);
    double r = t * s.d1 + s.d0 + t * t * s.d2 + std::pow(t, 3.0) * s.d3;
    return static_cast<float>(r);
}
float cubic_float_horner(const Section& s, float sel) {
    float t = sel - s.x;
    return ((s.d3 * t + s.d2) * t + s.d1) * t + s.d0;
}
float cubic_fma_linear(const Section& s, float sel) {
    float t = sel - s.x;
    float lo = std::fmaf(t, s.d1, s.d0);
    double r = static_cast<double>(lo) + static_cast<double>(t) * t * s.d2;
    r = std::pow(static_cast<double>(t), 3.0) * s.d3 + r;
    return static_cast<float>(r);
}

TEST(Cubic, MatchesIndependentReferenceOnAllVectors) {
    auto vs = load_vectors();
    ASSERT_EQ(vs.size(), 4003u);
    for (size_t i = 0; i < vs.size(); ++i) ASSERT_EQ(bits(cubic(vs[i].s, flt(vs[i].sel))), vs[i].expected) << "vector " << i;
}

TEST(Cubic, EveryFixedVariantDisagreesSomewhere) {
    auto vs = load_vectors();
    int ttt = 0, dbl = 0, horner = 0, fma = 0;
    for (const auto& v : vs) {
        ttt += bits(cubic_ttt(v.s, flt(v.sel))) != v.expected;
        dbl += bits(cubic_all_double(v.s, flt(v.sel))) != v.expected;
        horner += bits(cubic_float_horner(v.s, flt(v.sel))) != v.expected;
        fma += bits(cubic_fma_linear(v.s, flt(v.sel))) != v.expected;
    }
    EXPECT_GT(ttt, 0) << "t*t*t in place of pow(t, 3.0) is not detected";
    EXPECT_GT(dbl, 0) << "a double linear term is not detected";
    EXPECT_GT(horner, 0) << "uniform float Horner is not detected";
    EXPECT_GT(fma, 0) << "a fused linear term is not detected";
}

TEST(Cubic, PowAndCubeGiveDifferentFinalBits) {
    // pwp_ref.py search-pow: t = 0x3fd13dc0, pow(t,3) and t*t*t are adjacent doubles
    // straddling a float midpoint once d2*t^2 is added; pow -> ...0e, t*t*t -> ...0f.
    Section s = sec_bits(0, 0, 0, 0x2ecbef70, 0x3f800000);
    EXPECT_EQ(bits(cubic(s, flt(0x3fd13dc0))), 0x408bc90eu);
    EXPECT_EQ(bits(cubic_ttt(s, flt(0x3fd13dc0))), 0x408bc90fu);
    // And through the whole evaluator (clamp-only profile carrying this section).
    Profile p = clamp_only("powcase", s);
    EXPECT_EQ(eval_bits(p, 0x3fd13dc0), 0x408bc90eu);
}

// ---- the exp Taylor sections of the seeds -----------------------------------------------

Profile exp_like() {
    Profile p;
    p.name = "exp_like";
    p.zero_result = 1.0f;
    p.pinf_result = INFINITY;
    p.ninf_result = 0.0f;
    // seed 001 §7: exp_400p pos octave -19, section 0.
    add_octave(p.pos, -19, 0, {sec_bits(0x363fffff, 0x3f800018, 0x3f800018, 0x3f000018, 0x3e2aaacb)});
    // seed 000 §2: exp_and_others_bkt.bin[0] = exp_400p neg octave -19, section 0.
    add_octave(p.neg, -19, 0, {sec_bits(0xb63fffff, 0x3f7fffd0, 0x3f7fffd0, 0x3effffd0, 0x3e2aaa8b)});
    // Above octave -19: the clamps of exp (seed 000 §2: pos_high d0 = +inf, neg_high d0 = 0).
    p.sat_pos_high = sat(109, 0, sec_bits(0, 0x7f800000, 0, 0, 0));
    p.sat_neg_high = sat(109, 0, sec_bits(0, 0, 0, 0, 0));
    // Below it: 1 + x + x^2/2 + x^3/6 about 0 (bkt[777], d3 = 0x3e2aaaab).
    Section small = sec_bits(0, 0x3f800000, 0x3f800000, 0x3f000000, 0x3e2aaaab);
    p.sat_pos_low = sat(107, 0x7fffff, small);
    p.sat_neg_low = sat(107, 0x7fffff, small);
    return p;
}

TEST(EvaluateGeneric, ExpTaylorSectionsOfTheSeeds) {
    Profile p = exp_like();
    // pwp_ref.py cubic <section> <sel>:
    EXPECT_EQ(eval_bits(p, 0x36400000), 0x3f800018u);  // x + 1ulp: t = 1ulp(2^-19 octave)
    EXPECT_EQ(eval_bits(p, 0x36600000), 0x3f80001cu);  // 3.34e-6
    EXPECT_EQ(eval_bits(p, 0xb6600000), 0x3f7fffc8u);  // -3.34e-6 through bkt[0]
    EXPECT_EQ(eval_bits(p, 0xb6000000), 0x3f7fffe0u);  // -1.9e-6 (t > 0 side of x)
    // The tables are exp to within their fit.
    for (uint32_t in : {0x36000000u, 0x36400000u, 0x367fffffu, 0xb6000000u, 0xb67fffffu})
        EXPECT_NEAR(evaluate_generic(p, flt(in)), std::exp(static_cast<double>(flt(in))), 1e-6);
}

TEST(EvaluateGeneric, SaturationPlusInfRidesThePolynomialPath) {
    Profile p = exp_like();
    EXPECT_EQ(eval_bits(p, 0x42c80000), 0x7f800000u);  // 100 -> pos_high d0 = +inf
    EXPECT_EQ(eval_bits(p, 0xc2c80000), 0x00000000u);  // -100 -> neg_high 0 (t*0 + 0 = +0)
}

// ---- special values ---------------------------------------------------------------------

Profile marker_profile() {
    // Every region returns a distinct constant so the test can see which one was taken.
    Profile p;
    p.name = "markers";
    p.zero_result = flt(0x3f000001);
    p.nan_result = flt(0x3f000002);
    p.pinf_result = flt(0x3f000003);
    p.ninf_result = flt(0x3f000004);
    p.sat_pos_high = sat(130, 100, sec(0, 10));  // >= 8 * (1 + 100/2^23)
    p.sat_pos_low = sat(126, 200, sec(0, 20));  // <= 0.5 * (1 + 200/2^23)
    p.sat_neg_high = sat(130, 300, sec(0, 30));
    p.sat_neg_low = sat(126, 400, sec(0, 40));
    for (int e = -1; e <= 3; ++e) {
        add_octave(p.pos, e, 0, {sec(0, 50 + e)});
        add_octave(p.neg, e, 0, {sec(0, 60 + e)});
    }
    return p;
}

TEST(EvaluateGeneric, ZeroOfEitherSignReturnsZeroResult) {
    Profile p = marker_profile();
    EXPECT_EQ(eval_bits(p, 0x00000000), 0x3f000001u);
    EXPECT_EQ(eval_bits(p, 0x80000000), 0x3f000001u);
}

TEST(EvaluateGeneric, InfinitiesReturnPinfNinf) {
    Profile p = marker_profile();
    EXPECT_EQ(eval_bits(p, 0x7f800000), 0x3f000003u);
    EXPECT_EQ(eval_bits(p, 0xff800000), 0x3f000004u);
    // FLT_MAX is finite: it goes to the clamp, not the inf branch.
    EXPECT_EQ(evaluate_generic(p, FLT_MAX), 10.0f);
    EXPECT_EQ(evaluate_generic(p, -FLT_MAX), 30.0f);
}

TEST(EvaluateGeneric, NanHasNoBranchAndFallsThroughToTheTable) {
    Profile p = marker_profile();
    // +NaN: exponent 255 > 130 -> pos_high clamp: t = NaN - 0 = NaN; result is that NaN,
    // never nan_result.
    EXPECT_EQ(eval_bits(p, 0x7fc00000), 0x7fc00000u);
    EXPECT_EQ(eval_bits(p, 0x7fc12345), 0x7fc12345u);
    EXPECT_NE(eval_bits(p, 0x7fc00000), 0x3f000002u);
    // A negative NaN comes out positive: libm pow(-NaN, 3.0) returns the NaN with its sign
    // cleared (glibc), and the pow*d3 product is the first operand of the final double add,
    // whose NaN wins when both operands are NaN.
    EXPECT_EQ(eval_bits(p, 0xffc00000), 0x7fc00000u);
}

TEST(EvaluateGeneric, SubnormalsUseExponentZero) {
    Profile p = marker_profile();
    EXPECT_EQ(eval_bits(p, 0x00000001), bits(20.0f));  // expo 0 < 126 -> pos_low
    EXPECT_EQ(eval_bits(p, 0x007fffff), bits(20.0f));
    EXPECT_EQ(eval_bits(p, 0x80000001), bits(40.0f));  // (u8) expo 0 < 126 -> neg_low
    EXPECT_EQ(eval_bits(p, 0x807fffff), bits(40.0f));
}

// ---- the 4-way clamp and its ties -------------------------------------------------------

uint32_t f(uint32_t biased, uint32_t mant, bool neg = false) { return (neg ? 0x80000000u : 0u) | biased << 23 | mant; }

TEST(Clamp, PositiveHighTieClampsAtAndAboveMantissaPoint) {
    Profile p = marker_profile();
    EXPECT_EQ(evaluate_generic(p, flt(f(130, 100))), 10.0f);  // == : clamps (>=)
    EXPECT_EQ(evaluate_generic(p, flt(f(130, 101))), 10.0f);
    EXPECT_EQ(evaluate_generic(p, flt(f(130, 99))), 53.0f);  // just below: octave +3
    EXPECT_EQ(evaluate_generic(p, flt(f(131, 0))), 10.0f);  // expo > sat
}

TEST(Clamp, PositiveLowTieClampsAtAndBelowMantissaPoint) {
    Profile p = marker_profile();
    EXPECT_EQ(evaluate_generic(p, flt(f(126, 200))), 20.0f);  // == : clamps (<=)
    EXPECT_EQ(evaluate_generic(p, flt(f(126, 199))), 20.0f);
    EXPECT_EQ(evaluate_generic(p, flt(f(126, 201))), 49.0f);  // just above: octave -1
    EXPECT_EQ(evaluate_generic(p, flt(f(125, 0x7fffff))), 20.0f);
}

TEST(Clamp, NegativeHighTieUsesU8Exponent) {
    Profile p = marker_profile();
    EXPECT_EQ(evaluate_generic(p, flt(f(130, 300, true))), 30.0f);
    EXPECT_EQ(evaluate_generic(p, flt(f(130, 299, true))), 63.0f);
    EXPECT_EQ(evaluate_generic(p, flt(f(131, 0, true))), 30.0f);
}

TEST(Clamp, NegativeLowTieUsesU8Exponent) {
    Profile p = marker_profile();
    EXPECT_EQ(evaluate_generic(p, flt(f(126, 400, true))), 40.0f);
    EXPECT_EQ(evaluate_generic(p, flt(f(126, 401, true))), 59.0f);
    EXPECT_EQ(evaluate_generic(p, flt(f(125, 0x7fffff, true))), 40.0f);
}

TEST(Clamp, NegativeInRangeReachesTheNegTable) {
    // With a signed exponent on the negative side (bits >> 23 is negative there) every
    // negative input would fall to the low clamp; the (u8) cast keeps the table reachable.
    Profile p = marker_profile();
    for (int e = -1; e <= 2; ++e) EXPECT_EQ(evaluate_generic(p, -std::ldexp(1.5f, e)), 60.0f + e);
}

TEST(Clamp, EachClampEvaluatesItsOwnCubic) {
    Profile p = marker_profile();
    p.sat_pos_high.section = sec(8.0f, 1.0f, 2.0f, 0.5f, 0.25f);
    // t = 10 - 8 = 2: 1 + 4 + 2 + 2 = 9, all exact.
    EXPECT_EQ(evaluate_generic(p, 10.0f), 9.0f);
}

// ---- the two-level index ----------------------------------------------------------------

TEST(Index, BucketIsTopExtractSizeMantissaBits) {
    Profile p;
    p.name = "buckets";
    p.sat_pos_high = sat(200, 0, sec(0, -1));
    p.sat_pos_low = sat(0, 0, sec(0, -2));
    p.sat_neg_high = sat(0, 0, sec(0, -3));
    std::vector<Section> s;
    for (int k = 0; k < 8; ++k) s.push_back(sec(0, static_cast<float>(k)));
    add_octave(p.pos, 0, 3, s);  // [1, 2): 8 buckets of mant >> 20
    for (int k = 0; k < 8; ++k) {
        EXPECT_EQ(evaluate_generic(p, flt(f(127, static_cast<uint32_t>(k) << 20))), float(k));
        EXPECT_EQ(evaluate_generic(p, flt(f(127, (static_cast<uint32_t>(k) << 20) | 0xfffff))), float(k));
    }
}

TEST(Index, TruncatedTopOctaveOfExp) {
    // exp_400p octave +6: extract_size 8 declares 256 buckets, 99 are stored; the high clamp
    // engages at mantissa 3240472 (bucket 3240472 >> 15 = 98).
    Profile p = exp_like();
    p.sat_pos_high = sat(133, 3240472, sec_bits(0, 0x7f800000, 0, 0, 0));
    std::vector<Section> s;
    for (int k = 0; k < 99; ++k) s.push_back(sec(0, 1000.0f + k));
    add_octave(p.pos, 6, 8, s);
    p.pos.octaves[6 + 127].num_sections = 256;
    EXPECT_EQ(evaluate_generic(p, flt(f(133, 3240471))), 1098.0f);  // bucket 98, stored
    EXPECT_EQ(eval_bits(p, f(133, 3240472)), 0x7f800000u);  // the clamp
    EXPECT_EQ(evaluate_generic(p, flt(f(133, 98u << 15))), 1098.0f);

    // A threshold beyond the stored sections reaches bucket 99: the reference asserts.
    p.sat_pos_high.mantissa_point = 100 << 15;
    try {
        evaluate_generic(p, flt(f(133, 99u << 15)));
        FAIL() << "expected UnhandledSection";
    } catch (const UnhandledSection& e) {
        std::string m = e.what();
        EXPECT_NE(m.find("Unhandled section in simulation"), std::string::npos) << m;
        EXPECT_NE(m.find("exp_like"), std::string::npos) << m;
        EXPECT_NE(m.find("0x42b18000"), std::string::npos) << m;
        EXPECT_NE(m.find("octave exponent 6"), std::string::npos) << m;
        EXPECT_NE(m.find("bucket 99 but 99 section(s) stored"), std::string::npos) << m;
        EXPECT_EQ(e.input_bits, 0x42b18000u);
    }
}

TEST(Index, UndeclaredOctaveIsUnhandled) {
    Profile p = marker_profile();
    p.pos.octaves[1 + 127] = {};
    EXPECT_THROW(evaluate_generic(p, 3.0f), UnhandledSection);
}

// ---- symmetry fold and reconstruction ---------------------------------------------------

TEST(Symmetry, AsymmetricKeepsSignedInput) {
    Profile p = marker_profile();
    EXPECT_EQ(evaluate_generic(p, 1.5f), 50.0f);
    EXPECT_EQ(evaluate_generic(p, -1.5f), 60.0f);
}

Profile reciprocal_like() {
    Profile p;
    p.name = "reciprocal_like";
    p.symmetry_en = true;
    p.symmetry_invert_sign_opt = true;
    p.zero_result = flt(0x7f7fffff);
    // [4, 8): Taylor of 1/v about 4: 1/4 - t/16 + t^2/64 - t^3/256.
    add_octave(p.pos, 2, 0, {sec(4.0f, 0.25f, -0.0625f, 0.015625f, -0.00390625f)});
    p.sat_pos_high = sat(130, 0, sec(0, 0));  // >= 8
    p.sat_pos_low = sat(128, 0x7fffff, sec(0, 0));  // < 4
    return p;
}

TEST(Symmetry, OddFunctionNegatesAndAddsZeroPoint) {
    Profile p = reciprocal_like();
    EXPECT_EQ(evaluate_generic(p, 4.0f), 0.25f);
    EXPECT_EQ(evaluate_generic(p, -4.0f), -0.25f);
    // -5: sel = 5, t = 1: 0.25 - 0.0625 + 0.015625 - 0.00390625 = 0.19921875 exactly.
    EXPECT_EQ(evaluate_generic(p, 5.0f), 0.19921875f);
    EXPECT_EQ(evaluate_generic(p, -5.0f), -0.19921875f);
}

TEST(Symmetry, PointSymmetricStoreNegSigmoidLike) {
    // (T, T, T, 1.0): sel = -|v| for every input; negative inputs return -r + 1.
    Profile p;
    p.name = "sigmoid_like";
    p.symmetry_en = p.symmetry_invert_sign_opt = p.symmetry_opt_use_neg_region = true;
    p.symmetry_point = 1.0f;
    p.zero_result = 0.5f;
    add_octave(p.neg, 1, 0, {sec(-2.0f, 0.875f, 0.125f)});  // [-4, -2)
    p.sat_neg_high = sat(129, 0, sec(0, 1.0f));
    p.sat_neg_low = sat(127, 0x7fffff, sec(0, 0.5f));
    // +3: sel = -3, t = -1: 0.875 - 0.125 = 0.75, no reconstruction.
    EXPECT_EQ(evaluate_generic(p, 3.0f), 0.75f);
    // -3: the same 0.75, negated, plus 1 = 0.25.
    EXPECT_EQ(evaluate_generic(p, -3.0f), 0.25f);
    // The positive table is never consulted.
    EXPECT_EQ(p.pos.stored_sections(), 0u);
    // Non-representable reconstruction rounds in float: -r + 1 with r = 0.875 - 0.125*t.
    float r = 0.875f + 0.125f * (-2.5f - -2.0f);  // exact: 0.8125
    EXPECT_EQ(evaluate_generic(p, -2.5f), -r + 1.0f);
}

TEST(Symmetry, EvenFunctionAddsWithoutNegating) {
    Profile p = reciprocal_like();
    p.symmetry_invert_sign_opt = false;
    p.symmetry_point = 0.5f;
    EXPECT_EQ(evaluate_generic(p, -4.0f), 0.75f);  // 0.25 + 0.5
    EXPECT_EQ(evaluate_generic(p, 4.0f), 0.25f);  // positive: no reconstruction
}

TEST(Symmetry, ReconstructionOnlyForNegativeSignBitEvenForNan) {
    Profile p = reciprocal_like();
    p.sat_pos_high = sat(129, 0, sec(0, 0));
    // +NaN: no reconstruction, the NaN passes unchanged.
    EXPECT_EQ(eval_bits(p, 0x7fc00000), 0x7fc00000u);
    // -NaN: folded to +NaN, evaluated, then negated (sign bit set) and + 0.
    EXPECT_EQ(eval_bits(p, 0xffc00000), 0xffc00000u);
    EXPECT_EQ(eval_bits(p, 0xffc00001), 0xffc00001u);
}

TEST(Symmetry, PosOnlySqrtLikeReturnsNanFromNegativeClamps) {
    Profile p;
    p.name = "sqrt_like";
    add_octave(p.pos, 2, 0, {sec(4.0f, 2.0f, 0.25f)});
    p.sat_pos_high = sat(130, 0, sec(0, INFINITY));
    p.sat_pos_low = sat(128, 0x7fffff, sec(0, 0));
    Section nan_sec = sec_bits(0, 0x7fc00000, 0, 0, 0);
    p.sat_neg_high = sat(0, 0, nan_sec);
    p.sat_neg_low = sat(0, 0, nan_sec);
    EXPECT_EQ(evaluate_generic(p, 4.0f), 2.0f);
    for (uint32_t in : {0xc0800000u, 0xbf800000u, 0x80000001u, 0xff7fffffu}) EXPECT_EQ(eval_bits(p, in), 0x7fc00000u) << std::hex << in;
}

// ---- clamp-only residents ---------------------------------------------------------------

TEST(Residents, IdentityReturnsItsInputBitForBit) {
    Profile p = clamp_only("identity", sec(0, 0, 1));
    p.pinf_result = INFINITY;
    p.ninf_result = -INFINITY;
    for (uint32_t in :
         {0x3f800000u, 0xbf800000u, 0x00000001u, 0x80000001u, 0x7f7fffffu, 0xff7fffffu, 0x3eaaaaabu, 0x12345678u, 0x92345678u, 0x7f800000u, 0xff800000u})
        EXPECT_EQ(eval_bits(p, in), in) << std::hex << in;
    EXPECT_EQ(eval_bits(p, 0x80000000), 0u);  // -0 -> zero_result (+0)
}

TEST(Residents, ReluIsPositiveSlopeOneNegativeZero) {
    Profile p = clamp_only("relu", sec(0, 0, 1));
    p.sat_neg_high.section = sec(0, 0);
    p.sat_neg_low.section = sec(0, 0);
    p.pinf_result = INFINITY;
    EXPECT_EQ(evaluate_generic(p, 3.5f), 3.5f);
    EXPECT_EQ(eval_bits(p, bits(-3.5f)), 0u);  // t*0 + 0 = +0 (not -0)
    EXPECT_EQ(eval_bits(p, 0x80000001), 0u);
    EXPECT_EQ(eval_bits(p, 0xff800000), 0u);  // ninf_result
}

}  // namespace
}  // namespace neuronsim::test
