// The closed forms: each against an independent double-precision formula (within a few
// float ulps) and the exact identities the reference's constants imply.
#include <cmath>

#include <gtest/gtest.h>

#include "model/pwp/closed_forms.h"

namespace neuronsim::test {
namespace {

using model::pwp::ActFn;
using model::pwp::exact;

double ulps(float got, double want) {
    double u = std::nextafter(static_cast<float>(want), INFINITY) - static_cast<float>(want);
    return std::fabs(got - want) / std::fabs(u == 0 ? 1e-45 : u);
}

TEST(ClosedForms, MatchIndependentDoubleFormulas) {
    const double pi = 3.14159265358979323846;
    auto sig = [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
    for (float x : {-6.0f, -2.5f, -1.0f, -0.3f, 0.1f, 0.7f, 1.0f, 2.0f, 5.0f}) {
        double d = x;
        struct {
            ActFn fn;
            double want;
        } cases[] = {
            {ActFn::Sigmoid, sig(d)},
            {ActFn::Tanh, std::tanh(d)},
            {ActFn::Exp, std::exp(d)},
            {ActFn::Softplus, std::log1p(std::exp(d))},
            {ActFn::Erf, std::erf(d)},
            {ActFn::Sin, std::sin(d)},
            {ActFn::Arctan, std::atan(d)},
            {ActFn::Gelu, 0.5 * d * (1 + std::erf(d / std::sqrt(2.0)))},
            {ActFn::Mish, d * std::tanh(std::log1p(std::exp(d)))},
            {ActFn::Gelu_apprx_tanh, 0.5 * d * (1 + std::tanh(std::sqrt(2 / pi) * (d + 0.044715 * d * d * d)))},
            {ActFn::Gelu_apprx_sigmoid, d * sig(1.702 * d)},
            {ActFn::Derivative_Gelu, 0.5 * (1 + std::erf(d / std::sqrt(2.0))) + d * std::exp(-d * d / 2) / std::sqrt(2 * pi)},
            {ActFn::Derivative_Erf, 2 / std::sqrt(pi) * std::exp(-d * d)},
            {ActFn::Silu, d * sig(d)},
            {ActFn::Derivative_silu, sig(d) * (1 + d * (1 - sig(d)))},
            {ActFn::Derivative_Gelu_apprx_sigmoid, sig(1.702 * d) + 1.702 * d * sig(1.702 * d) * (1 - sig(1.702 * d))},
        };
        for (const auto& c : cases) {
            float got = exact(c.fn, x, 0);
            // Relative 2e-6 or 1e-7 absolute: a few float ulps of slack for float intermediates.
            EXPECT_NEAR(got, c.want, std::max(2e-6 * std::fabs(c.want), 1e-7)) << model::pwp::act_fn_name(c.fn) << "(" << x << ")";
        }
        if (x > 0) {
            EXPECT_LE(ulps(exact(ActFn::Sqrt, x, 0), std::sqrt(d)), 0.5);
            EXPECT_LE(ulps(exact(ActFn::Ln, x, 0), std::log(d)), 1.0);
            EXPECT_LE(ulps(exact(ActFn::Rsqrt, x, 0), 1 / std::sqrt(d)), 1.0);
        }
        EXPECT_EQ(exact(ActFn::Reciprocal, x, 0), 1.0f / x);
        EXPECT_EQ(exact(ActFn::Abs_reciprocal_sqrt, x, 0), 1.0f / std::sqrt(std::fabs(x)));
    }
}

TEST(ClosedForms, PiecewiseAndTrivialFunctions) {
    EXPECT_EQ(exact(ActFn::Identity, -3.5f, 9), -3.5f);
    EXPECT_EQ(exact(ActFn::Copy, -3.5f, 9), -3.5f);
    EXPECT_EQ(exact(ActFn::Square, -3.0f, 9), 9.0f);
    EXPECT_EQ(exact(ActFn::Relu, -3.0f, 9), 0.0f);
    EXPECT_EQ(exact(ActFn::Relu, 3.0f, 9), 3.0f);
    EXPECT_EQ(exact(ActFn::Lrelu, -3.0f, 9), 0.01f * -3.0f);  // alpha ignored
    EXPECT_EQ(exact(ActFn::Prelu, -3.0f, 0.5f), -1.5f);
    EXPECT_EQ(exact(ActFn::Sign, -3.0f, 0), -1.0f);
    EXPECT_EQ(exact(ActFn::Sign, 0.25f, 0), 1.0f);
    EXPECT_EQ(exact(ActFn::Abs, -0.25f, 0), 0.25f);
    EXPECT_EQ(exact(ActFn::MemsetZero, 7.0f, 0), 0.0f);
    EXPECT_EQ(exact(ActFn::Ln_prime, 4.0f, 0), 0.25f);
}

TEST(ClosedForms, SoftplusSaturatesToXNotInfinity) {
    EXPECT_EQ(exact(ActFn::Softplus, 100.0f, 0), 100.0f);
    EXPECT_EQ(exact(ActFn::Softplus, -100.0f, 0), std::exp(-100.0f));
}

}  // namespace
}  // namespace neuronsim::test
