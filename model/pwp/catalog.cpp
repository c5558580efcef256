#include "model/pwp/catalog.h"

#include <cmath>
#include <limits>

#include "model/common/error.h"
#include "model/pwp/closed_forms.h"

namespace neuronsim::model::pwp {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr float kInfF = std::numeric_limits<float>::infinity();
const double kPi = std::acos(-1.0);

double sig(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double softplus(double x) { return std::fmax(x, 0.0) + std::log1p(std::exp(-std::fabs(x))); }
double phi(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2 * kPi); }
double Phi(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

SideLayout side(HighClamp high, double limit, double sat = 0, double tail_abs = 0) {
    SideLayout s;
    s.used = true;
    s.high = high;
    s.limit = limit;
    s.sat = sat;
    s.tail_abs = tail_abs;
    return s;
}

// Tails that decay to zero keep relative accuracy down to the smallest normal float
// ("denormal"), unless the budget is small, where they stop at an absolute 1e-7.
constexpr double kDenormal = 1.1754943508222875e-38;
// Clamping to the limit costs the tail's whole value: 2e-8 is a fifth of the bar's 1e-7.
constexpr double kTailAbs = 2e-8;
// The sweep's (and the certificate's) smallest magnitude: the smallest normal float. Below
// it (subnormal inputs) the low clamp answers as it does just above.
constexpr double kSmallest = kDenormal;

// The function each table approximates, in double precision, resolved once per catalog entry
// (the generator calls it for every fit sample).
using Target = double (*)(double);
Target target_of(const std::string& n) {
    static const std::pair<const char*, Target> targets[] = {
        {"exp", [](double x) { return std::exp(x); }},
        {"tanh", [](double x) { return std::tanh(x); }},
        {"softplus", [](double x) { return softplus(x); }},
        {"sigmoid", [](double x) { return sig(x); }},
        {"erf", [](double x) { return std::erf(x); }},
        {"arctan", [](double x) { return std::atan(x); }},
        {"sqrt", [](double x) { return std::sqrt(x); }},
        {"ln", [](double x) { return std::log(x); }},
        {"derivative_sigmoid", [](double x) { return sig(x) * sig(-x); }},
        {"derivative_tanh",
         [](double x) {
             double c = std::cosh(x);
             return 1.0 / (c * c);
         }},
        {"sin", [](double x) { return std::sin(x); }},
        {"derivative_gelu", [](double x) { return Phi(x) + x * phi(x); }},
        {"gelu", [](double x) { return x * Phi(x); }},
        {"gelu_apprx_tanh", [](double x) { return 0.5 * x * (1 + std::tanh(std::sqrt(2 / kPi) * (x + 0.044715 * x * x * x))); }},
        {"gelu_apprx_sigmoid", [](double x) { return x * sig(1.702 * x); }},
        {"reciprocal", [](double x) { return 1.0 / x; }},
        {"reciprocal_sqrt", [](double x) { return 1.0 / std::sqrt(x); }},
        {"abs_reciprocal_sqrt", [](double x) { return 1.0 / std::sqrt(std::fabs(x)); }},
        {"mish", [](double x) { return x * std::tanh(softplus(x)); }},
        {"derivative_erf", [](double x) { return 2 / std::sqrt(kPi) * std::exp(-x * x); }},
        {"silu", [](double x) { return x * sig(x); }},
        {"derivative_silu", [](double x) { return sig(x) * (1 + x * sig(-x)); }},
        {"derivative_gelu_apprx_sigmoid",
         [](double x) {
             double s = sig(1.702 * x);
             return s + 1.702 * x * s * (1 - s);
         }},
    };
    for (const auto& [name, f] : targets)
        if (n == name) return f;
    return nullptr;
}

std::vector<CatalogFn> build() {
    std::vector<CatalogFn> c;
    c.reserve(64);  // hero() hands out references into c: no reallocation while building
    auto hero = [&](std::string name, int budget, int max_lut, int sunda, int tonga, Symmetry sym, std::optional<ActFn> act) -> CatalogFn& {
        CatalogFn f;
        f.name = std::move(name);
        f.budget = budget;
        f.max_lut = max_lut;
        f.sunda_id = sunda;
        f.tonga_id = tonga;
        f.symmetry = sym;
        f.act = act;
        c.push_back(f);
        return c.back();
    };
    const double flt_max = std::numeric_limits<float>::max();

    // Asymmetric, decaying to zero on the left and overflowing on the right.
    auto& exp = hero("exp", 400, 777, 7, 7, Symmetry::Asymmetric, ActFn::Exp);
    exp.pos = side(HighClamp::Constant, kInf, std::log(flt_max));
    // Certifying the positive side takes 709 of the 777 buckets (the cubic's relative error
    // grows as h^4: octaves 3..6 need 64..256 buckets each), the negative side to -16 another
    // 58: the tail below e^-16 < 1e-7 gets what is left, about 7% relative error, and stops
    // at -64 (one bucket cannot follow e^x over [-87, -64] at all).
    exp.neg = side(HighClamp::Constant, 0, 64);
    exp.domain_lo = kSmallest, exp.domain_hi = 128;
    exp.zero_result = 1, exp.pinf_result = kInfF, exp.ninf_result = 0;

    auto& tanh = hero("tanh", 4, 104, 6, 6, Symmetry::Odd, ActFn::Tanh);
    tanh.pos = side(HighClamp::Constant, 1, 0, 0);
    tanh.domain_lo = kSmallest, tanh.domain_hi = 64;
    tanh.zero_result = 0, tanh.pinf_result = 1, tanh.ninf_result = -1;

    auto& softplus_fn = hero("softplus", 40, 828, 9, 9, Symmetry::Asymmetric, ActFn::Softplus);
    softplus_fn.pos = side(HighClamp::Identity, 0);
    softplus_fn.neg = side(HighClamp::Constant, 0, 0, kDenormal);
    softplus_fn.domain_lo = kSmallest, softplus_fn.domain_hi = 128;
    softplus_fn.zero_result = static_cast<float>(std::log(2.0)), softplus_fn.pinf_result = kInfF, softplus_fn.ninf_result = 0;

    auto& sigmoid = hero("sigmoid", 40, 796, 5, 5, Symmetry::PointStoreNeg, ActFn::Sigmoid);
    // Stored on the neg side: r(s) = sigmoid(|s|), which saturates to 1.
    sigmoid.neg = side(HighClamp::Constant, 1, 0, 0);
    sigmoid.domain_lo = kSmallest, sigmoid.domain_hi = 128;
    sigmoid.zero_result = 0.5f, sigmoid.pinf_result = 1, sigmoid.ninf_result = 0;

    auto& erf = hero("erf", 4, 66, 21, 21, Symmetry::Odd, ActFn::Erf);
    erf.pos = side(HighClamp::Constant, 1, 0, 0);
    erf.domain_lo = kSmallest, erf.domain_hi = 64;
    erf.zero_result = 0, erf.pinf_result = 1, erf.ninf_result = -1;

    auto& arctan = hero("arctan", 4, 168, 28, 28, Symmetry::Odd, ActFn::Arctan);
    arctan.pos = side(HighClamp::Extrapolate, 0, kPi / 2);
    arctan.domain_lo = kSmallest, arctan.domain_hi = kPi / 2;
    arctan.zero_result = 0, arctan.pinf_result = static_cast<float>(kPi / 2), arctan.ninf_result = static_cast<float>(-kPi / 2);

    auto& sqrt = hero("sqrt", 65536, 1113, 8, 8, Symmetry::PositiveOnly, ActFn::Sqrt);
    sqrt.e_lo = -116;
    sqrt.low = LowClamp::Constant;
    // Stored up to FLT_MAX; below 2^-116 the constant sqrt(2^-116) is within 2^-58 of sqrt(x).
    sqrt.pos = side(HighClamp::Constant, std::sqrt(flt_max), flt_max);
    sqrt.domain_lo = kSmallest, sqrt.domain_hi = flt_max, sqrt.domain_neg = false;
    // Above 2^54 the cubic coefficient (x^-2.5/16) is subnormal and the octaves are quadratic,
    // 16 buckets each instead of 8; lut_size pays for them up to here.
    sqrt.cert_hi = std::ldexp(1.0, 82);
    sqrt.zero_result = 0, sqrt.pinf_result = kInfF, sqrt.ninf_result = std::numeric_limits<float>::quiet_NaN();

    auto& ln40 = hero("ln", 40, 513, 10, 10, Symmetry::PositiveOnly, ActFn::Ln);
    ln40.e_lo = -64;
    ln40.low = LowClamp::Constant;
    ln40.pos = side(HighClamp::Constant, 64 * std::log(2.0), std::ldexp(1.0, 64));
    ln40.domain_lo = std::ldexp(1.0, -64), ln40.domain_hi = std::ldexp(1.0, 64), ln40.domain_neg = false;
    ln40.zero_result = -kInfF, ln40.pinf_result = kInfF, ln40.ninf_result = std::numeric_limits<float>::quiet_NaN();
    // d3 = 1/(3x^3) overflows below 2^-43 and is subnormal above 2^42 (a bit of it left at 2^49):
    // the quadratic octaves beyond need 8 buckets, which 513 cannot pay for.
    ln40.cert_lo = std::ldexp(1.0, -43), ln40.cert_hi = std::ldexp(1.0, 49);
    auto& ln400 = hero("ln", 400, 1219, 10, 10, Symmetry::PositiveOnly, ActFn::Ln);
    ln400 = ln40;
    // Shipped ln_400p has 1219 sections, but it shares natural_log_exp_and_others with
    // exp_400p and 13 residents in a 2048-entry bucket table (11-bit bkt_base): 1100 fits.
    ln400.budget = 400, ln400.max_lut = 1100;
    ln400.cert_lo = 0, ln400.cert_hi = kInf;

    auto& dsig = hero("derivative_sigmoid", 40, 797, 16, 0, Symmetry::Even, std::nullopt);
    dsig.pos = side(HighClamp::Constant, 0, 0, kDenormal);
    dsig.domain_lo = kSmallest, dsig.domain_hi = 128;
    dsig.zero_result = 0.25f, dsig.pinf_result = 0, dsig.ninf_result = 0;

    auto& dtanh = hero("derivative_tanh", 400, 401, 17, 0, Symmetry::Even, std::nullopt);
    dtanh.pos = side(HighClamp::Constant, 0, 0, kDenormal);
    dtanh.domain_lo = kSmallest, dtanh.domain_hi = 64;
    dtanh.zero_result = 1, dtanh.pinf_result = 0, dtanh.ninf_result = 0;

    auto& sin = hero("sin", 4, 55, 19, 19, Symmetry::Odd, ActFn::Sin);
    sin.pos = side(HighClamp::Extrapolate, 0, kPi);
    sin.domain_lo = kSmallest, sin.domain_hi = kPi;
    sin.zero_result = 0;
    sin.pinf_result = sin.ninf_result = std::numeric_limits<float>::quiet_NaN();

    auto& dgelu = hero("derivative_gelu", 40, 115, 32, 0, Symmetry::Asymmetric, ActFn::Derivative_Gelu);
    dgelu.pos = side(HighClamp::Constant, 1, 0, kTailAbs);
    dgelu.neg = side(HighClamp::Constant, 0, 0, kTailAbs);
    dgelu.domain_lo = kSmallest, dgelu.domain_hi = 64;
    dgelu.zero_result = 0.5f, dgelu.pinf_result = 1, dgelu.ninf_result = 0;

    auto& gelu = hero("gelu", 4, 504, 23, 31, Symmetry::Asymmetric, ActFn::Gelu);
    gelu.pos = side(HighClamp::Identity, 0);
    gelu.neg = side(HighClamp::Constant, 0, 0, kTailAbs);
    gelu.domain_lo = kSmallest, gelu.domain_hi = 64;
    gelu.zero_result = 0, gelu.pinf_result = kInfF, gelu.ninf_result = 0;

    auto& gtanh = hero("gelu_apprx_tanh", 40, 945, 25, 25, Symmetry::Asymmetric, ActFn::Gelu_apprx_tanh);
    gtanh = gelu;
    gtanh.name = "gelu_apprx_tanh", gtanh.budget = 40, gtanh.max_lut = 945, gtanh.sunda_id = 25, gtanh.tonga_id = 25;
    gtanh.act = ActFn::Gelu_apprx_tanh;

    auto& gsig = hero("gelu_apprx_sigmoid", 40, 1042, 26, 26, Symmetry::Asymmetric, ActFn::Gelu_apprx_sigmoid);
    gsig = gelu;
    gsig.name = "gelu_apprx_sigmoid", gsig.budget = 40, gsig.max_lut = 1042, gsig.sunda_id = 26, gsig.tonga_id = 26;
    gsig.act = ActFn::Gelu_apprx_sigmoid;
    gsig.neg = side(HighClamp::Constant, 0, 0, kDenormal);

    auto& recip = hero("reciprocal", 400, 1016, 129, 15, Symmetry::Odd, ActFn::Reciprocal);
    recip.e_lo = -42;
    recip.low = LowClamp::Constant;
    recip.pos = side(HighClamp::Constant, std::ldexp(1.0, -42), std::ldexp(1.0, 42));
    // Above 2^42 the clamp's 2^-42 is within 2.3e-13 of 1/x: the bar holds up to FLT_MAX.
    recip.domain_lo = std::ldexp(1.0, -42), recip.domain_hi = flt_max;
    // d3 = -1/x^4 overflows float below 2^-32: the quadratic octaves below need 64 buckets.
    recip.cert_lo = std::ldexp(1.0, -32);
    recip.zero_result = kInfF, recip.pinf_result = 0, recip.ninf_result = -0.0f;

    auto& rsqrt = hero("reciprocal_sqrt", 40000, 1202, 29, 29, Symmetry::PositiveOnly, ActFn::Rsqrt);
    rsqrt.e_lo = -87;
    rsqrt.low = LowClamp::Constant;
    rsqrt.pos = side(HighClamp::Constant, std::ldexp(1.0, -48) * std::sqrt(0.5), std::ldexp(1.0, 97));
    rsqrt.domain_lo = std::ldexp(1.0, -87), rsqrt.domain_hi = flt_max, rsqrt.domain_neg = false;
    // d2 = 3/8 x^-2.5 overflows float below 2^-51.8: the octaves below are linear, 256
    // buckets each. (d3 = -5/16 x^-3.5 already overflows below 2^-37: 32 buckets there.)
    rsqrt.cert_lo = std::ldexp(1.0, -51);
    rsqrt.zero_result = kInfF, rsqrt.pinf_result = 0, rsqrt.ninf_result = std::numeric_limits<float>::quiet_NaN();

    auto& arsqrt = hero("abs_reciprocal_sqrt", 40000, 1202, 34, 0, Symmetry::Even, ActFn::Abs_reciprocal_sqrt);
    arsqrt = rsqrt;
    arsqrt.name = "abs_reciprocal_sqrt", arsqrt.sunda_id = 34, arsqrt.tonga_id = 0;
    arsqrt.symmetry = Symmetry::Even, arsqrt.act = ActFn::Abs_reciprocal_sqrt, arsqrt.domain_neg = true;
    arsqrt.ninf_result = 0;

    auto& mish = hero("mish", 4, 1099, 24, 24, Symmetry::Asymmetric, ActFn::Mish);
    mish.pos = side(HighClamp::Identity, 0);
    mish.neg = side(HighClamp::Constant, 0, 0, kDenormal);
    mish.domain_lo = kSmallest, mish.domain_hi = 128;
    mish.zero_result = 0, mish.pinf_result = kInfF, mish.ninf_result = 0;

    auto& derf = hero("derivative_erf", 400, 466, 22, 0, Symmetry::Even, ActFn::Derivative_Erf);
    derf.pos = side(HighClamp::Constant, 0, 0, kTailAbs);
    derf.domain_lo = kSmallest, derf.domain_hi = 64;
    derf.zero_result = static_cast<float>(2 / std::sqrt(kPi)), derf.pinf_result = 0, derf.ninf_result = 0;

    auto& silu = hero("silu", 32, 908, 36, 0, Symmetry::Asymmetric, ActFn::Silu);
    silu = mish;
    silu.name = "silu", silu.budget = 32, silu.max_lut = 908, silu.sunda_id = 36, silu.tonga_id = 0, silu.act = ActFn::Silu;

    auto& dsilu = hero("derivative_silu", 32, 1008, 37, 0, Symmetry::Asymmetric, ActFn::Derivative_silu);
    dsilu.pos = side(HighClamp::Constant, 1, 0, 0);
    dsilu.neg = side(HighClamp::Constant, 0, 0, kDenormal);
    dsilu.domain_lo = kSmallest, dsilu.domain_hi = 128;
    dsilu.zero_result = 0.5f, dsilu.pinf_result = 1, dsilu.ninf_result = 0;
    // The closed form's s = 1/(1 + exp(-x)) rounds 1 + exp(-x) at 2^-23, and x (1 - s) carries
    // that x times: 6.7e-7 from the function in [4, 8), 9.8e-7 at x = 16.6.
    dsilu.ideal_ref_lo = 4, dsilu.ideal_ref_hi = 128;

    auto& dgsig = hero("derivative_gelu_apprx_sigmoid", 4096, 1283, 38, 0, Symmetry::Asymmetric, ActFn::Derivative_Gelu_apprx_sigmoid);
    dgsig = dsilu;
    dgsig.name = "derivative_gelu_apprx_sigmoid", dgsig.budget = 4096, dgsig.max_lut = 1283, dgsig.sunda_id = 38;
    dgsig.act = ActFn::Derivative_Gelu_apprx_sigmoid;
    // As derivative_silu, at 1.702 x: 5.4e-7 in [2, 4), 9.8e-7 at x = 9.8.
    dgsig.ideal_ref_lo = 2, dgsig.ideal_ref_hi = 128;

    for (CatalogFn& f : c) {
        f.target = target_of(f.name);
        if (!f.target) throw Error("catalog.cpp: no target function for '" + f.name + "'");
    }

    // The 13 budget-1 residents: clamp-only profiles, shapes in generator.cpp.
    struct R {
        const char* name;
        int sunda;
        int tonga;
        std::optional<ActFn> act;
    };
    for (const R& r :
         {R{"identity", 1, 1, ActFn::Identity}, R{"copy", 128, 0, ActFn::Copy}, R{"relu", 2, 2, ActFn::Relu}, R{"leaky_relu", 3, 3, ActFn::Lrelu},
          R{"parametric_relu", 4, 4, std::nullopt}, R{"abs", 33, 22, ActFn::Abs}, R{"sign", 31, 11, ActFn::Sign}, R{"square", 30, 30, ActFn::Square},
          R{"memset_zero", 130, 0, ActFn::MemsetZero}, R{"is_finite", 35, 0, std::nullopt}, R{"derivative_relu", 12, 0, std::nullopt},
          R{"derivative_leaky_relu", 13, 0, std::nullopt}, R{"derivative_identity", 14, 0, std::nullopt}}) {
        CatalogFn f;
        f.name = r.name;
        f.budget = 1;
        f.sunda_id = r.sunda;
        f.tonga_id = r.tonga;
        f.act = r.act;
        c.push_back(f);
    }
    return c;
}

}  // namespace

const std::vector<CatalogFn>& catalog() {
    static const std::vector<CatalogFn> c = build();
    return c;
}

const CatalogFn* find_catalog_fn(const std::string& name, int budget) {
    for (const CatalogFn& f : catalog())
        if (f.name == name && (budget == 0 || f.budget == budget)) return &f;
    return nullptr;
}

double ideal(const CatalogFn& fn, double x) {
    if (!fn.target) throw Error("no target function for '" + fn.name + "'");
    return fn.target(x);
}

float reference(const CatalogFn& fn, float x) {
    if (x >= fn.ideal_ref_lo && x <= fn.ideal_ref_hi) return static_cast<float>(ideal(fn, x));
    return closed_form(fn, x);
}

float closed_form(const CatalogFn& fn, float x) {
    if (fn.act) return exact(*fn.act, x, 0.0f);
    if (fn.name == "derivative_sigmoid") return exact_derivative_sigmoid(x);
    if (fn.name == "derivative_tanh") return exact_derivative_tanh(x);
    return static_cast<float>(ideal(fn, x));
}

}  // namespace neuronsim::model::pwp
