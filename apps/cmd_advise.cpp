// `neuronsim advise`: the table-residency advisor (model/workloads/advisor.h), with the time the
// suggestion saves measured by simulating the trace and its rewrite (platform/host/simulate.h).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "apps/commands.h"
#include "apps/config_options.h"
#include "model/common/error.h"
#include "model/io/write_file.h"
#include "model/workloads/act_functions.h"
#include "model/workloads/advisor.h"
#include "platform/host/simulate.h"

namespace neuronsim::apps {

namespace {

namespace fs = std::filesystem;
namespace wl = model::workloads;

std::string functions(const std::vector<std::string>& f) {
    std::string s;
    for (const auto& x : f) s += (s.empty() ? "" : ", ") + x;
    return s.empty() ? "-" : s;
}

void print_loads(const std::vector<wl::LoadNote>& loads) {
    size_t shown = 0;
    for (const wl::LoadNote& n : loads) {
        if (shown++ == 30) {
            std::printf("  ... %zu more\n", loads.size() - 30);
            break;
        }
        const std::string where = n.line ? "line " + std::to_string(n.line) : "(new)";
        std::printf("  %-10s load %-34s from %-34s ", where.c_str(), (n.set_name + " (" + std::to_string(n.set) + ")").c_str(), n.from.c_str());
        if (n.redundant) std::printf("REDUNDANT: already resident\n");
        else if (n.unused) std::printf("UNUSED: no activation before the next load\n");
        else std::printf("for %s\n", functions(n.forced_by).c_str());
    }
}

// A temporary directory, removed when it goes.
struct TempDir {
    std::string path;
    TempDir() {
        std::string t = (fs::temp_directory_path() / "neuronsim-advise-XXXXXX").string();
        if (!mkdtemp(t.data())) throw Error("cannot create a temporary directory " + t);
        path = t;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

double simulate_ns(const Config& cfg, const std::string& trace, const std::string& out, uint64_t& loads, double& load_ns) {
    platform::RunOptions o;
    o.out_dir = out;
    o.device.record_csv = o.device.record_timeline = false;
    const platform::RunReport r = platform::simulate_trace(cfg, trace, o);
    const auto& act = r.stats["act"];
    loads = act.contains("table_loads") ? act["table_loads"].get<uint64_t>() : 0;
    load_ns = act.contains("table_load_ps") ? act["table_load_ps"].get<double>() / 1000 : 0;
    return r.simulated.to_seconds() * 1e9;
}

int run_advise(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("trace", po::value<std::string>()->required(), "the trace to analyse (also positional)")(
        "out,o", po::value<std::string>(), "write the rewritten trace here")("no-simulate", po::bool_switch(),
                                                                             "only analyse; do not simulate the trace and its rewrite");
    add_config_options(opts);
    po::positional_options_description pos;
    pos.add("trace", 1);
    po::variables_map vm;
    if (parse_options(prog,
                      "Reads the ACT stream of a trace (LoadActFuncSet and the activations), reports the table loads\n"
                      "that are redundant or unused and the functions that forced each switch, and suggests an\n"
                      "order and set choice with fewer loads: the activations that are provably independent (no\n"
                      "semaphore, no overlapping SBUF/PSUM bytes, not both using the accumulator) are regrouped\n"
                      "by set, choosing among the trainium roster's sets the one that lets the most run before\n"
                      "the next switch. Both traces are simulated on --gen and the time saved is printed; -o\n"
                      "writes the rewritten trace. The rule is in docs/workloads.md.",
                      opts, args, vm, &pos, "TRACE [-o REWRITTEN.trace] [--gen G] [-p key=value]..."))
        return 0;
    const std::string trace = vm["trace"].as<std::string>();
    if (vm.count("out")) {
        std::error_code ec;
        if (fs::equivalent(vm["out"].as<std::string>(), trace, ec))
            throw UsageError(prog + ": -o " + vm["out"].as<std::string>() + " is the trace itself; write the rewrite to another file");
    }
    const wl::Advice a = wl::advise(trace);

    std::printf("%s: ACT stream: %zu table loads (%zu redundant, %zu unused); %zu instructions cannot move\n", trace.c_str(), a.loads.size(), a.redundant,
                a.unused, a.fixed);
    for (const auto& w : a.fixed_reasons) std::printf("  %s\n", w.c_str());
    for (const auto& p : a.problems) std::printf("  problem: %s\n", p.c_str());
    print_loads(a.loads);
    for (const auto& h : a.hints) std::printf("hint: %s\n", h.c_str());
    if (!a.improves()) {
        std::printf("no order or set choice with fewer table loads found (%zu with the suggestion)\n", a.suggested_loads);
    } else {
        std::printf("suggestion: %zu table loads instead of %zu\n", a.suggested_loads, a.loads.size());
        print_loads(a.suggested_switches);
        std::printf("suggested ACT stream (moved activations marked *):\n");
        size_t shown = 0;
        for (const wl::AdvisedStep& s : a.suggested) {
            if (shown++ == 40) {
                std::printf("  ... %zu more\n", a.suggested.size() - 40);
                break;
            }
            if (s.load)
                std::printf("  %s load %s\n", s.line ? ("line " + std::to_string(s.line)).c_str() : "new",
                            wl::trainium_sets()[static_cast<size_t>(s.set)].name.c_str());
            else std::printf("    line %-6zu %s%s\n", s.line, s.function.empty() ? "(no function)" : s.function.c_str(), s.moved ? " *" : "");
        }
    }
    // Nothing is suggested that does not help: with no fewer table loads there is no rewrite,
    // and a rewrite that simulates slower (its moved loads no longer overlap the DMA, say) is
    // reported and not written.
    const bool write = vm.count("out") > 0;
    if (!a.improves()) {
        if (!a.hints.empty() && !vm["no-simulate"].as<bool>()) {  // what the hinted switches cost
            const Config cfg = config_from(vm);
            TempDir tmp;
            uint64_t loads = 0;
            double load_ns = 0;
            const double t = simulate_ns(cfg, trace, tmp.path + "/original", loads, load_ns);
            std::printf("simulated on %s: %.1f ns, of which %llu table loads take %.1f ns of ACT time (%.1f%% of the run's)\n", cfg.generation.name.c_str(), t,
                        static_cast<unsigned long long>(loads), load_ns, t > 0 ? 100.0 * load_ns / t : 0.0);
        }
        if (write) std::printf("nothing written to %s: the trace is already the best order found\n", vm["out"].as<std::string>().c_str());
        return 0;
    }
    const std::string rewritten = wl::rewritten_trace(trace, a);
    TempDir tmp;
    // (Beside the -o file when there is one: the rewrite's .data paths are relative to it.)
    const std::string candidate = write ? vm["out"].as<std::string>() + ".tmp-advise.trace" : tmp.path + "/rewritten.trace";
    model::io::write_file_atomic(candidate, rewritten);
    if (vm["no-simulate"].as<bool>()) {
        if (write) {
            fs::rename(candidate, vm["out"].as<std::string>());
            std::printf("wrote %s (not simulated: --no-simulate)\n", vm["out"].as<std::string>().c_str());
        }
        return 0;
    }
    const Config cfg = config_from(vm);
    uint64_t loads0 = 0, loads1 = 0;
    double load0 = 0, load1 = 0;
    double t0 = 0, t1 = 0;
    try {
        t0 = simulate_ns(cfg, trace, tmp.path + "/original", loads0, load0);
        t1 = simulate_ns(cfg, candidate, tmp.path + "/rewritten", loads1, load1);
    } catch (...) {
        if (write) fs::remove(candidate);
        throw;
    }
    std::printf("simulated on %s: original %.1f ns (%llu table loads, %.1f ns of them), suggested %.1f ns (%llu table loads, %.1f ns): %s %.1f ns (%.1f%%)\n",
                cfg.generation.name.c_str(), t0, static_cast<unsigned long long>(loads0), load0, t1, static_cast<unsigned long long>(loads1), load1,
                t1 < t0 ? "saves" : "slower by", std::abs(t0 - t1), t0 > 0 ? 100.0 * std::abs(t0 - t1) / t0 : 0.0);
    if (t1 >= t0) {
        std::printf("the suggestion is not faster on %s (its table loads overlapped other work where they were): keep the trace as it is%s\n",
                    cfg.generation.name.c_str(), write ? "; nothing written" : "");
        if (write) fs::remove(candidate);
        return 0;
    }
    if (write) {
        fs::rename(candidate, vm["out"].as<std::string>());
        std::printf("wrote %s\n", vm["out"].as<std::string>().c_str());
    }
    return 0;
}

}  // namespace

Command advise_command() { return {"advise", "report redundant ACT table loads and suggest an order with fewer (simulates both)", run_advise}; }

}  // namespace neuronsim::apps
