// evaluate_generic throughput in ns/element over an exp-shaped profile (both regions, 26
// octaves per side with 16 buckets each, four clamps) and a realistic input mix: mostly
// |x| < 8 activations, some near-zero values, some saturating ones; next to it the fast path
// (fast_eval.h) over the same profile and inputs, at the CPU's SIMD level (NEURONSIM_SIMD
// lowers it), so the ratio comes from one process.
#include <cmath>
#include <random>

#include <benchmark/benchmark.h>

#include "model/pwp/evaluate.h"
#include "model/pwp/fast_eval.h"
#include "tests/support/profile_builder.h"

namespace {

using namespace neuronsim::test;

Profile exp_shaped() {
    Profile p;
    p.name = "exp_bench";
    p.zero_result = 1.0f;
    p.pinf_result = INFINITY;
    for (int side = 0; side < 2; ++side) {
        for (int e = -20; e <= 5; ++e) {
            std::vector<Section> s;
            for (int k = 0; k < 16; ++k) {
                double x = std::ldexp(1.0 + k / 16.0, e) * (side ? -1 : 1);
                double ex = std::exp(x);
                s.push_back(sec(float(x), float(ex), float(ex), float(ex / 2), float(ex / 6)));
            }
            add_octave(side ? p.neg : p.pos, e, 4, s);
        }
    }
    p.sat_pos_high = sat(133, 0, sec(0, INFINITY));
    p.sat_neg_high = sat(133, 0, sec(0, 0));
    Section small = sec(0, 1, 1, 0.5f, 1.0f / 6);
    p.sat_pos_low = sat(106, 0x7fffff, small);
    p.sat_neg_low = sat(106, 0x7fffff, small);
    return p;
}

std::vector<float> input_mix(size_t n) {
    std::mt19937 rng(1);
    std::normal_distribution<float> act(0.0f, 3.0f);
    std::uniform_real_distribution<float> tiny(-1e-6f, 1e-6f);
    std::uniform_real_distribution<float> big(100.0f, 1000.0f);
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) {
        int k = static_cast<int>(i % 20);
        v[i] = k < 17 ? act(rng) : k < 19 ? tiny(rng) : big(rng);
    }
    return v;
}

void BM_EvaluateGeneric(benchmark::State& state) {
    Profile p = exp_shaped();
    const size_t n = static_cast<size_t>(state.range(0));
    std::vector<float> in = input_mix(n), out(n);
    for (auto _ : state) {
        neuronsim::model::pwp::evaluate_generic_n(p, in.data(), out.data(), n);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
    state.counters["ns_per_element"] =
        benchmark::Counter(static_cast<double>(state.iterations()) * static_cast<double>(n), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_EvaluateGeneric)->Arg(1 << 16);

void BM_EvaluateFast(benchmark::State& state) {
    Profile p = exp_shaped();
    const auto t = neuronsim::model::pwp::flatten_profile(p);
    const size_t n = static_cast<size_t>(state.range(0));
    std::vector<float> in = input_mix(n), out(n);
    for (auto _ : state) {
        neuronsim::model::pwp::evaluate_profile_fast_n(p, t, in.data(), out.data(), n);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
    state.counters["ns_per_element"] =
        benchmark::Counter(static_cast<double>(state.iterations()) * static_cast<double>(n), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.SetLabel(neuronsim::model::pwp::simd_name(neuronsim::model::pwp::active_simd_level()));
}
BENCHMARK(BM_EvaluateFast)->Arg(1 << 16);

}  // namespace

BENCHMARK_MAIN();
