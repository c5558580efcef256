// TensorE matmul numerics (model/pe/matmul.h): GFLOP/s of one full instruction tile
// (K 128 x M 128 stationary, K x N 512 moving; 2*K*M*N flops) per core, the blocked kernel at
// each SIMD level against the reference triple loop it must match bit for bit.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "model/pe/matmul.h"

namespace {

using neuronsim::model::SimdLevel;
using neuronsim::model::pe::MatmulArgs;

struct Operands {
    std::vector<float> s, mv, psum;
    uint32_t k, m, n;
    Operands(uint32_t k_, uint32_t m_, uint32_t n_) : s(k_ * m_), mv(k_ * n_), psum(m_ * n_), k(k_), m(m_), n(n_) {
        std::mt19937 rng(1);
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        for (float& v : s) v = u(rng);
        for (float& v : mv) v = u(rng);
    }
    MatmulArgs args(bool start) { return MatmulArgs{s.data(), m, mv.data(), n, psum.data(), n, k, m, n, start}; }
};

void report(benchmark::State& st, const Operands& o) {
    const double flops = 2.0 * o.k * o.m * o.n;
    st.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9 * static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
    st.SetLabel(std::to_string(o.k) + "x" + std::to_string(o.m) + "x" + std::to_string(o.n));
}

void BM_Matmul(benchmark::State& st) {
    const auto level = static_cast<SimdLevel>(st.range(0));
    if (level > neuronsim::model::best_simd_level()) {
        st.SkipWithError("this CPU does not run that SIMD level");
        return;
    }
    Operands o(static_cast<uint32_t>(st.range(1)), static_cast<uint32_t>(st.range(2)), static_cast<uint32_t>(st.range(3)));
    for (auto _ : st) {
        neuronsim::model::pe::matmul(o.args(false), level);  // accumulate: every k reads the bank it sums onto
        benchmark::DoNotOptimize(o.psum.data());
        benchmark::ClobberMemory();
    }
    report(st, o);
}

void BM_MatmulReference(benchmark::State& st) {
    Operands o(static_cast<uint32_t>(st.range(0)), static_cast<uint32_t>(st.range(1)), static_cast<uint32_t>(st.range(2)));
    for (auto _ : st) {
        neuronsim::model::pe::matmul_reference(o.args(false));
        benchmark::DoNotOptimize(o.psum.data());
        benchmark::ClobberMemory();
    }
    report(st, o);
}

// Level 1 (AVX2; AVX-512 CPUs run the same kernel; level 0 is the reference loop); the full tile and a narrow one (N 64, one attention head's keys).
BENCHMARK(BM_Matmul)->ArgNames({"simd", "K", "M", "N"})->Args({1, 128, 128, 512})->Args({1, 128, 128, 64});
BENCHMARK(BM_MatmulReference)->ArgNames({"K", "M", "N"})->Args({128, 128, 512});

}  // namespace

BENCHMARK_MAIN();
