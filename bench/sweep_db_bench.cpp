// The sweep's SQLite writer (docs/what-if.md, "The database"): records 10,000 points, each in its own transaction
// (WAL, synchronous=NORMAL), as `neuronsim sweep` does, with a real stats.json flattened
// (tests/golden/softmax/mariana/stats.json, 138 values in stats schema 2) or padded to 300 values; then reads
// them all back (export's path). Items are points.
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include <benchmark/benchmark.h>

#include "model/io/json_path.h"
#include "sweep/results_db.h"

namespace {

using namespace neuronsim;

std::vector<sweep::FlatStat> stats(size_t at_least) {
    const std::string path = std::string(NEURONSIM_SOURCE_DIR) + "/tests/golden/softmax/mariana/stats.json";
    auto s = sweep::flatten(model::io::parse_json_text(model::io::read_text_file(path), path));
    for (size_t i = 0; s.size() < at_least; ++i)
        s.push_back({"core.padding." + std::to_string(i), {sweep::FlatValue::Kind::integer, int64_t(i) * 1000, 0, {}}});
    return s;
}

std::string fresh_db() {
    const std::string path = (std::filesystem::temp_directory_path() / ("neuronsim-bench-" + std::to_string(::getpid()) + ".db")).string();
    for (const char* s : {"", "-wal", "-shm"}) std::remove((path + s).c_str());
    return path;
}

sweep::PointRecord make_record(size_t i, const std::vector<sweep::FlatStat>& st) {
    sweep::Point p;
    p.index = i;
    p.trace = "traces/softmax.trace";
    p.generation = "mariana";
    p.params = {{"act.clock_ghz", std::to_string(i)}, {"dma.bytes_per_ns_per_engine", "33"}};
    sweep::PointRecord r = sweep::record_for(p);
    r.status = "ok";
    r.wall_seconds = 0.07;
    r.neuronsim_version = "0.2.0";
    r.host = "bench";
    r.finished_at = "2026-12-01T00:00:00Z";
    r.stats = st;
    return r;
}

void remove_db(const std::string& path) {
    for (const char* s : {"", "-wal", "-shm"}) std::remove((path + s).c_str());
}

void BM_RecordPoints(benchmark::State& state) {
    const size_t points = size_t(state.range(0));
    const auto st = stats(size_t(state.range(1)));
    for (auto _ : state) {
        state.PauseTiming();
        const std::string path = fresh_db();
        state.ResumeTiming();
        {
            sweep::ResultsDb db(path, true);
            for (size_t i = 0; i < points; ++i) db.record(make_record(i, st));
        }
        state.PauseTiming();
        remove_db(path);
        state.ResumeTiming();
    }
    state.SetItemsProcessed(int64_t(state.iterations() * points));
    state.counters["stats_per_point"] = double(st.size());
}
BENCHMARK(BM_RecordPoints)->Args({10000, 0})->Args({10000, 300})->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_ReadBackPoints(benchmark::State& state) {
    const size_t points = 10000;
    const auto st = stats(size_t(state.range(0)));
    const std::string path = fresh_db();
    {
        sweep::ResultsDb db(path, true);
        for (size_t i = 0; i < points; ++i) db.record(make_record(i, st));
    }
    for (auto _ : state) {
        sweep::ResultsDb db(path, false);
        size_t n = 0;
        db.for_each([&](const sweep::PointRecord& r) { n += r.stats.size(); });
        benchmark::DoNotOptimize(n);
    }
    remove_db(path);
    state.SetItemsProcessed(int64_t(state.iterations() * points));
}
BENCHMARK(BM_ReadBackPoints)->Arg(0)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
