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
constexpr double kTailAbs = 1e-7;

std::vector<CatalogFn> build() {
    std::vector<CatalogFn> c;
    c.reserve(64);  // hero() hands out references into c: no reallocation while building
    auto hero = [&](std::string name, int budget, int max_lut, int sunda, int tonga, Symmetry sym,
                    std::optional<ActFn> act) -> CatalogFn& {
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
    exp.e_lo = -19;
    exp.pos = side(HighClamp::Constant, kInf, std::log(flt_max));
    exp.neg = side(HighClamp::Constant, 0, 0, kDenormal);
    exp.domain_lo = std::ldexp(1.0, -30), exp.domain_hi = 128;
    exp.zero_result = 1, exp.pinf_result = kInfF, exp.ninf_result = 0;

    auto& tanh = hero("tanh", 4, 104, 6, 6, Symmetry::Odd, ActFn::Tanh);
    tanh.e_lo = -7;
    tanh.pos = side(HighClamp::Constant, 1, 0, 0);
    tanh.domain_lo = std::ldexp(1.0, -30), tanh.domain_hi = 64;
    tanh.zero_result = 0, tanh.pinf_result = 1, tanh.ninf_result = -1;

    auto& softplus_fn = hero("softplus", 40, 828, 9, 9, Symmetry::Asymmetric, ActFn::Softplus);
    softplus_fn.e_lo = -8;
    softplus_fn.pos = side(HighClamp::Identity, 0);
    softplus_fn.neg = side(HighClamp::Constant, 0, 0, kDenormal);
    softplus_fn.domain_lo = std::ldexp(1.0, -30), softplus_fn.domain_hi = 128;
    softplus_fn.zero_result = static_cast<float>(std::log(2.0)), softplus_fn.pinf_result = kInfF, softplus_fn.ninf_result = 0;

    auto& sigmoid = hero("sigmoid", 40, 796, 5, 5, Symmetry::PointStoreNeg, ActFn::Sigmoid);
    sigmoid.e_lo = -10;
    // Stored on the neg side: r(s) = sigmoid(|s|), which saturates to 1.
    sigmoid.neg = side(HighClamp::Constant, 1, 0, 0);
    sigmoid.domain_lo = std::ldexp(1.0, -30), sigmoid.domain_hi = 128;
    sigmoid.zero_result = 0.5f, sigmoid.pinf_result = 1, sigmoid.ninf_result = 0;

    auto& erf = hero("erf", 4, 66, 21, 21, Symmetry::Odd, ActFn::Erf);
    erf.e_lo = -7;
    erf.pos = side(HighClamp::Constant, 1, 0, 0);
    erf.domain_lo = std::ldexp(1.0, -30), erf.domain_hi = 64;
    erf.zero_result = 0, erf.pinf_result = 1, erf.ninf_result = -1;

    auto& arctan = hero("arctan", 4, 168, 28, 28, Symmetry::Odd, ActFn::Arctan);
    arctan.e_lo = -7;
    arctan.pos = side(HighClamp::Extrapolate, 0, kPi / 2);
    arctan.domain_lo = std::ldexp(1.0, -30), arctan.domain_hi = kPi / 2;
    arctan.zero_result = 0, arctan.pinf_result = static_cast<float>(kPi / 2), arctan.ninf_result = static_cast<float>(-kPi / 2);

    auto& sqrt = hero("sqrt", 65536, 1113, 8, 8, Symmetry::PositiveOnly, ActFn::Sqrt);
    sqrt.e_lo = -116;
    sqrt.low = LowClamp::Constant;
    sqrt.pos = side(HighClamp::Constant, std::ldexp(1.0, 59), std::ldexp(1.0, 118));
    sqrt.domain_lo = std::ldexp(1.0, -116), sqrt.domain_hi = std::ldexp(1.0, 118), sqrt.domain_neg = false;
    sqrt.zero_result = 0, sqrt.pinf_result = kInfF, sqrt.ninf_result = std::numeric_limits<float>::quiet_NaN();

    auto& ln40 = hero("ln", 40, 513, 10, 10, Symmetry::PositiveOnly, ActFn::Ln);
    ln40.e_lo = -64;
    ln40.low = LowClamp::Constant;
    ln40.pos = side(HighClamp::Constant, 64 * std::log(2.0), std::ldexp(1.0, 64));
    ln40.domain_lo = std::ldexp(1.0, -64), ln40.domain_hi = std::ldexp(1.0, 64), ln40.domain_neg = false;
    ln40.zero_result = -kInfF, ln40.pinf_result = kInfF, ln40.ninf_result = std::numeric_limits<float>::quiet_NaN();
    auto& ln400 = hero("ln", 400, 1219, 10, 10, Symmetry::PositiveOnly, ActFn::Ln);
    ln400 = ln40;
    // Shipped ln_400p has 1219 sections, but it shares natural_log_exp_and_others with
    // exp_400p and 13 residents in a 2048-entry bucket table (11-bit bkt_base): 1100 fits.
    ln400.budget = 400, ln400.max_lut = 1100;

    auto& dsig = hero("derivative_sigmoid", 40, 797, 16, 0, Symmetry::Even, std::nullopt);
    dsig.e_lo = -10;
    dsig.pos = side(HighClamp::Constant, 0, 0, kDenormal);
    dsig.domain_lo = std::ldexp(1.0, -30), dsig.domain_hi = 128;
    dsig.zero_result = 0.25f, dsig.pinf_result = 0, dsig.ninf_result = 0;

    auto& dtanh = hero("derivative_tanh", 400, 401, 17, 0, Symmetry::Even, std::nullopt);
    dtanh.e_lo = -12;
    dtanh.pos = side(HighClamp::Constant, 0, 0, kDenormal);
    dtanh.domain_lo = std::ldexp(1.0, -30), dtanh.domain_hi = 64;
    dtanh.zero_result = 1, dtanh.pinf_result = 0, dtanh.ninf_result = 0;

    auto& sin = hero("sin", 4, 55, 19, 19, Symmetry::Odd, ActFn::Sin);
    sin.e_lo = -7;
    sin.pos = side(HighClamp::Extrapolate, 0, kPi);
    sin.domain_lo = std::ldexp(1.0, -30), sin.domain_hi = kPi;
    sin.zero_result = 0;
    sin.pinf_result = sin.ninf_result = std::numeric_limits<float>::quiet_NaN();

    auto& dgelu = hero("derivative_gelu", 40, 115, 32, 0, Symmetry::Asymmetric, ActFn::Derivative_Gelu);
    dgelu.e_lo = -8;
    dgelu.pos = side(HighClamp::Constant, 1, 0, kTailAbs);
    dgelu.neg = side(HighClamp::Constant, 0, 0, kTailAbs);
    dgelu.domain_lo = std::ldexp(1.0, -30), dgelu.domain_hi = 64;
    dgelu.zero_result = 0.5f, dgelu.pinf_result = 1, dgelu.ninf_result = 0;

    auto& gelu = hero("gelu", 4, 504, 23, 31, Symmetry::Asymmetric, ActFn::Gelu);
    gelu.e_lo = -10;
    gelu.pos = side(HighClamp::Identity, 0);
    gelu.neg = side(HighClamp::Constant, 0, 0, kTailAbs);
    gelu.domain_lo = std::ldexp(1.0, -30), gelu.domain_hi = 64;
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
    recip.domain_lo = std::ldexp(1.0, -42), recip.domain_hi = std::ldexp(1.0, 42);
    recip.zero_result = kInfF, recip.pinf_result = 0, recip.ninf_result = -0.0f;

    auto& rsqrt = hero("reciprocal_sqrt", 40000, 1202, 29, 29, Symmetry::PositiveOnly, ActFn::Rsqrt);
    rsqrt.e_lo = -87;
    rsqrt.low = LowClamp::Constant;
    rsqrt.pos = side(HighClamp::Constant, std::ldexp(1.0, -48) * std::sqrt(0.5), std::ldexp(1.0, 97));
    rsqrt.domain_lo = std::ldexp(1.0, -87), rsqrt.domain_hi = std::ldexp(1.0, 97), rsqrt.domain_neg = false;
    rsqrt.zero_result = kInfF, rsqrt.pinf_result = 0, rsqrt.ninf_result = std::numeric_limits<float>::quiet_NaN();

    auto& arsqrt = hero("abs_reciprocal_sqrt", 40000, 1202, 34, 0, Symmetry::Even, ActFn::Abs_reciprocal_sqrt);
    arsqrt = rsqrt;
    arsqrt.name = "abs_reciprocal_sqrt", arsqrt.sunda_id = 34, arsqrt.tonga_id = 0;
    arsqrt.symmetry = Symmetry::Even, arsqrt.act = ActFn::Abs_reciprocal_sqrt, arsqrt.domain_neg = true;
    arsqrt.ninf_result = 0;

    auto& mish = hero("mish", 4, 1099, 24, 24, Symmetry::Asymmetric, ActFn::Mish);
    mish.e_lo = -10;
    mish.pos = side(HighClamp::Identity, 0);
    mish.neg = side(HighClamp::Constant, 0, 0, kDenormal);
    mish.domain_lo = std::ldexp(1.0, -30), mish.domain_hi = 128;
    mish.zero_result = 0, mish.pinf_result = kInfF, mish.ninf_result = 0;

    auto& derf = hero("derivative_erf", 400, 466, 22, 0, Symmetry::Even, ActFn::Derivative_Erf);
    derf.e_lo = -12;
    derf.pos = side(HighClamp::Constant, 0, 0, kTailAbs);
    derf.domain_lo = std::ldexp(1.0, -30), derf.domain_hi = 64;
    derf.zero_result = static_cast<float>(2 / std::sqrt(kPi)), derf.pinf_result = 0, derf.ninf_result = 0;

    auto& silu = hero("silu", 32, 908, 36, 0, Symmetry::Asymmetric, ActFn::Silu);
    silu = mish;
    silu.name = "silu", silu.budget = 32, silu.max_lut = 908, silu.sunda_id = 36, silu.tonga_id = 0, silu.act = ActFn::Silu;

    auto& dsilu = hero("derivative_silu", 32, 1008, 37, 0, Symmetry::Asymmetric, ActFn::Derivative_silu);
    dsilu.e_lo = -10;
    dsilu.pos = side(HighClamp::Constant, 1, 0, 0);
    dsilu.neg = side(HighClamp::Constant, 0, 0, kDenormal);
    dsilu.domain_lo = std::ldexp(1.0, -30), dsilu.domain_hi = 128;
    dsilu.zero_result = 0.5f, dsilu.pinf_result = 1, dsilu.ninf_result = 0;

    auto& dgsig = hero("derivative_gelu_apprx_sigmoid", 4096, 1283, 38, 0, Symmetry::Asymmetric, ActFn::Derivative_Gelu_apprx_sigmoid);
    dgsig = dsilu;
    dgsig.name = "derivative_gelu_apprx_sigmoid", dgsig.budget = 4096, dgsig.max_lut = 1283, dgsig.sunda_id = 38;
    dgsig.act = ActFn::Derivative_Gelu_apprx_sigmoid;

    // The 13 budget-1 residents: clamp-only profiles, shapes in generator.cpp.
    struct R { const char* name; int sunda; int tonga; std::optional<ActFn> act; };
    for (const R& r : {R{"identity", 1, 1, ActFn::Identity}, R{"copy", 128, 0, ActFn::Copy},
                       R{"relu", 2, 2, ActFn::Relu}, R{"leaky_relu", 3, 3, ActFn::Lrelu},
                       R{"parametric_relu", 4, 4, std::nullopt}, R{"abs", 33, 22, ActFn::Abs},
                       R{"sign", 31, 11, ActFn::Sign}, R{"square", 30, 30, ActFn::Square},
                       R{"memset_zero", 130, 0, ActFn::MemsetZero}, R{"is_finite", 35, 0, std::nullopt},
                       R{"derivative_relu", 12, 0, std::nullopt}, R{"derivative_leaky_relu", 13, 0, std::nullopt},
                       R{"derivative_identity", 14, 0, std::nullopt}}) {
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
    const std::string& n = fn.name;
    if (n == "exp") return std::exp(x);
    if (n == "tanh") return std::tanh(x);
    if (n == "softplus") return softplus(x);
    if (n == "sigmoid") return sig(x);
    if (n == "erf") return std::erf(x);
    if (n == "arctan") return std::atan(x);
    if (n == "sqrt") return std::sqrt(x);
    if (n == "ln") return std::log(x);
    if (n == "derivative_sigmoid") return sig(x) * sig(-x);
    if (n == "derivative_tanh") { double c = std::cosh(x); return 1.0 / (c * c); }
    if (n == "sin") return std::sin(x);
    if (n == "derivative_gelu") return Phi(x) + x * phi(x);
    if (n == "gelu") return x * Phi(x);
    if (n == "gelu_apprx_tanh") return 0.5 * x * (1 + std::tanh(std::sqrt(2 / kPi) * (x + 0.044715 * x * x * x)));
    if (n == "gelu_apprx_sigmoid") return x * sig(1.702 * x);
    if (n == "reciprocal") return 1.0 / x;
    if (n == "reciprocal_sqrt") return 1.0 / std::sqrt(x);
    if (n == "abs_reciprocal_sqrt") return 1.0 / std::sqrt(std::fabs(x));
    if (n == "mish") return x * std::tanh(softplus(x));
    if (n == "derivative_erf") return 2 / std::sqrt(kPi) * std::exp(-x * x);
    if (n == "silu") return x * sig(x);
    if (n == "derivative_silu") return sig(x) * (1 + x * sig(-x));
    if (n == "derivative_gelu_apprx_sigmoid") { double s = sig(1.702 * x); return s + 1.702 * x * s * (1 - s); }
    throw Error("no target function for '" + n + "'");
}

float closed_form(const CatalogFn& fn, float x) {
    if (fn.act) return exact(*fn.act, x, 0.0f);
    if (fn.name == "derivative_sigmoid") return exact_derivative_sigmoid(x);
    if (fn.name == "derivative_tanh") return exact_derivative_tanh(x);
    return static_cast<float>(ideal(fn, x));
}

}  // namespace neuronsim::model::pwp
