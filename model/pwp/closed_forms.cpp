#include "model/pwp/closed_forms.h"

#include <cmath>

namespace neuronsim::model::pwp {

namespace {

constexpr double kInvSqrt2 = 0.7071067811865476;  // 1/sqrt(2)
constexpr double kSqrt2OverPi = 0.7978845608028654;  // sqrt(2/pi)
constexpr float kInvSqrt2Pi = 0.3989423f;  // 1/sqrt(2*pi)
constexpr float kTwoOverSqrtPi = 1.1283792f;  // 2/sqrt(pi)
constexpr double kGeluTanhCubic = 0.044715;
constexpr float kGeluSigmoidScale = 1.702f;
constexpr float kLreluSlope = 0.01f;  // hardcoded in the reference, not alpha

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// max(x,0) + log1p(exp(-|x|)): the same function as log(1+exp(x)) without its overflow to
// +inf above x ~ 88, so the tables fitted against it saturate to x, not to infinity.
float softplus(float x) { return std::fmax(x, 0.0f) + std::log1p(std::exp(-std::fabs(x))); }

float erf_f(float x) { return std::erf(x); }
float exp_f(float x) { return std::exp(x); }

}  // namespace

float exact(ActFn fn, float x, float alpha) {
    switch (fn) {
        case ActFn::Identity: return x;
        case ActFn::Square: return x * x;
        case ActFn::Relu: return x > 0.0f ? x : 0.0f;
        case ActFn::Lrelu: return x > 0.0f ? x : kLreluSlope * x;
        case ActFn::Prelu: return x > 0.0f ? x : alpha * x;
        case ActFn::Sigmoid: return sigmoid(x);
        case ActFn::Tanh: return std::tanh(x);
        case ActFn::Exp: return exp_f(x);
        case ActFn::Softplus: return softplus(x);
        case ActFn::Sqrt: return std::sqrt(x);
        case ActFn::Rsqrt: return 1.0f / std::sqrt(x);
        case ActFn::Ln: return std::log(x);
        case ActFn::Ln_prime: return 1.0f / x;
        case ActFn::Erf: return erf_f(x);
        case ActFn::Sin: return std::sin(x);
        case ActFn::Arctan: return std::atan(x);
        case ActFn::Sign: return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : x);  // keeps +-0 and NaN
        case ActFn::Gelu:  // double: 0.5 x (1 + erf(x/sqrt2))
            return static_cast<float>(0.5 * x * (1.0 + std::erf(x * kInvSqrt2)));
        case ActFn::Mish: return x * std::tanh(softplus(x));
        case ActFn::Gelu_apprx_tanh: {  // double: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
            double d = x;
            return static_cast<float>(0.5 * d * (1.0 + std::tanh(kSqrt2OverPi * (d + kGeluTanhCubic * d * d * d))));
        }
        case ActFn::Gelu_apprx_sigmoid: return x * sigmoid(kGeluSigmoidScale * x);
        case ActFn::Derivative_Gelu: {  // Phi(x) + x phi(x), through the exact erf/exp helpers
            float cdf = 0.5f * (1.0f + erf_f(x * static_cast<float>(kInvSqrt2)));
            float pdf = kInvSqrt2Pi * exp_f(-0.5f * x * x);
            return cdf + x * pdf;
        }
        case ActFn::Derivative_Erf: return kTwoOverSqrtPi * exp_f(-(x * x));
        case ActFn::Copy: return x;
        case ActFn::Abs: return std::fabs(x);
        case ActFn::Reciprocal: return 1.0f / x;
        case ActFn::Abs_reciprocal_sqrt: return 1.0f / std::sqrt(std::fabs(x));
        case ActFn::MemsetZero: return 0.0f;
        case ActFn::Silu: return x * sigmoid(x);
        case ActFn::Derivative_silu: {
            float s = sigmoid(x);
            return s * (1.0f + x * (1.0f - s));
        }
        case ActFn::Derivative_Gelu_apprx_sigmoid: {
            float s = sigmoid(kGeluSigmoidScale * x);
            return s + kGeluSigmoidScale * x * s * (1.0f - s);
        }
    }
    return x;  // unreachable: every enumerator is handled above
}

// Written without the cancellation of s*(1-s) and 1-tanh^2, which lose most of their digits
// for |x| > 2 in float; the tables are fitted to these.
float exact_derivative_sigmoid(float x) {
    float e = std::exp(-std::fabs(x));
    float d = 1.0f + e;
    return e / (d * d);
}

float exact_derivative_tanh(float x) {
    float c = std::cosh(x);
    return 1.0f / (c * c);
}

}  // namespace neuronsim::model::pwp
