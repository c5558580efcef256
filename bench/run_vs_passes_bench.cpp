// A whole full-numerics run of a kernel against its element passes alone (issue 29 §2 and §3).
// For each kernel: `neuronsim kernel`'s trace and inputs are written to a temporary directory
// and simulated as `neuronsim run --force --no-csv --no-timeline --hazards off` does (the last
// run's outputs removed, trace assembled, inputs loaded, every engine, the dumps, stats.json and
// host.json written), on one host thread and on two. One more run, not timed, keeps the inputs
// of every element pass an engine makes: each batch ACT hands to the fast pass with the table
// it used (platform/act/act_pass_tap.h), each array pass of VectorE's fast path
// (platform/dve/dve_pass_tap.h) and each partition's CPTC decode on GpSimd
// (model/cptc/decode_tap.h); the passes alone are then model::pwp::fast_pass,
// model/dve/vector_arrays and model::cptc::decode_fast over exactly those inputs, on one thread
// and split in two halves over two threads ("pass 1t/2t": what a second thread gives this very
// work on this machine, the bound on the run's 1t/2t).
// Reported: the fastest of N repetitions of each (on the VM this was measured on, the first
// pass after a run is up to 3x slower than the next with no page fault counted: the machine,
// not the work; --each shows every repetition), whole run / passes (goal <= 1.5) and 1 thread /
// 2 threads (goal >= 1.8 on two idle cores). Repetitions are interleaved (run, run on two
// threads, passes, passes on two threads) so a slow spell of the machine falls on all of them.
// "files s" is the fastest one-thread run's own time loading its .data values into the
// memories (reading the files, the memories' pages first touched) and writing its dumps
// (RunReport::load_seconds + dump_seconds): work no pass does; (1t - files) / pass is the rest
// of that run against the passes. "2t bound" is what 1t/2t would be were the passes split as
// they split alone (pass 2t s) and the rest of the run (1t - passes: the DMA's copies, the
// files, the simulation itself) left on one thread: 1t / (pass 2t + 1t - passes).
// "2t copy wait s" is the fastest 2t run's host.json dma_copy_wait_seconds: the simulation
// thread's time on queued DMA copies it needed (waiting for them, or making them itself).
//
//   neuronsim_bench_run_vs_passes [--gen G] [--runs N] [--each] [--large] [--memory-cache-mib N] [--dma-copies M] [--kernel NAME[:ROWSxCOLS]]...
#include <stdlib.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "model/common/error.h"
#include "model/cptc/decode_tap.h"
#include "model/dve/vector_arrays.h"
#include "model/io/sha256.h"
#include "model/pwp/fast_eval.h"
#include "model/trace/assembler.h"
#include "model/workloads/gen_limits.h"
#include "model/workloads/kernels.h"
#include "neuronsim/config.h"
#include "platform/act/act_pass_tap.h"
#include "platform/dve/dve_pass_tap.h"
#include "platform/host/run_directory.h"
#include "platform/host/simulate.h"
#include "platform/tlm/zeroed_pages.h"

namespace {

using namespace neuronsim;
namespace fs = std::filesystem;
namespace wl = model::workloads;

// Every batch ACT evaluated, in order, with the table each instruction used; every VectorE
// array pass and CPTC decode with its inputs.
class Capture : public platform::ActPassTap, public platform::VectorPassTap, public model::cptc::DecodeTap {
public:
    struct Segment {
        size_t table, at, n;
    };
    std::vector<std::unique_ptr<model::pwp::FlatTable>> tables;
    std::vector<float> inputs;
    std::vector<Segment> segments;
    struct Vector {
        platform::VectorPass pass;
        size_t a, b, n;  // offsets in vector_inputs (b: Alu only)
    };
    std::vector<float> vector_inputs;
    std::vector<Vector> vector_passes;
    struct Decode {
        model::cptc::DecodeParams params;
        size_t at, bytes;  // in streams
    };
    std::vector<uint8_t> streams;
    std::vector<Decode> decodes;
    size_t largest_decode = 0;  // output bytes

    void table(const model::pwp::FlatTable& t) override { pending_ = &t; }
    void batch(const float* in, size_t n) override {
        if (pending_) {  // the first batch of an instruction: keep its table
            tables.push_back(std::make_unique<model::pwp::FlatTable>(*pending_));
            pending_ = nullptr;
        }
        if (tables.empty()) throw Error("a batch came before any table");
        segments.push_back({tables.size() - 1, inputs.size(), n});
        inputs.insert(inputs.end(), in, in + n);
    }
    void pass(const platform::VectorPass& p, const float* a, const float* b, size_t n) override {
        Vector v{p, vector_inputs.size(), 0, n};
        vector_inputs.insert(vector_inputs.end(), a, a + n);
        if (b) {
            v.b = vector_inputs.size();
            vector_inputs.insert(vector_inputs.end(), b, b + n);
        }
        vector_passes.push_back(v);
    }
    void decode(const model::cptc::DecodeParams& p, const uint8_t* stream, size_t bytes) override {
        decodes.push_back({p, streams.size(), bytes});
        streams.insert(streams.end(), stream, stream + bytes);
        largest_decode = std::max<size_t>(largest_decode, p.elements * model::fp::dtype_bytes(p.out));
    }

private:
    const model::pwp::FlatTable* pending_ = nullptr;
};

double seconds_since(std::chrono::steady_clock::time_point t0) { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }

double fastest(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

struct Job {
    std::string kernel;
    uint64_t rows = 0, cols = 0;  // 0: the defaults below
};

// Shapes where the element work, not the run's fixed cost, is what is measured (8-23 M
// elements): llama2-7b sizes where the kernel is one of its layer's. --large: each kernel at
// the size of issue 29's own example, the llama2-7b softmax of 65536x2048 (2^27 input
// elements; --max-data-mib's ring keeps the files at 64 MiB of input).
void default_shape(Job& j, bool large) {
    if (j.rows) return;
    if (j.kernel == "softmax") j.rows = large ? 65536 : 8192, j.cols = 2048;  // (4 heads of 2048 queries x 2048 keys)
    else if (j.kernel == "rmsnorm") j.rows = large ? 32768 : 2048, j.cols = 4096;  // (seq 2048 x hidden 4096)
    else if (j.kernel == "layernorm") j.rows = large ? 65536 : 4096, j.cols = 2048;
    else if (j.kernel == "mlp-act") j.rows = large ? 12288 : 2048, j.cols = 11008;  // (seq 2048 x intermediate)
    else if (j.kernel == "cptc-dequant-act") j.rows = large ? 32768 : 2048, j.cols = 4096;
}

struct Result {
    double run1 = 0, run2 = 0, passes = 0, act = 0, dve = 0, pool = 0;  // passes = act + dve + pool
    double passes2 = 0;  // the passes on two threads
    double run2_inline = 0;  // 2t with the DMA's copies inline (0: not measured)
    double files1 = 0;  // the fastest 1-thread run's: loading its .data files and writing its dumps
    double wait2 = 0;  // the fastest 2-thread run's host.json dma_copy_wait_seconds
    uint64_t elements = 0, instructions = 0;
};

// --dma-copies: where the runs' DMA copies are made (DeviceOptions::dma_copies); not given:
// background, and each repetition also runs 2t with them inline (the "2t inline" columns).
DeviceOptions::DmaCopies g_copies = DeviceOptions::DmaCopies::Background;
bool g_copies_given = false;

Result measure(const Job& j, const std::string& gen, unsigned runs, bool each, const std::string& dir) {
    wl::KernelRequest r;
    r.kernel = j.kernel;
    r.rows = j.rows;
    r.cols = j.cols;
    std::vector<std::string> overrides;
    Config probe = compose_config(gen, {}, {});
    const std::string trace = dir + "/" + j.kernel + ".trace";
    const wl::KernelSummary s = wl::write_kernel(r, wl::gen_limits(probe), trace);
    for (const std::string& f : s.run_flags)  // "-p key=value"
        if (f.rfind("-p ", 0) == 0) overrides.push_back(f.substr(3));
        else throw Error("kernel " + j.kernel + " asks for run flag " + f + ", which this benchmark does not pass on");
    auto config = [&](unsigned threads) {
        std::vector<std::string> o = overrides;
        o.push_back("run.host_threads=" + std::to_string(threads));
        return compose_config(gen, {}, o);
    };
    const Config one = config(1), two = config(2);
    platform::RunOptions o;
    o.out_dir = dir + "/out";
    o.dumps_overwrite = false;  // (prepare_run_directory has removed the last run's)
    o.device.record_csv = o.device.record_timeline = false;
    o.device.hazards = DeviceOptions::Hazards::Off;
    static const std::atomic<int> never{0};
    o.device.cancel = &never;  // (the CLI's: a signal may stop it, so it runs in slices)

    Result res;
    double files = 0, copy_wait = 0;  // the last run's
    // What `neuronsim run --force --no-csv --no-timeline --hazards off` does after reading its
    // options: the last run's outputs removed, the trace assembled, the run and its files.
    auto simulate = [&](const Config& c, DeviceOptions::DmaCopies copies = g_copies) {
        o.device.dma_copies = copies;
        const auto t0 = std::chrono::steady_clock::now();
        platform::fresh_simulation_context();
        platform::prepare_run_directory(o.out_dir, true);
        platform::RunInputs in;
        in.trace_path = trace;
        in.trace_sha256 = model::io::sha256_file(trace, "trace");
        in.preset = gen;
        model::trace::assemble_trace(trace, o.out_dir + "/streams");
        const platform::RunReport rep = platform::run_into_directory(c, in, o.out_dir + "/streams", o);
        const double t = seconds_since(t0);
        if (rep.interrupted) throw Error("the run of " + j.kernel + " was interrupted");
        res.instructions = rep.instructions;
        files = rep.load_seconds + rep.dump_seconds;
        copy_wait = rep.copy_wait_seconds;
        return t;
    };

    Capture cap;
    auto taps = [](Capture* c) {
        platform::set_act_pass_tap(c);
        platform::set_vector_pass_tap(c);
        model::cptc::set_decode_tap(c);
    };
    taps(&cap);
    try {
        simulate(one);
    } catch (...) {
        taps(nullptr);
        throw;
    }
    taps(nullptr);
    res.elements = cap.inputs.size();
    if (!res.elements) throw Error("kernel " + j.kernel + ": no Activate went through the batch pass");
    for (const Capture::Vector& v : cap.vector_passes) res.elements += v.n;
    for (const Capture::Decode& d : cap.decodes) res.elements += d.params.elements;

    volatile uint32_t sink = 0;  // the outputs are used: the passes cannot be dropped
    auto bits = [](float f) {
        uint32_t b;
        std::memcpy(&b, &f, 4);
        return b;
    };
    // A thread's output buffers (a pass writes at most 512 elements; a decode its largest).
    struct Scratch {
        std::vector<float> out = std::vector<float>(512);
        std::vector<uint32_t> flagged = std::vector<uint32_t>(512);
        std::vector<uint8_t> decoded;
    };
    Scratch mine, other;
    mine.decoded.resize(cap.largest_decode);
    other.decoded.resize(cap.largest_decode);
    // Each family's passes [b, e) in order, as the engines made them.
    auto act_range = [&](size_t b, size_t e, Scratch& w) {
        uint32_t acc = 0;
        for (size_t i = b; i < e; ++i) {
            const Capture::Segment& g = cap.segments[i];
            const size_t k = model::pwp::fast_pass(*cap.tables[g.table], cap.inputs.data() + g.at, w.out.data(), g.n, w.flagged.data());
            acc += bits(w.out[g.n - 1]) + static_cast<uint32_t>(k);
        }
        return acc;
    };
    // (the in-place passes work on a copy of their input, as the engine's do when src is not dst)
    auto vector_range = [&](size_t b, size_t e, Scratch& w) {
        namespace dve = model::dve;
        using K = platform::VectorPass::Kind;
        uint32_t acc = 0;
        const float* in = cap.vector_inputs.data();
        for (size_t i = b; i < e; ++i) {
            const Capture::Vector& v = cap.vector_passes[i];
            float* x = w.out.data();
            switch (v.pass.kind) {
                case K::Alu: dve::alu_n(static_cast<dve::AluOp>(v.pass.op), in + v.a, in + v.b, x, v.n); break;
                case K::Scalar:
                    std::memcpy(x, in + v.a, v.n * 4);
                    dve::scalar_n(static_cast<dve::AluOp>(v.pass.op), v.pass.reverse, v.pass.value, x, v.n);
                    break;
                case K::Fold: x[0] = dve::fold_n(static_cast<dve::ReduceOp>(v.pass.op), v.pass.value, in + v.a, v.n); break;
                case K::Reciprocal:
                    std::memcpy(x, in + v.a, v.n * 4);
                    dve::reciprocal_n(x, v.n);
                    break;
                case K::BnStats: dve::bn_stats_row(in + v.a, v.n, x); break;
            }
            acc += bits(x[0]);
        }
        return acc;
    };
    auto pool_range = [&](size_t b, size_t e, Scratch& w) {
        uint32_t acc = 0;
        for (size_t i = b; i < e; ++i) {
            const Capture::Decode& d = cap.decodes[i];
            model::cptc::decode_fast(d.params, cap.streams.data() + d.at, w.decoded.data());
            acc += w.decoded.empty() ? 0 : w.decoded[0];
        }
        return acc;
    };
    auto timed = [&](auto&& f) {
        const auto t0 = std::chrono::steady_clock::now();
        sink = sink + f();
        return seconds_since(t0);
    };
    auto act_passes = [&] { return timed([&] { return act_range(0, cap.segments.size(), mine); }); };
    auto vector_passes = [&] { return timed([&] { return vector_range(0, cap.vector_passes.size(), mine); }); };
    auto pool_passes = [&] { return timed([&] { return pool_range(0, cap.decodes.size(), mine); }); };
    // The same passes on two threads, each family split where half its elements lie: what the
    // machine gives a second thread for this work when nothing else is in the way, the bound
    // on the run's 1t/2t (on the VM of bench/README.md §15 a second thread gives independent
    // work 1.35-1.8x, not 2x).
    auto half = [](size_t n, auto&& elements) {
        uint64_t total = 0, seen = 0;
        for (size_t i = 0; i < n; ++i) total += elements(i);
        size_t i = 0;
        while (i < n && 2 * seen < total) seen += elements(i++);
        return i;
    };
    const size_t act_half = half(cap.segments.size(), [&](size_t i) { return cap.segments[i].n; });
    const size_t vector_half = half(cap.vector_passes.size(), [&](size_t i) { return cap.vector_passes[i].n; });
    const size_t pool_half = half(cap.decodes.size(), [&](size_t i) { return cap.decodes[i].params.elements; });
    auto passes_on_two = [&] {
        return timed([&] {
            uint32_t theirs = 0;
            std::thread t([&] {
                theirs = act_range(act_half, cap.segments.size(), other) + vector_range(vector_half, cap.vector_passes.size(), other) +
                         pool_range(pool_half, cap.decodes.size(), other);
            });
            const uint32_t ours = act_range(0, act_half, mine) + vector_range(0, vector_half, mine) + pool_range(0, pool_half, mine);
            t.join();
            return ours + theirs;
        });
    };
    std::vector<double> r1, f1, r2, w2, r2i, ps, pa, pd, pp, p2;
    for (unsigned i = 0; i < runs; ++i) {
        r1.push_back(simulate(one));
        f1.push_back(files);
        r2.push_back(simulate(two));
        w2.push_back(copy_wait);
        if (!g_copies_given) r2i.push_back(simulate(two, DeviceOptions::DmaCopies::Inline));
        pa.push_back(act_passes());
        pd.push_back(vector_passes());
        pp.push_back(pool_passes());
        ps.push_back(pa.back() + pd.back() + pp.back());
        p2.push_back(passes_on_two());
        if (each)
            std::fprintf(stderr,
                         "%s rep %u: run 1t %.3f s (files %.3f), run 2t %.3f s (copy wait %.3f), passes %.3f s (act %.3f, dve %.3f, pool %.3f), passes 2t "
                         "%.3f s\n",
                         j.kernel.c_str(), i + 1, r1.back(), f1.back(), r2.back(), w2.back(), ps.back(), pa.back(), pd.back(), pp.back(), p2.back());
    }
    res.run1 = fastest(r1);
    res.files1 = f1[static_cast<size_t>(std::min_element(r1.begin(), r1.end()) - r1.begin())];
    res.run2 = fastest(r2);
    res.wait2 = w2[static_cast<size_t>(std::min_element(r2.begin(), r2.end()) - r2.begin())];
    res.passes = fastest(ps);
    res.act = fastest(pa);
    res.dve = fastest(pd);
    res.pool = fastest(pp);
    res.passes2 = fastest(p2);
    if (!r2i.empty()) res.run2_inline = fastest(r2i);
    return res;
}

int usage(const char* prog, int rc) {
    std::fprintf(rc ? stderr : stdout,
                 "usage: %s [--gen G] [--runs N] [--each] [--large] [--memory-cache-mib N] [--dma-copies M] [--kernel NAME[:ROWSxCOLS]]...\n"
                 "Times whole full-numerics runs of `neuronsim kernel` traces (1 and 2 host threads)\n"
                 "against their element passes over the same inputs alone (ACT's fast passes, VectorE's\n"
                 "array passes, GpSimd's CPTC decodes; one thread, and split over two threads: what a\n"
                 "second thread gives this work on this machine); the fastest of N (default 5).\n"
                 "Kernels: softmax rmsnorm layernorm mlp-act cptc-dequant-act (default: all five).\n"
                 "Default shapes: 8192x2048, 2048x4096, 4096x2048, 2048x11008, 2048x4096 (8-23 M elements);\n"
                 "--large: 65536x2048, 32768x4096, 65536x2048, 12288x11008, 32768x4096 (2^27 input elements,\n"
                 "the llama2-7b softmax of issue 29; about 4 GB of memory). A shape given with --kernel wins.\n"
                 "2t bound: 1t / (pass 2t + 1t - passes), the 1t/2t of a run whose passes split as they\n"
                 "do alone and whose other work stays on one thread.\n"
                 "2t copy wait s: the fastest 2t run's time on the simulation thread spent on the DMA's\n"
                 "queued copies it needed (host.json dma_copy_wait_seconds): the copies still on its path.\n"
                 "--gen defaults to mariana (cptc-dequant-act needs mariana or later).\n"
                 "--each prints every repetition's times on stderr.\n"
                 "--memory-cache-mib N bounds the memory kept between runs (DRAM's slabs, SBUF's and PSUM's\n"
                 "mappings: platform/tlm/zeroed_pages.h; default 1024; 0 keeps none: every run's memories\n"
                 "are fresh, as a new process's are).\n"
                 "--dma-copies background, inline or deferred: where the runs' DMA copies are made (neuronsim\n"
                 "run --dma-copies); not given: background, as neuronsim run, and every repetition also runs 2t\n"
                 "with the copies inline, in turn with the others (the 2t inline columns).\n",
                 prog);
    return rc;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        std::string gen = "mariana";
        unsigned runs = 5;
        bool each = false, large = false;
        std::vector<Job> jobs;
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            auto value = [&]() -> std::string {
                if (i + 1 >= argc) throw Error(a + " needs a value");
                return argv[++i];
            };
            if (a == "--help" || a == "-h") return usage(argv[0], 0);
            if (a == "--gen") gen = value();
            else if (a == "--each") each = true;
            else if (a == "--large") large = true;
            else if (a == "--dma-copies") {
                const std::string v = value();
                g_copies_given = true;
                try {
                    g_copies = platform::dma_copies_named(v);
                } catch (const Error& e) {
                    throw Error("--dma-copies: " + std::string(e.what()));
                }
            } else if (a == "--memory-cache-mib") {
                const std::string v = value();
                char* end = nullptr;
                const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
                if (v.empty() || *end || n > (1ull << 20)) throw Error("--memory-cache-mib " + v + ": expected 0..1048576");
                platform::set_memory_cache_limit(static_cast<size_t>(n) << 20);
            } else if (a == "--runs") {
                const std::string v = value();
                char* end = nullptr;
                const unsigned long n = std::strtoul(v.c_str(), &end, 10);
                if (v.empty() || *end || n < 1 || n > 1000) throw Error("--runs " + v + ": expected 1..1000");
                runs = static_cast<unsigned>(n);
            } else if (a == "--kernel") {
                const std::string v = value();
                Job j;
                const size_t colon = v.find(':');
                j.kernel = v.substr(0, colon);
                if (colon != std::string::npos) {
                    wl::KernelRequest r;
                    wl::parse_kernel_shape(v.substr(colon + 1), r);
                    j.rows = r.rows;
                    j.cols = r.cols;
                }
                jobs.push_back(j);
            } else {
                std::fprintf(stderr, "%s: unknown argument %s\n", argv[0], a.c_str());
                return usage(argv[0], 2);
            }
        }
        if (jobs.empty())
            for (const char* k : {"softmax", "rmsnorm", "layernorm", "mlp-act", "cptc-dequant-act"}) jobs.push_back({k});
        std::string tmp = (fs::temp_directory_path() / "neuronsim-run-vs-passes-XXXXXX").string();
        if (!mkdtemp(tmp.data())) throw Error("cannot create a temporary directory " + tmp);
        struct Remove {
            std::string p;
            ~Remove() {
                std::error_code ec;
                fs::remove_all(p, ec);
            }
        } remove{tmp};
        std::printf(
            "whole run (neuronsim run --force --no-csv --no-timeline --hazards off) vs its element passes alone (ACT + VectorE + GpSimd),\n"
            "%s, fastest of %u, SIMD %s, DMA copies %s\n",
            gen.c_str(), runs, model::pwp::simd_name(model::pwp::active_simd_level()),
            g_copies_given ? platform::dma_copies_name(g_copies) : "background (and 2t inline, in turn)");
        std::printf("%-17s %-11s %12s %6s %9s %7s %9s %15s %9s %7s %7s %7s %8s %8s %6s %13s %10s %12s %9s %11s %12s\n", "kernel", "shape", "passes (el)",
                    "instr", "run 1t s", "files s", "run 2t s", "2t copy wait s", "passes s", "act s", "dve s", "pool s", "1t/pass", "2t/pass", "1t/2t",
                    "(1t-files)/pass", "pass 2t s", "pass 1t/2t", "2t bound", "2t inline s", "1t/2t inline");
        for (Job& j : jobs) {
            default_shape(j, large);
            const Result r = measure(j, gen, runs, each, tmp);
            const std::string shape = std::to_string(j.rows) + "x" + std::to_string(j.cols);
            char inl[2][32] = {"-", "-"};
            if (r.run2_inline > 0) {
                std::snprintf(inl[0], sizeof inl[0], "%.3f", r.run2_inline);
                std::snprintf(inl[1], sizeof inl[1], "%.2f", r.run1 / r.run2_inline);
            }
            std::printf("%-17s %-11s %12llu %6llu %9.3f %7.3f %9.3f %15.3f %9.3f %7.3f %7.3f %7.3f %8.2f %8.2f %6.2f %15.2f %10.3f %12.2f %9.2f %11s %12s\n",
                        j.kernel.c_str(), shape.c_str(), static_cast<unsigned long long>(r.elements), static_cast<unsigned long long>(r.instructions), r.run1,
                        r.files1, r.run2, r.wait2, r.passes, r.act, r.dve, r.pool, r.run1 / r.passes, r.run2 / r.passes, r.run1 / r.run2,
                        (r.run1 - r.files1) / r.passes, r.passes2, r.passes / r.passes2, r.run1 / (r.passes2 + std::max(0.0, r.run1 - r.passes)), inl[0],
                        inl[1]);
            std::fflush(stdout);
        }
        rusage u{};
        if (getrusage(RUSAGE_SELF, &u) == 0) std::printf("peak RSS %.0f MB\n", u.ru_maxrss / 1024.0);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
}
