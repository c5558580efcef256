// `neuronsim run`, `asm`, `disasm`: the trace-driven platform.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "apps/commands.h"
#include "apps/config_options.h"
#include "apps/run_summary.h"
#include "config/features.h"
#include "model/common/error.h"
#include "model/io/json_path.h"
#include "model/io/sha256.h"
#include "model/io/write_file.h"
#include "model/isa/opcodes.h"
#include "model/trace/assembler.h"
#include "platform/builtin_demo_trace.h"
#include "platform/config.h"
#include "platform/host/run_directory.h"
#include "platform/host/run_record.h"
#include "platform/host/simulate.h"

namespace neuronsim::apps {

namespace {

namespace fs = std::filesystem;
using namespace platform;

std::string lower_name(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

// SIGINT/SIGTERM ask the simulation to stop; a second one ends the process at once.
std::atomic<int> g_stop{0};
extern "C" void on_stop_signal(int sig) {
    g_stop.store(sig);
    std::signal(sig, SIG_DFL);
}

struct StopSignals {
    StopSignals() {
        g_stop.store(0);
        std::signal(SIGINT, on_stop_signal);
        std::signal(SIGTERM, on_stop_signal);
    }
    ~StopSignals() {
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGTERM, SIG_DFL);
    }
};

// --window START:END in ns; either side may be empty (from the start, to the end).
void parse_window(const std::string& prog, const std::string& text, DeviceOptions& r) {
    const size_t colon = text.find(':');
    auto bound = [&](const std::string& t, sc_core::sc_time dflt) {
        if (t.empty()) return dflt;
        size_t used = 0;
        double v = -1;
        try {
            v = std::stod(t, &used);
        } catch (const std::exception&) {
        }
        if (used != t.size() || !(v >= 0) || v > 1e15)
            throw UsageError(prog + ": --window " + text + ": \"" + t + "\" is not a time in ns (expected START:END, e.g. 1000:5000)");
        return sc_core::sc_time(v, sc_core::SC_NS);
    };
    if (colon == std::string::npos) throw UsageError(prog + ": --window " + text + ": expected START:END in ns, e.g. 1000:5000 or :5000");
    r.window_start = bound(text.substr(0, colon), sc_core::SC_ZERO_TIME);
    r.window_end = bound(text.substr(colon + 1), sc_core::sc_max_time());
    if (r.window_end < r.window_start) throw UsageError(prog + ": --window " + text + ": END is before START");
}

int run_outputs(const std::string& prog, const po::variables_map& vm, Config cfg, const std::string& out, RunInputs inputs);

// --threads N is run.host_threads=N, before -p (which may say otherwise).
std::vector<std::string> threads_override(const po::variables_map& vm) {
    if (!vm.count("threads")) return {};
    return {"run.host_threads=" + std::to_string(vm["threads"].as<unsigned>())};
}

int run_run(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    add_config_options(opts);
    opts.add_options()("trace,t", po::value<std::string>(), "text trace (also positional; default: the built-in demo trace)")(
        "streams", po::value<std::string>(), "directory of binary engine streams (<engine>.bin, setup.trace) instead of --trace")(
        "out,o", po::value<std::string>()->default_value("neuronsim-out"), "output directory")(
        "force", po::bool_switch(),
        "reuse an output directory that holds an earlier run: first remove what neuronsim wrote there (its .neuronsim-outputs list, nothing else); a directory without that list is never cleared")(
        "pwp", po::value<std::string>(),
        "a pwp_bin_* directory (ours or the vendor's) whose sets LoadActFuncSet loads (default: the built-in catalog's pwp_bin_trainium)")(
        "numerics", po::value<std::string>()->default_value("full"),
        "full: every element is computed; none: timing only, for fast what-if sweeps: the same instruction times, stats and timeline, "
        "but no element values are read, computed, moved or dumped (value-dependent errors are not detected)")(
        "act-numerics", po::value<std::string>()->default_value("pwp"),
        "pwp: Activate evaluates the resident tables; exact: the closed forms (the reference's no-profile mode)")(
        "uninitialised", po::value<std::string>()->default_value("zero"),
        "what SBUF and PSUM hold before anything is written there: zero, or nan (0xff bytes, a NaN in every float type, as "
        "nki.simulate_kernel: a read of never-written data shows)")(
        "hazards", po::value<std::string>()->default_value("warn"),
        "races between engines that no semaphore orders (read/write after write, write after read, by byte range per partition) and "
        "reads of bytes nothing wrote (docs/hazards.md): warn (print the first ones, all in hazards.txt), error (the same, and exit 1), "
        "off (not looked for)")(
        "threads", po::value<unsigned>(),
        "host threads for the element work: Activate's and VectorE's partitions, GpSimd's cores, and the DMA's copies with --dma-copies background (run.host_threads; 0: the hardware threads); results and times do not depend on it")(
        "dma-copies", po::value<std::string>()->default_value("background"),
        "where the DMA's copies are made: background (on a host thread of --threads while the simulation goes on; whatever "
        "reads or writes their bytes waits for them), inline (on the simulation thread as their rows move) or deferred (only "
        "when their bytes are needed: a check); results and times do not depend on it")(
        "skip-unknown", po::bool_switch(), "an opcode this simulator does not model costs run.skip_unknown_cost_ns and is counted, instead of an error")(
        "no-progress", po::bool_switch(), "no progress bar even on a terminal")(
        "cost-model", po::bool_switch(),
        "add the public/compiler formula's estimate to every instruction in instructions.csv and compare the totals in the summary")(
        "no-csv", po::bool_switch(), "do not write instructions.csv")("no-timeline", po::bool_switch(), "do not write timeline.json")(
        "window", po::value<std::string>(), "record only instructions and slices overlapping simulated time START:END in ns (either may be empty)");
    po::positional_options_description pos;
    pos.add("trace", 1);
    po::variables_map vm;
    if (parse_options(prog,
                      "Runs an instruction trace on the simulated NeuronCore of one generation and writes\n"
                      "stats.json, instructions.csv, timeline.json (Chrome/Perfetto), config.yaml and the\n"
                      "trace's dumps into --out. With no arguments: the built-in demo trace on MARIANA.\n"
                      "The configuration is the generation's preset, then each --config overlay, then -p.\n"
                      "Exit status: 0 done, 1 error (RUN_INCOMPLETE in --out says why) or, with --hazards\n"
                      "error, hazards found (the outputs are complete; hazards.txt lists them), 2 usage,\n"
                      "130 interrupted (SIGINT or SIGTERM: the outputs cover what completed).",
                      opts, args, vm, &pos, "[TRACE] [options]"))
        return 0;
    if (vm.count("trace") && vm.count("streams")) throw UsageError(prog + ": give --trace or --streams, not both");
    const std::string numerics = vm["numerics"].as<std::string>();
    if (numerics != "full" && numerics != "none") throw UsageError(prog + ": --numerics: expected full or none, got \"" + numerics + "\"");
    {  // every option is checked before the output directory is touched
        DeviceOptions check;
        if (vm.count("window")) parse_window(prog, vm["window"].as<std::string>(), check);
        const std::string un = vm["uninitialised"].as<std::string>();
        if (un != "zero" && un != "nan") throw UsageError(prog + ": --uninitialised: expected zero or nan, got \"" + un + "\"");
        const std::string hz = vm["hazards"].as<std::string>();
        if (hz != "warn" && hz != "error" && hz != "off") throw UsageError(prog + ": --hazards: expected warn, error or off, got \"" + hz + "\"");
        const std::string a = vm["act-numerics"].as<std::string>();
        if (a != "pwp" && a != "exact") throw UsageError(prog + ": --act-numerics: expected pwp or exact, got \"" + a + "\"");
        try {
            check.dma_copies = dma_copies_named(vm["dma-copies"].as<std::string>());
        } catch (const Error& e) {
            throw UsageError(prog + ": --dma-copies: " + e.what());
        }
    }
    Config cfg = config_from(vm, threads_override(vm));
    RunInputs inputs;
    inputs.preset = lower_name(cfg.generation.name);
    inputs.overrides = config_overrides(vm);
    for (const std::string& o : config_overlays(vm)) inputs.overlays.emplace_back(o, model::io::sha256_file(o, "config overlay"));
    const std::string out = vm["out"].as<std::string>();
    try {
        prepare_run_directory(out, vm["force"].as<bool>());
    } catch (const RunDirectoryRefused& e) {
        throw UsageError(prog + ": " + e.what());
    }
    try {
        return run_outputs(prog, vm, cfg, out, std::move(inputs));
    } catch (const std::exception& e) {
        model::io::write_file_atomic(out + "/" + kRunIncomplete, std::string("failed: ") + e.what() + "\n");
        throw;
    }
}

int run_outputs(const std::string& prog, const po::variables_map& vm, Config cfg, const std::string& out, RunInputs inputs) {
    std::string streams_dir, trace_name, source_name;
    if (vm.count("streams")) {
        streams_dir = vm["streams"].as<std::string>();
        trace_name = streams_dir;
        inputs.trace_path = streams_dir;
        inputs.trace_sha256 = streams_sha256(streams_dir);
    } else {
        std::string trace;
        if (vm.count("trace")) {
            trace = vm["trace"].as<std::string>();
            trace_name = trace;
            inputs.trace_path = trace;
        } else {
            // The demo decodes CPTC weights where the generation's ISA and firmware can: it opts
            // into the CPTC library (before any -p, which may say otherwise).
            const bool cptc = can_decode_cptc(cfg);
            if (cptc) {
                std::vector<std::string> extra = threads_override(vm);
                extra.insert(extra.begin(), "gpsimd.cptc_flag=true");
                cfg = config_from(vm, extra);
                inputs.overrides.insert(inputs.overrides.begin(), "gpsimd.cptc_flag=true");
            }
            trace = out + "/demo.trace";
            model::io::write_file_atomic(trace, builtin_demo_trace(cptc));
            trace_name = cptc ? "built-in demo.trace (CPTC library opted in)" : "built-in demo_no_cptc.trace";
            source_name = cptc ? "demo.trace" : "demo_no_cptc.trace";
            inputs.trace_path = "(built in) " + source_name;
        }
        inputs.trace_sha256 = model::io::sha256_file(trace, "trace");
        streams_dir = out + "/streams";
        model::trace::assemble_trace(trace, streams_dir, source_name.empty() ? trace_name : source_name);
    }
    RunOptions ro;
    ro.out_dir = out;
    ro.dumps_overwrite = false;
    if (vm.count("pwp")) ro.pwp_dir = vm["pwp"].as<std::string>();
    DeviceOptions& d = ro.device;
    d.skip_unknown = vm["skip-unknown"].as<bool>();
    d.act_exact = vm["act-numerics"].as<std::string>() == "exact";
    d.uninitialised_nan = vm["uninitialised"].as<std::string>() == "nan";
    d.timing_only = vm["numerics"].as<std::string>() == "none";
    d.dma_copies = dma_copies_named(vm["dma-copies"].as<std::string>());
    const std::string hazards = vm["hazards"].as<std::string>();
    d.hazards = hazards == "off" ? DeviceOptions::Hazards::Off : DeviceOptions::Hazards::Collect;
    d.progress = !vm["no-progress"].as<bool>() && isatty(STDERR_FILENO);
    d.cost_model = vm["cost-model"].as<bool>();
    d.record_csv = !vm["no-csv"].as<bool>();
    d.record_timeline = !vm["no-timeline"].as<bool>();
    if (vm.count("window")) parse_window(prog, vm["window"].as<std::string>(), d);
    d.process_name = "neuronsim " + cfg.generation.name + ": " + trace_name;
    StopSignals signals;
    d.cancel = &g_stop;
    const RunReport rep = run_into_directory(cfg, inputs, streams_dir, ro);
    if (rep.interrupted) {
        std::fprintf(
            stderr,
            "neuronsim: interrupted by %s after %llu instructions; stats.json, instructions.csv and timeline.json cover what completed; no dumps were written\n",
            rep.interrupted == SIGTERM ? "SIGTERM" : "SIGINT", static_cast<unsigned long long>(rep.instructions));
        return 130;
    }
    const nlohmann::ordered_json host_json = host_figures(rep);
    print_run_summary(cfg, trace_name, out, rep, host_json, d.cost_model);
    if (d.timing_only) std::printf("  (--numerics none: timing only; no element values were computed and no dumps written)\n");
    if (!rep.hazard_text.empty()) {
        std::fflush(stdout);
        const size_t shown = std::min<size_t>(rep.hazard_text.size(), 10);
        std::fprintf(stderr, "%s: %zu hazard%s (docs/hazards.md)%s:\n", prog.c_str(), rep.hazard_text.size(), rep.hazard_text.size() == 1 ? "" : "s",
                     shown < rep.hazard_text.size() ? ", the first 10" : "");
        for (size_t i = 0; i < shown; ++i) std::fprintf(stderr, "  %s\n", rep.hazard_text[i].c_str());
        std::fprintf(stderr, "  every one is in %s/hazards.txt\n", out.c_str());
        if (hazards == "error") {
            std::fprintf(stderr, "%s: --hazards error: exit status 1 (the outputs are complete)\n", prog.c_str());
            return 1;
        }
    }
    return 0;
}

int run_asm(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("trace", po::value<std::string>()->required(), "text trace (also positional)")("out,o", po::value<std::string>()->required(),
                                                                                                      "output directory for <engine>.bin and setup.trace");
    po::positional_options_description pos;
    pos.add("trace", 1);
    po::variables_map vm;
    if (parse_options(prog,
                      "Assembles a text trace into per-engine streams of 64-byte bundles (DIR/<engine>.bin)\n"
                      "and its directives (DIR/setup.trace), as `run --streams DIR` takes them.",
                      opts, args, vm, &pos, "TRACE -o DIR"))
        return 0;
    auto res = model::trace::assemble_trace(vm["trace"].as<std::string>(), vm["out"].as<std::string>());
    for (const auto& [engine, n] : res.instructions)
        std::printf("%s/%s.bin: %llu bundles\n", vm["out"].as<std::string>().c_str(), engine.c_str(), static_cast<unsigned long long>(n));
    std::printf("%s/setup.trace: %llu directives\n", vm["out"].as<std::string>().c_str(), static_cast<unsigned long long>(res.directives));
    return 0;
}

int run_disasm(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("file", po::value<std::string>()->required(), "an <engine>.bin stream (also positional)")("engine", po::value<std::string>(),
                                                                                                                 "engine name (default: the file name's stem)");
    po::positional_options_description pos;
    pos.add("file", 1);
    po::variables_map vm;
    if (parse_options(prog, "Prints a binary engine stream as trace text; `asm` of the output gives the same bytes.", opts, args, vm, &pos,
                      "FILE [--engine NAME]"))
        return 0;
    const std::string path = vm["file"].as<std::string>();
    const std::string engine = vm.count("engine") ? vm["engine"].as<std::string>() : fs::path(path).stem().string();
    if (!model::isa::engine_class(engine)) throw UsageError(prog + ": '" + engine + "' is not an engine name; use --engine");
    model::trace::BundleStream s(path);
    model::isa::Bundle b;
    while (s.next(b)) std::printf("%s\n", model::isa::disassemble(engine, b).c_str());
    return 0;
}

}  // namespace

Command run_command() { return {"run", "run a trace on the simulated NeuronCore (the main job)", run_run}; }
Command asm_command() { return {"asm", "assemble a text trace into engine streams", run_asm}; }
Command disasm_command() { return {"disasm", "print an engine stream as trace text", run_disasm}; }

}  // namespace neuronsim::apps
