// The profile generator: budgets, accuracy, symmetry classes, special results, residents,
// determinism.
#include <cmath>
#include <filesystem>
#include <random>

#include <gtest/gtest.h>

#include "model/pwp/accuracy.h"
#include "model/pwp/catalog.h"
#include "model/pwp/catalog_writer.h"
#include "model/pwp/evaluate.h"
#include "model/pwp/generator.h"
#include "model/pwp/profile_loader.h"
#include "model/pwp/profile_writer.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {
namespace {

using namespace model::pwp;

TEST(Catalog, RostersNameEveryFunctionOnce) {
    // 24 table functions (ln twice: 40 and 400) and the 13 residents.
    size_t heroes = 0, residents = 0;
    for (const CatalogFn& f : catalog()) (f.resident() ? residents : heroes)++;
    EXPECT_EQ(heroes, 24u);
    EXPECT_EQ(residents, 13u);
    EXPECT_EQ(find_catalog_fn("exp")->file_name(), "exp_400p.json");
    EXPECT_EQ(find_catalog_fn("ln", 400)->file_name(), "ln_400p.json");
    EXPECT_EQ(find_catalog_fn("derivative_gelu_apprx_sigmoid")->file_name(), "derivative_gelu_apprx_sigmoid_4096p.json");
}

TEST(Generator, EveryTableWithinItsShippedLutSize) {
    for (const CatalogFn& fn : catalog()) {
        Profile p = generate_profile(fn);
        if (fn.resident()) {
            EXPECT_EQ(p.stored_sections(), 0u) << fn.name;
            continue;
        }
        EXPECT_LE(p.stored_sections(), static_cast<size_t>(fn.max_lut)) << fn.name;
        EXPECT_EQ(p.meta.lut_size, static_cast<int64_t>(p.stored_sections())) << fn.name;
        EXPECT_TRUE(p.warnings.empty());
    }
}

// The accuracy certificate itself is pinned by catalog_accuracy_test.cpp.

TEST(Generator, LowClampReachesAsFarAsItsCubicHolds) {
    // A Taylor low clamp covers |x| <= 2^e_lo with one cubic (each octave it covers is a
    // bucket saved); exp's reaches 1/8. d0 is f(0): tiny inputs return exp(0) = 1 exactly, and
    // odd functions keep their relative accuracy.
    Profile exp = generate_profile(*find_catalog_fn("exp"));
    EXPECT_EQ(exp.sat_pos_low.sat_point, 127 - 3);
    EXPECT_EQ(exp.sat_neg_low.sat_point, 127 - 3);
    EXPECT_EQ(evaluate_generic(exp, 1e-20f), 1.0f);
    EXPECT_EQ(evaluate_generic(exp, -1e-20f), 1.0f);
    Profile tanh = generate_profile(*find_catalog_fn("tanh"));
    EXPECT_EQ(tanh.sat_pos_low.section.d0, 0.0f);
    for (float v : {1e-30f, -3e-20f, 1e-9f, 2.5e-5f}) EXPECT_NEAR(evaluate_generic(tanh, v) / v, 1.0, 1e-6) << v;
}

TEST(Generator, SigmoidNegativeSideSurvivesTheCancellation) {
    // Negative inputs return 1 - r: r near 1 must be within about an ulp of sigmoid(|x|), which
    // the breakpoint snapping gives (d0's rounding no longer shifts the whole bucket).
    const CatalogFn& fn = *find_catalog_fn("sigmoid");
    Profile p = generate_profile(fn);
    for (float v = -16.0f; v < -2.0f; v += 0.0137f) {
        float y = evaluate_generic(p, v), c = closed_form(fn, v);
        EXPECT_LE(std::fabs(static_cast<double>(y) - c), 0.75e-7) << v;
    }
}

TEST(Generator, SymmetryClassesAndSpecialResults) {
    auto flags = [](const char* name) {
        Profile p = generate_profile(*find_catalog_fn(name));
        return std::vector<bool>{p.symmetry_en, p.symmetry_invert_sign_opt, p.symmetry_opt_use_neg_region};
    };
    using V = std::vector<bool>;
    EXPECT_EQ(flags("exp"), (V{false, false, false}));
    EXPECT_EQ(flags("gelu"), (V{false, false, false}));
    EXPECT_EQ(flags("sigmoid"), (V{true, true, true}));
    EXPECT_EQ(flags("tanh"), (V{true, true, false}));
    EXPECT_EQ(flags("reciprocal"), (V{true, true, false}));
    EXPECT_EQ(flags("derivative_sigmoid"), (V{true, false, false}));
    EXPECT_EQ(flags("abs_reciprocal_sqrt"), (V{true, false, false}));
    EXPECT_EQ(flags("sqrt"), (V{false, false, false}));

    Profile sig = generate_profile(*find_catalog_fn("sigmoid"));
    EXPECT_EQ(sig.symmetry_point, 1.0f);
    EXPECT_EQ(sig.pos.stored_sections(), 0u);  // store-neg
    EXPECT_GT(sig.neg.stored_sections(), 0u);
    Profile tanh = generate_profile(*find_catalog_fn("tanh"));
    EXPECT_EQ(tanh.neg.stored_sections(), 0u);

    Profile exp = generate_profile(*find_catalog_fn("exp"));
    EXPECT_EQ(exp.zero_result, 1.0f);
    EXPECT_EQ(exp.pinf_result, INFINITY);
    EXPECT_EQ(exp.ninf_result, 0.0f);
    EXPECT_TRUE(std::isnan(exp.nan_result));
    // exp overflows above ln(FLT_MAX): the high clamp carries +inf and starts in octave +6.
    EXPECT_EQ(exp.sat_pos_high.sat_point, 133);
    EXPECT_EQ(bits(exp.sat_pos_high.section.d0), 0x7f800000u);
    EXPECT_EQ(evaluate_generic(exp, 89.0f), INFINITY);

    Profile sq = generate_profile(*find_catalog_fn("sqrt"));
    EXPECT_TRUE(std::isnan(evaluate_generic(sq, -4.0f)));  // NaN in the negative clamps
    EXPECT_TRUE(std::isnan(sq.ninf_result));
    EXPECT_EQ(sq.neg.stored_sections(), 0u);
    Profile rec = generate_profile(*find_catalog_fn("reciprocal"));
    EXPECT_EQ(rec.zero_result, INFINITY);
    EXPECT_NEAR(evaluate_generic(rec, -4.0f), -0.25f, 1e-6);
}

TEST(Generator, SinExtrapolatesItsLastCubicPastPi) {
    // No range reduction on hardware: beyond pi the last bucket's cubic continues.
    Profile p = generate_profile(*find_catalog_fn("sin"));
    const Region::Octave& top = p.pos.octaves[1 + 127];
    const Section& last = p.pos.sections[top.first + top.count - 1];
    EXPECT_EQ(bits(evaluate_generic(p, 9.0f)), bits(cubic(last, 9.0f)));
    EXPECT_GT(std::fabs(evaluate_generic(p, 9.0f)), 1.5f);  // far from sin(9) = 0.41
    EXPECT_EQ(bits(evaluate_generic(p, -9.0f)), bits(-cubic(last, 9.0f) + 0.0f));
}

TEST(Generator, ResidentsAreClampOnly) {
    std::mt19937 rng(5);
    auto prof = [](const char* n) { return generate_profile(*find_catalog_fn(n)); };
    Profile id = prof("identity"), relu = prof("relu"), abs = prof("abs"), sign = prof("sign"), sq = prof("square"), fin = prof("is_finite"),
            zero = prof("memset_zero"), lrelu = prof("leaky_relu");
    for (const Profile* p : {&id, &relu, &abs, &sign, &sq, &fin, &zero, &lrelu}) EXPECT_EQ(p->stored_sections(), 0u);
    for (int i = 0; i < 2000; ++i) {
        float v = flt(rng() & 0xFF7FFFFFu);  // finite, either sign
        if (v == 0.0f) continue;
        EXPECT_EQ(bits(evaluate_generic(id, v)), bits(v));
        EXPECT_EQ(evaluate_generic(relu, v), v > 0 ? v : 0.0f);
        EXPECT_EQ(evaluate_generic(abs, v), std::fabs(v));
        EXPECT_EQ(evaluate_generic(sign, v), v > 0 ? 1.0f : -1.0f);
        EXPECT_EQ(evaluate_generic(sq, v), v * v);
        EXPECT_EQ(evaluate_generic(fin, v), 1.0f);
        EXPECT_EQ(evaluate_generic(zero, v), 0.0f);
        EXPECT_EQ(evaluate_generic(lrelu, v), v > 0 ? v : 0.01f * v);
    }
    EXPECT_EQ(evaluate_generic(fin, INFINITY), 0.0f);
    EXPECT_EQ(evaluate_generic(id, -INFINITY), -INFINITY);
}

TEST(Generator, ProfilesRoundTripThroughTheShippedSchema) {
    for (const CatalogFn& fn : catalog()) {
        Profile p = generate_profile(fn);
        std::string text = profile_to_text(p);
        Profile q = parse_profile(text, fn.file_name());
        EXPECT_EQ(profile_to_text(q), text) << fn.name;
        auto j = nlohmann::json::parse(text);
        EXPECT_EQ(j.size(), 24u) << fn.name;  // the 24-key schema
    }
}

TEST(Generator, CatalogIsDeterministic) {
    // Two generations, byte for byte (its speed is measured by bench/ and `pwp gen`).
    TempDir a, b;
    write_catalog(a.path());
    write_catalog(b.path());
    size_t files = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(a.path())) {
        if (!e.is_regular_file()) continue;
        std::string rel = std::filesystem::relative(e.path(), a.path()).string();
        ASSERT_EQ(read_file(e.path().string()), read_file(b.file(rel))) << rel;
        ++files;
    }
    EXPECT_EQ(files, 37u + 2 * 2 + 3 * (21 + 14));  // profiles, act_info+version, 3 files per set
}

}  // namespace
}  // namespace neuronsim::test
