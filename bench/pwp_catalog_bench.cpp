// The built-in catalog: generating every profile and packing both targets' sets (the issue
// bound is 5 s), and per function (exp, sigmoid, gelu, reciprocal of the trainium sets) over
// one input mix, in one process so the ratios are honest:
//   Generic    evaluate_generic per element on the source profile (the reference, baseline)
//   TableRef   the table-memory evaluator reading the blobs per element (the old table path)
//   FastProfile / FastTable   the fast path over the decoded profile / packed set (batch SIMD)
// The input mix is the one of neuronsim_bench_pwp: 85% N(0, 3), 10% |x| < 1e-6, 5% |x| in
// 100..1000.
#include <random>

#include <benchmark/benchmark.h>

#include "model/pwp/catalog.h"
#include "model/pwp/catalog_writer.h"
#include "model/pwp/evaluate.h"
#include "model/pwp/fast_eval.h"
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

std::vector<float> input_mix(size_t n) {
    std::mt19937 rng(1);
    std::normal_distribution<float> act(0.0f, 3.0f);
    std::uniform_real_distribution<float> tiny(-1e-6f, 1e-6f);
    std::uniform_real_distribution<float> big(100.0f, 1000.0f);
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) {
        int k = static_cast<int>(i % 20);
        v[i] = k < 17 ? act(rng) : k < 19 ? tiny(rng) : (rng() & 1 ? 1.0f : -1.0f) * big(rng);
    }
    return v;
}

// The trainium set holding `name`, and its source profile.
struct Fn {
    Profile p;
    PackedSet set;
    const FuncMeta* meta = nullptr;
    explicit Fn(const std::string& name) {
        for (const RosterSet& rs : builtin_roster(Target::Trainium)) {
            std::vector<SetMember> m;
            bool has = false;
            for (const auto& [fn, budget] : rs.act) {
                m.push_back({fn + "_" + std::to_string(budget) + "p", generate_profile(*find_catalog_fn(fn, budget))});
                if (fn == name) {
                    has = true;
                    p = m.back().profile;
                }
            }
            if (!has) continue;
            set = pack_set(Target::Trainium, rs.name, m);
            for (const FuncMeta& f : set.manifest.profile_meta_data)
                if (f.bare_name() == name) meta = &f;
            return;
        }
        throw std::runtime_error("no trainium set holds " + name);
    }
};

const Fn& fn(int i) {
    static const char* names[] = {"exp", "sigmoid", "gelu", "reciprocal"};
    static std::vector<std::unique_ptr<Fn>> fns(4);
    if (!fns[i]) fns[i] = std::make_unique<Fn>(names[i]);
    return *fns[i];
}

void per_element(benchmark::State& state, size_t n) {
    state.counters["ns_per_element"] =
        benchmark::Counter(static_cast<double>(state.iterations()) * static_cast<double>(n), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    static const char* names[] = {"exp", "sigmoid", "gelu", "reciprocal"};
    state.SetLabel(names[state.range(0)]);
}

void BM_Generic(benchmark::State& state) {
    const Fn& f = fn(static_cast<int>(state.range(0)));
    std::vector<float> in = input_mix(1 << 16), out(in.size());
    for (auto _ : state) {
        evaluate_generic_n(f.p, in.data(), out.data(), in.size());
        benchmark::DoNotOptimize(out.data());
    }
    per_element(state, in.size());
}
BENCHMARK(BM_Generic)->DenseRange(0, 3);

void BM_TableRef(benchmark::State& state) {
    const Fn& f = fn(static_cast<int>(state.range(0)));
    TableEvaluator te(f.set);
    std::vector<float> in = input_mix(1 << 16), out(in.size());
    for (auto _ : state) {
        for (size_t i = 0; i < in.size(); ++i) out[i] = te.evaluate_reference(*f.meta, in[i]);
        benchmark::DoNotOptimize(out.data());
    }
    per_element(state, in.size());
}
BENCHMARK(BM_TableRef)->DenseRange(0, 3);

void BM_FastProfile(benchmark::State& state) {
    const Fn& f = fn(static_cast<int>(state.range(0)));
    const FlatTable t = flatten_profile(f.p);
    std::vector<float> in = input_mix(1 << 16), out(in.size());
    for (auto _ : state) {
        evaluate_profile_fast_n(f.p, t, in.data(), out.data(), in.size());
        benchmark::DoNotOptimize(out.data());
    }
    per_element(state, in.size());
}
BENCHMARK(BM_FastProfile)->DenseRange(0, 3);

void BM_FastTable(benchmark::State& state) {
    const Fn& f = fn(static_cast<int>(state.range(0)));
    TableEvaluator te(f.set);
    std::vector<float> in = input_mix(1 << 16), out(in.size());
    for (auto _ : state) {
        te.evaluate_n(*f.meta, in.data(), out.data(), in.size());
        benchmark::DoNotOptimize(out.data());
    }
    per_element(state, in.size());
}
BENCHMARK(BM_FastTable)->DenseRange(0, 3);

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
    state.counters["ns_per_element"] =
        benchmark::Counter(static_cast<double>(state.iterations()) * in.size(), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_TableEvaluatorExp);

void BM_EvaluateGenericExp(benchmark::State& state) {
    static ExpSet e;
    std::vector<float> in = activations(1 << 16), out(in.size());
    for (auto _ : state) {
        evaluate_generic_n(e.p, in.data(), out.data(), in.size());
        benchmark::DoNotOptimize(out.data());
    }
    state.counters["ns_per_element"] =
        benchmark::Counter(static_cast<double>(state.iterations()) * in.size(), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_EvaluateGenericExp);

}  // namespace

BENCHMARK_MAIN();
