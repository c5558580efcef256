#include "model/pwp/act_fn.h"

#include "model/common/error.h"

namespace neuronsim::model::pwp {

const std::array<std::string_view, kNumActFn>& act_fn_names() {
    static const std::array<std::string_view, kNumActFn> names = {
        "Identity",
        "Square",
        "Relu",
        "Lrelu",
        "Prelu",
        "Sigmoid",
        "Tanh",
        "Exp",
        "Softplus",
        "Sqrt",
        "Rsqrt",
        "Ln",
        "Ln_prime",
        "Erf",
        "Sin",
        "Arctan",
        "Sign",
        "Gelu",
        "Mish",
        "Gelu_apprx_tanh",
        "Gelu_apprx_sigmoid",
        "Derivative_Gelu",
        "Derivative_Erf",
        "Copy",
        "Abs",
        "Reciprocal",
        "Abs_reciprocal_sqrt",
        "MemsetZero",
        "Silu",
        "Derivative_silu",
        "Derivative_Gelu_apprx_sigmoid",
    };
    return names;
}

std::string_view act_fn_name(ActFn fn) { return act_fn_names()[static_cast<size_t>(fn)]; }

std::optional<ActFn> find_act_fn(std::string_view name) {
    const auto& names = act_fn_names();
    for (size_t i = 0; i < names.size(); ++i)
        if (names[i] == name) return static_cast<ActFn>(i);
    return std::nullopt;
}

ActFn lookup_act_fn(std::string_view name) {
    if (auto fn = find_act_fn(name)) return *fn;
    throw Error("Unsupported activation function Simulator::simulation: " + std::string(name));
}

}  // namespace neuronsim::model::pwp
