// Host speed of what `neuronsim run --trace` does before simulating: hashing the trace for
// stats.json (SHA-256, the portable function and the SHA extensions side by side; bytes/s) and
// assembling the text trace into engine streams (the act/pool ping-pong trace of
// scripts/make_pingpong_trace.sh, 400,000 instructions; items are trace instructions).
#include <random>
#include <string>

#include <benchmark/benchmark.h>

#include "model/io/sha256.h"
#include "model/trace/assembler.h"
#include "tests/support/profile_builder.h"

namespace {

using namespace neuronsim;
using model::io::Sha256Impl;

void BM_Sha256(benchmark::State& state) {
    const auto impl = static_cast<Sha256Impl>(state.range(0));
    if (impl == Sha256Impl::ShaNi && !model::io::sha256_shani_supported()) {
        state.SkipWithError("this CPU has no SHA extensions");
        return;
    }
    std::string data(16u << 20, '\0');
    std::mt19937_64 rng(1);
    for (char& c : data) c = static_cast<char>(rng());
    for (auto _ : state) benchmark::DoNotOptimize(model::io::Sha256(impl).update(data).hex());
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * data.size()));
    state.SetLabel(impl == Sha256Impl::ShaNi ? "SHA extensions" : "portable");
}
BENCHMARK(BM_Sha256)->Arg(static_cast<int>(Sha256Impl::Portable))->Arg(static_cast<int>(Sha256Impl::ShaNi))->Unit(benchmark::kMillisecond);

void BM_AssembleTrace(benchmark::State& state) {
    test::TempDir t;
    const int pairs = static_cast<int>(state.range(0));
    std::string text;
    for (int i = 0; i < pairs; ++i)
        text += "act sync wait=1>=" + std::to_string(i) + " update=0+1\npool sync wait=0>=" + std::to_string(i + 1) + " update=1+1\n";
    const std::string trace = t.write("t.trace", text);
    for (auto _ : state) model::trace::assemble_trace(trace, t.file("streams"));
    state.SetItemsProcessed(state.iterations() * 2 * pairs);
}
BENCHMARK(BM_AssembleTrace)->Arg(200000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
