// The catalog's accuracy certificate (docs/pwp-tables.md): through evaluate_generic, every table meets
// the bar |y - f| <= 1e-6 max(|f|, 0.1) over a dense sweep of the domain it certifies, at a
// lut_size no larger than the shipped table's, and the certified domains are the documented
// ones (docs/pwp-tables.md, "Certified domains").
#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include "model/pwp/accuracy.h"
#include "model/pwp/catalog.h"
#include "model/pwp/generator.h"

namespace neuronsim::test {
namespace {

using namespace model::pwp;

// hardware-facts §B.1 (and the set sizes of §B.3 for the derivatives it does not list);
// ln_400p is held to 1100 so natural_log_exp_and_others fits the 2048-entry bucket table.
const std::map<std::string, int>& shipped_lut_size() {
    static const std::map<std::string, int> m = {
        {"exp_400p", 777},
        {"tanh_4p", 104},
        {"softplus_40p", 828},
        {"sigmoid_40p", 796},
        {"erf_4p", 66},
        {"arctan_4p", 168},
        {"sqrt_65536p", 1113},
        {"ln_40p", 513},
        {"ln_400p", 1100},
        {"derivative_sigmoid_40p", 797},
        {"derivative_tanh_400p", 401},
        {"sin_4p", 55},
        {"derivative_gelu_40p", 115},
        {"gelu_4p", 504},
        {"gelu_apprx_tanh_40p", 945},
        {"gelu_apprx_sigmoid_40p", 1042},
        {"reciprocal_400p", 1016},
        {"reciprocal_sqrt_40000p", 1202},
        {"abs_reciprocal_sqrt_40000p", 1202},
        {"mish_4p", 1099},
        {"derivative_erf_400p", 466},
        {"silu_32p", 908},
        {"derivative_silu_32p", 1008},
        {"derivative_gelu_apprx_sigmoid_4096p", 1283},
    };
    return m;
}

std::string stem(const CatalogFn& fn) { return fn.file_name().substr(0, fn.file_name().size() - 5); }

TEST(CatalogAccuracy, EveryTableMeetsTheBarOverItsCertifiedDomain) {
    size_t tables = 0;
    for (const CatalogFn& fn : catalog()) {
        if (fn.resident()) continue;
        ++tables;
        Profile p = generate_profile(fn);
        ASSERT_TRUE(shipped_lut_size().count(stem(fn))) << stem(fn);
        EXPECT_LE(p.stored_sections(), static_cast<size_t>(shipped_lut_size().at(stem(fn)))) << stem(fn);
        EXPECT_LE(fn.max_lut, shipped_lut_size().at(stem(fn))) << stem(fn);
        // 8192 mantissas per octave, both signs: every bucket's first input and more.
        Accuracy a = measure_accuracy(fn, p, 8192);
        EXPECT_EQ(a.unhandled, 0u) << stem(fn);
        EXPECT_GT(a.certified_samples, 8192u) << stem(fn);
        EXPECT_LE(a.max_score, kAccuracyBar) << stem(fn) << ": score " << a.max_score << " at input 0x" << std::hex << a.worst_input << " (" << a.failing
                                             << " inputs over the bar, |x| in [" << a.fail_lo << ", " << a.fail_hi << "])";
    }
    EXPECT_EQ(tables, 24u);
}

TEST(CatalogAccuracy, CertifiedDomainsAreTheDocumentedOnes) {
    // The whole sweep domain, except where float coefficients cannot hold the cubic (or the
    // lut_size cannot pay for the quadratic octaves beyond): a change here is a change of the
    // certificate, and of docs/pwp-tables.md.
    struct Limit {
        double lo, hi;
    };
    const std::map<std::string, Limit> narrowed = {
        {"sqrt_65536p", {0, std::ldexp(1.0, 82)}},  // d2 = -x^-1.5/8 subnormal above 2^82
        {"ln_40p", {std::ldexp(1.0, -43), std::ldexp(1.0, 49)}},  // d3 = 1/(3x^3) overflows / underflows
        {"reciprocal_400p", {std::ldexp(1.0, -32), INFINITY}},  // d3 = -x^-4 overflows below 2^-32
        {"reciprocal_sqrt_40000p", {std::ldexp(1.0, -51), INFINITY}},  // d2 overflows below 2^-51.8
        {"abs_reciprocal_sqrt_40000p", {std::ldexp(1.0, -51), INFINITY}},
    };
    for (const CatalogFn& fn : catalog()) {
        if (fn.resident()) continue;
        auto it = narrowed.find(stem(fn));
        const double lo = it == narrowed.end() ? 0 : it->second.lo, hi = it == narrowed.end() ? INFINITY : it->second.hi;
        EXPECT_EQ(fn.cert_lo, lo) << stem(fn);
        EXPECT_EQ(fn.cert_hi, hi) << stem(fn);
        EXPECT_TRUE(fn.certified(std::max(fn.domain_lo, lo))) << stem(fn);
    }
    // The bar's absolute part reaches the whole float range for these clamps.
    EXPECT_EQ(find_catalog_fn("reciprocal")->domain_hi, 3.4028234663852886e38);
    EXPECT_EQ(find_catalog_fn("sqrt")->domain_lo, 1.1754943508222875e-38);
}

TEST(CatalogAccuracy, ScoreIsRelativeAboveAndAbsoluteBelowOneTenth) {
    EXPECT_DOUBLE_EQ(error_score(1.000001f, 1.0f), std::fabs(1.000001f - 1.0));
    EXPECT_DOUBLE_EQ(error_score(0.0100001f, 0.01f), std::fabs(static_cast<double>(0.0100001f) - 0.01f) / 0.1);
    EXPECT_EQ(error_score(INFINITY, INFINITY), 0.0);
    EXPECT_EQ(error_score(1e30f, INFINITY), INFINITY);
}

}  // namespace
}  // namespace neuronsim::test
