// The cost of simulating one Activate over 128 x 65536 fp32 elements (exp from
// exp_and_others, N(0, 3) inputs) against the numeric kernel alone doing the same work
// (convert, pre-scale, table-memory evaluation, convert back). The platform figure is the
// simulation's wall time (sc_start: the table load and the Activate), without elaboration.
// Baseline and fast path side by side, in one process:
//   NumericKernelAlone   the table-memory evaluator element by element (the reference kernel)
//   NumericKernelFast    the decoded tables and the batch fast pass (fast_eval.h), one thread
//   PlatformActivate/0   the platform with act_reference_kernel (element by element, one thread: the reference)
//   PlatformActivate/1   the platform's fast path on one host thread (run.host_threads = 1)
//   PlatformActivate/2   the fast path on the host's hardware threads (run.host_threads = 0)
#include <cstring>
#include <fstream>
#include <random>

#include <benchmark/benchmark.h>

#include "model/fp/dtype.h"
#include "model/pwp/catalog_writer.h"
#include "model/pwp/fast_eval.h"
#include "model/pwp/flat_table.h"
#include "model/pwp/packer.h"
#include "model/pwp/table_image.h"
#include "model/trace/assembler.h"
#include "platform/config.h"
#include "platform/host/trace_host.h"
#include "tests/support/profile_builder.h"
#include "tests/support/systemc_fixture.h"

namespace {

using namespace neuronsim;

constexpr uint32_t kPartitions = 128, kElements = 65536;

std::vector<float> inputs() {
    std::mt19937 rng(7);
    std::normal_distribution<float> d(0.0f, 3.0f);
    std::vector<float> v(size_t{kPartitions} * kElements);
    for (auto& x : v) x = d(rng);
    return v;
}

void BM_NumericKernelAlone(benchmark::State& state) {
    const auto set = model::pwp::read_set(model::pwp::default_catalog_dir() + "/pwp_bin_trainium/exp_and_others.json");
    const auto img = model::pwp::build_set_image(set, model::pwp::TableGeometry{});
    model::pwp::TableView view;
    view.control = img.control.data();
    view.control_words = img.ctrl_words;
    view.bucket = img.bucket.data();
    view.bucket_entries = img.buckets;
    view.set_name = img.name;
    const int slot = model::pwp::cam_lookup(img.cam.data(), 128, 0x21, 7);
    const auto meta = model::pwp::decode_profile_slot(img.profile.data() + slot * model::pwp::kProfileSlotBytes, 7);
    std::vector<float> in = inputs();
    std::vector<uint8_t> sbuf(in.size() * 4);
    std::memcpy(sbuf.data(), in.data(), sbuf.size());
    for (auto _ : state) {
        // Every iteration transforms the same inputs in place, as the platform run does.
        state.PauseTiming();
        std::memcpy(sbuf.data(), in.data(), sbuf.size());
        state.ResumeTiming();
        const float scale = 1.0f, bias = 0.0f;
        for (size_t i = 0; i < in.size(); ++i) {
            float v = scale * model::fp::to_f32(model::fp::Dtype::Fp32, &sbuf[4 * i]);
            v = v + bias;
            model::fp::from_f32(model::fp::Dtype::Fp32, model::pwp::evaluate_from_tables(view, meta, v), &sbuf[4 * i]);
        }
        benchmark::DoNotOptimize(sbuf.data());
    }
    state.counters["ns_per_element"] =
        benchmark::Counter(static_cast<double>(state.iterations()) * in.size(), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_NumericKernelAlone)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_NumericKernelFast(benchmark::State& state) {
    const auto set = model::pwp::read_set(model::pwp::default_catalog_dir() + "/pwp_bin_trainium/exp_and_others.json");
    const auto img = model::pwp::build_set_image(set, model::pwp::TableGeometry{});
    model::pwp::TableView view;
    view.control = img.control.data();
    view.control_words = img.ctrl_words;
    view.bucket = img.bucket.data();
    view.bucket_entries = img.buckets;
    view.set_name = img.name;
    const int slot = model::pwp::cam_lookup(img.cam.data(), 128, 0x21, 7);
    const auto meta = model::pwp::decode_profile_slot(img.profile.data() + slot * model::pwp::kProfileSlotBytes, 7);
    const auto flat = model::pwp::flatten_tables(view, meta);
    std::vector<float> in = inputs();
    std::vector<uint8_t> sbuf(in.size() * 4);
    for (auto _ : state) {
        state.PauseTiming();
        std::memcpy(sbuf.data(), in.data(), sbuf.size());
        state.ResumeTiming();
        const float scale = 1.0f, bias = 0.0f;
        constexpr size_t kBatch = 512;
        float vin[kBatch], vout[kBatch];
        uint32_t flagged[kBatch];
        for (size_t at = 0; at < in.size(); at += kBatch) {
            for (size_t j = 0; j < kBatch; ++j) {
                float v = scale * model::fp::to_f32(model::fp::Dtype::Fp32, &sbuf[4 * (at + j)]);
                vin[j] = v + bias;
            }
            const size_t k = model::pwp::fast_pass(flat, vin, vout, kBatch, flagged);
            for (size_t f = 0; f < k; ++f) vout[flagged[f]] = model::pwp::evaluate_from_tables(view, meta, vin[flagged[f]]);
            std::memcpy(&sbuf[4 * at], vout, sizeof vout);
        }
        benchmark::DoNotOptimize(sbuf.data());
    }
    state.counters["ns_per_element"] =
        benchmark::Counter(static_cast<double>(state.iterations()) * in.size(), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_NumericKernelFast)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_PlatformActivate(benchmark::State& state) {
    test::TempDir t;
    std::vector<float> in = inputs();
    {
        std::ofstream f(t.file("in.bin"), std::ios::binary);
        f.write(reinterpret_cast<const char*>(in.data()), static_cast<std::streamsize>(in.size() * 4));
    }
    t.write("x.trace",
            ".data sbuf:0:0x0 partitions=128 file=in.bin\nact load_act_func_set set=0\n"
            "act activate func=7 in_bias_dtype=10 out_dtype=10 num_active_channels=128 bias_src_n=1 scale=1.0 "
            "src=sbuf:0:0 src.num=16384,4,1 src.step=1,16384,0 dst=sbuf:0:0 dst.num=16384,4,1 dst.step=1,16384,0\n");
    model::trace::assemble_trace(t.file("x.trace"), t.file("streams"));
    platform::Config cfg = platform::parse_config(platform::builtin_config_text("mariana"), "mariana");
    const int mode = static_cast<int>(state.range(0));
    cfg.run.host_threads = mode == 2 ? 0 : 1;
    for (auto _ : state) {
        test::reset_systemc_context();
        platform::RunOptions o;
        o.out_dir = t.file("out");
        o.device.act_reference_kernel = mode == 0;
        platform::TraceHost host("host", cfg, model::trace::list_streams(t.file("streams")), t.file("streams/setup.trace"), o);
        platform::RunReport r = host.run();
        state.SetIterationTime(r.wall_seconds);
    }
    state.counters["ns_per_element"] =
        benchmark::Counter(static_cast<double>(state.iterations()) * in.size(), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_PlatformActivate)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(3)->UseManualTime();

}  // namespace

BENCHMARK_MAIN();
