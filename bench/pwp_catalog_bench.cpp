// The built-in catalog: generating every profile and packing both targets' sets (the issue
// bound is 5 s), and the table-memory evaluator's throughput next to evaluate_generic's.
#include <random>

#include <benchmark/benchmark.h>

#include "model/pwp/catalog.h"
#include "model/pwp/catalog_writer.h"
#include "model/pwp/evaluate.h"
#include "model/pwp/generator.h"
#include "model/pwp/packer.h"
#include "model/pwp/roster.h"
#include "model/pwp/table_eval.h"
#include "tests/support/profile_builder.h"

namespace {

using namespace neuronsim::model::pwp;

void BM_WriteWholeCatalog(benchmark::State& state) {
    for (auto _ : state) {
        neuronsim::test::TempDir t;
        CatalogReport r = write_catalog(t.path());
        benchmark::DoNotOptimize(r.sets.size());
    }
}
BENCHMARK(BM_WriteWholeCatalog)->Unit(benchmark::kMillisecond)->Iterations(3);

std::vector<float> activations(size_t n) {
    std::mt19937 rng(3);
    std::normal_distribution<float> d(0.0f, 3.0f);
    std::vector<float> v(n);
    for (auto& x : v) x = d(rng);
    return v;
}

// exp_400p of exp_and_others, both ways, over N(0, 3) inputs.
struct ExpSet {
    Profile p = generate_profile(*find_catalog_fn("exp"));
    PackedSet set;
    ExpSet() {
        std::vector<SetMember> m;
        for (const auto& [name, budget] : builtin_roster(Target::Trainium)[0].act)
            m.push_back({name + "_" + std::to_string(budget) + "p", generate_profile(*find_catalog_fn(name, budget))});
        set = pack_set(Target::Trainium, "exp_and_others", m);
    }
};

void BM_TableEvaluatorExp(benchmark::State& state) {
    static ExpSet e;
    TableEvaluator te(e.set);
    const FuncMeta& f = te.lookup("exp");
    std::vector<float> in = activations(1 << 16), out(in.size());
    for (auto _ : state) {
        for (size_t i = 0; i < in.size(); ++i) out[i] = te.evaluate(f, in[i]);
        benchmark::DoNotOptimize(out.data());
    }
    state.counters["ns_per_element"] = benchmark::Counter(static_cast<double>(state.iterations()) * in.size(),
                                                          benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_TableEvaluatorExp);

void BM_EvaluateGenericExp(benchmark::State& state) {
    static ExpSet e;
    std::vector<float> in = activations(1 << 16), out(in.size());
    for (auto _ : state) {
        evaluate_generic_n(e.p, in.data(), out.data(), in.size());
        benchmark::DoNotOptimize(out.data());
    }
    state.counters["ns_per_element"] = benchmark::Counter(static_cast<double>(state.iterations()) * in.size(),
                                                          benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_EvaluateGenericExp);

}  // namespace

BENCHMARK_MAIN();
