// An engine's partitions over model::WorkerPool (run.host_threads), one and two threads: 128
// partitions of 2048 floats, three arithmetic passes over each (a few microseconds, about an
// ACT pass's work on a row), one job after another as the instructions of a kernel come.
// "dma": the caller first rewrites the whole tile, as the DMA does before an instruction reads
// it, so that the worker's rows come from the other core's cache (bench/README.md section 14).
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "model/common/worker_pool.h"

namespace {

void BM_PartitionsOverThePool(benchmark::State& state) {
    const unsigned threads = static_cast<unsigned>(state.range(0));
    const bool dma = state.range(1) != 0;
    constexpr size_t kPartitions = 128, kRow = 2048;
    std::vector<float> tile(kPartitions * kRow, 1.0f), src(tile.size(), 1.0f);
    neuronsim::model::WorkerPool pool(threads);
    for (auto _ : state) {
        if (dma) std::memcpy(tile.data(), src.data(), tile.size() * sizeof(float));
        pool.run(kPartitions, [&](size_t i) {
            float* x = tile.data() + i * kRow;
            for (int pass = 0; pass < 3; ++pass)
                for (size_t j = 0; j < kRow; ++j) x[j] = x[j] * 1.0001f + 0.5f;
        });
        benchmark::DoNotOptimize(tile.data());
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kPartitions * kRow));
    if (dma) state.SetLabel("dma");
}
BENCHMARK(BM_PartitionsOverThePool)->ArgNames({"threads", "dma"})->ArgsProduct({{1, 2}, {0, 1}})->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
