// A whole full-numerics run of a kernel against its element passes alone (issue 29 §2 and §3).
// For each kernel: `neuronsim kernel`'s trace and inputs are written to a temporary directory
// and simulated as `neuronsim run --no-csv --no-timeline --hazards off` does (trace assembled,
// inputs loaded, every engine, the dumps written), on one host thread and on two. One more run,
// not timed, keeps every batch of inputs ACT hands to the fast pass and the table it used
// (platform/act/act_pass_tap.h); the passes alone are then model::pwp::fast_pass over exactly
// those batches, one thread. Reported: the fastest of N repetitions of each (on the VM this was
// measured on, the first pass after a run is up to 3x slower than the next with no page fault
// counted: the machine, not the work; --each shows every repetition), whole run / passes (goal <= 1.5) and
// 1 thread / 2 threads (goal >= 1.8 on two idle cores). Repetitions are interleaved (run, run on
// two threads, passes) so a slow spell of the machine falls on all three.
//
//   neuronsim_bench_run_vs_passes [--gen G] [--runs N] [--each] [--kernel NAME[:ROWSxCOLS]]...
#include <stdlib.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "model/common/error.h"
#include "model/pwp/fast_eval.h"
#include "model/workloads/gen_limits.h"
#include "model/workloads/kernels.h"
#include "neuronsim/config.h"
#include "platform/act/act_pass_tap.h"
#include "platform/host/simulate.h"

namespace {

using namespace neuronsim;
namespace fs = std::filesystem;
namespace wl = model::workloads;

// Every batch the engine evaluated, in order, with the table each instruction used.
class Capture : public platform::ActPassTap {
public:
    struct Segment {
        size_t table, at, n;
    };
    std::vector<std::unique_ptr<model::pwp::FlatTable>> tables;
    std::vector<float> inputs;
    std::vector<Segment> segments;

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
// elements): llama2-7b sizes where the kernel is one of its layer's.
void default_shape(Job& j) {
    if (j.rows) return;
    if (j.kernel == "softmax") j.rows = 8192, j.cols = 2048;  // 4 heads of 2048 queries x 2048 keys
    else if (j.kernel == "rmsnorm") j.rows = 2048, j.cols = 4096;  // seq 2048 x hidden 4096
    else if (j.kernel == "layernorm") j.rows = 4096, j.cols = 2048;
    else if (j.kernel == "mlp-act") j.rows = 2048, j.cols = 11008;  // seq 2048 x intermediate
    else if (j.kernel == "cptc-dequant-act") j.rows = 2048, j.cols = 4096;
}

struct Result {
    double run1 = 0, run2 = 0, passes = 0;
    uint64_t elements = 0, instructions = 0;
};

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
    o.device.record_csv = o.device.record_timeline = false;
    o.device.hazards = DeviceOptions::Hazards::Off;

    Result res;
    auto simulate = [&](const Config& c) {
        const auto t0 = std::chrono::steady_clock::now();
        const platform::RunReport rep = platform::simulate_trace(c, trace, o);
        const double t = seconds_since(t0);
        if (rep.interrupted) throw Error("the run of " + j.kernel + " was interrupted");
        res.instructions = rep.instructions;
        return t;
    };

    Capture cap;
    platform::set_act_pass_tap(&cap);
    try {
        simulate(one);
    } catch (...) {
        platform::set_act_pass_tap(nullptr);
        throw;
    }
    platform::set_act_pass_tap(nullptr);
    res.elements = cap.inputs.size();
    if (!res.elements) throw Error("kernel " + j.kernel + ": no Activate went through the batch pass");

    std::vector<float> out(512);
    std::vector<uint32_t> flagged(512);
    volatile uint32_t sink = 0;  // the outputs are used: the passes cannot be dropped
    auto passes = [&] {
        const auto t0 = std::chrono::steady_clock::now();
        uint32_t acc = 0;
        for (const Capture::Segment& g : cap.segments) {
            const size_t k = model::pwp::fast_pass(*cap.tables[g.table], cap.inputs.data() + g.at, out.data(), g.n, flagged.data());
            uint32_t b;
            std::memcpy(&b, &out[g.n - 1], 4);
            acc += b + static_cast<uint32_t>(k);
        }
        const double t = seconds_since(t0);
        sink = sink + acc;
        return t;
    };
    std::vector<double> r1, r2, ps;
    for (unsigned i = 0; i < runs; ++i) {
        r1.push_back(simulate(one));
        r2.push_back(simulate(two));
        ps.push_back(passes());
        if (each) std::fprintf(stderr, "%s rep %u: run 1t %.3f s, run 2t %.3f s, passes %.3f s\n", j.kernel.c_str(), i + 1, r1.back(), r2.back(), ps.back());
    }
    res.run1 = fastest(r1);
    res.run2 = fastest(r2);
    res.passes = fastest(ps);
    return res;
}

int usage(const char* prog, int rc) {
    std::fprintf(rc ? stderr : stdout,
                 "usage: %s [--gen G] [--runs N] [--each] [--kernel NAME[:ROWSxCOLS]]...\n"
                 "Times whole full-numerics runs of `neuronsim kernel` traces (1 and 2 host threads)\n"
                 "against ACT's element passes over the same inputs alone; the fastest of N (default 5).\n"
                 "Kernels: softmax rmsnorm layernorm mlp-act cptc-dequant-act (default: all five).\n"
                 "--gen defaults to mariana (cptc-dequant-act needs mariana or later).\n"
                 "--each prints every repetition's three times on stderr.\n",
                 prog);
    return rc;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        std::string gen = "mariana";
        unsigned runs = 5;
        bool each = false;
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
            else if (a == "--runs") {
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
            "whole run (neuronsim run --no-csv --no-timeline --hazards off) vs ACT's passes alone, %s, fastest of %u,\n"
            "SIMD %s\n",
            gen.c_str(), runs, model::pwp::simd_name(model::pwp::active_simd_level()));
        std::printf("%-17s %-11s %12s %6s %10s %10s %10s %11s %9s\n", "kernel", "shape", "passes (el)", "instr", "run 1t s", "run 2t s", "passes s",
                    "run/passes", "1t/2t");
        for (Job& j : jobs) {
            default_shape(j);
            const Result r = measure(j, gen, runs, each, tmp);
            const std::string shape = std::to_string(j.rows) + "x" + std::to_string(j.cols);
            std::printf("%-17s %-11s %12llu %6llu %10.3f %10.3f %10.3f %11.2f %9.2f\n", j.kernel.c_str(), shape.c_str(),
                        static_cast<unsigned long long>(r.elements), static_cast<unsigned long long>(r.instructions), r.run1, r.run2, r.passes,
                        r.run1 / r.passes, r.run1 / r.run2);
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
