#pragma once
// The 31 activation names of the reference simulator's name dispatch, in its compare-chain
// order (seed 003 §2.3). Dispatch is by name string, never by the BIR enum integer.
#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace neuronsim::model::pwp {

enum class ActFn {
    Identity,
    Square,
    Relu,
    Lrelu,
    Prelu,
    Sigmoid,
    Tanh,
    Exp,
    Softplus,
    Sqrt,
    Rsqrt,
    Ln,
    Ln_prime,
    Erf,
    Sin,
    Arctan,
    Sign,
    Gelu,
    Mish,
    Gelu_apprx_tanh,
    Gelu_apprx_sigmoid,
    Derivative_Gelu,
    Derivative_Erf,
    Copy,
    Abs,
    Reciprocal,
    Abs_reciprocal_sqrt,
    MemsetZero,
    Silu,
    Derivative_silu,
    Derivative_Gelu_apprx_sigmoid,
};

inline constexpr size_t kNumActFn = 31;

const std::array<std::string_view, kNumActFn>& act_fn_names();
std::string_view act_fn_name(ActFn fn);
std::optional<ActFn> find_act_fn(std::string_view name);

// Like find_act_fn, but an unknown name raises the reference's own error text:
// "Unsupported activation function Simulator::simulation: <name>".
ActFn lookup_act_fn(std::string_view name);

}  // namespace neuronsim::model::pwp
