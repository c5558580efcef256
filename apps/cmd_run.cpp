// `neuronsim run`, `asm`, `disasm`: the trace-driven platform.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "apps/commands.h"
#include "model/common/error.h"
#include "model/io/json_path.h"
#include "model/io/write_file.h"
#include "model/isa/opcodes.h"
#include "model/trace/assembler.h"
#include "platform/builtin_demo_trace.h"
#include "platform/config/config.h"
#include "platform/trace_host.h"
#include "apps/run_summary.h"

namespace neuronsim::apps {

namespace {

namespace fs = std::filesystem;
using namespace platform;

Config config_from(const po::variables_map& vm, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> overrides = extra;
    if (vm.count("threads")) overrides.push_back("run.host_threads=" + std::to_string(vm["threads"].as<unsigned>()));
    if (vm.count("param"))
        for (const auto& p : vm["param"].as<std::vector<std::string>>()) overrides.push_back(p);
    if (vm.count("config") && vm.count("gen")) throw UsageError("give --config FILE or --gen NAME, not both");
    if (vm.count("config")) return load_config(vm["config"].as<std::string>(), overrides);
    const std::string gen = vm.count("gen") ? vm["gen"].as<std::string>() : default_generation();
    return parse_config(builtin_config_text(gen), "configs/" + gen + ".yaml (built in)", overrides);
}

void write_file(const std::string& path, const std::string& text) { model::io::write_file_atomic(path, text); }

// An output directory holds one complete run or one clearly marked incomplete: the files of an
// earlier run go first, RUN_INCOMPLETE stays until every output is in place (a failed run
// writes its error there; a killed one leaves "running").
const char* const kOutputs[] = {"stats.json", "instructions.csv", "timeline.json", "host.json", "config.yaml"};
void start_outputs(const std::string& out) {
    fs::create_directories(out);
    for (const char* f : kOutputs) fs::remove(fs::path(out) / f);
    write_file(out + "/RUN_INCOMPLETE", "running\n");
}

// --window START:END in ns; either side may be empty (from the start, to the end).
void parse_window(const std::string& prog, const std::string& text, RunOptions& r) {
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

int run_outputs(const std::string& prog, const po::variables_map& vm, Config cfg, const std::string& out);

int run_run(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()
        ("config,c", po::value<std::string>(), "platform configuration YAML (configs/<gen>.yaml)")
        ("gen,g", po::value<std::string>(), "built-in generation: sunda, cayman, mariana (default), mariana_plus, maverick")
        ("param,p", po::value<std::vector<std::string>>()->composing(), "override dotted.key=value (repeatable, last wins)")
        ("threads", po::value<unsigned>(), "host threads for Activate's partitions (run.host_threads; 0: hardware threads); results do not depend on it")
        ("trace,t", po::value<std::string>(), "text trace (default: the built-in demo trace)")
        ("streams", po::value<std::string>(), "directory of binary engine streams (<engine>.bin, setup.trace) instead of --trace")
        ("out,o", po::value<std::string>()->default_value("neuronsim-out"), "output directory")
        ("pwp", po::value<std::string>(), "a pwp_bin_* directory (ours or the vendor's) whose sets LoadActFuncSet loads (default: the built-in catalog's pwp_bin_trainium)")
        ("act-numerics", po::value<std::string>()->default_value("pwp"), "pwp: Activate evaluates the resident tables; exact: the closed forms (the reference's no-profile mode)")
        ("skip-unknown", po::bool_switch(), "an opcode this simulator does not model costs run.skip_unknown_cost_ns and is counted, instead of an error")
        ("no-progress", po::bool_switch(), "no progress bar even on a terminal")
        ("cost-model", po::bool_switch(), "add the public/compiler formula's estimate to every instruction in instructions.csv and compare the totals in the summary")
        ("no-csv", po::bool_switch(), "do not write instructions.csv")
        ("no-timeline", po::bool_switch(), "do not write timeline.json")
        ("window", po::value<std::string>(), "record only instructions and slices overlapping simulated time START:END in ns (either may be empty)");
    po::variables_map vm;
    if (parse_options(prog, "Runs an instruction trace on the simulated NeuronCore of one generation and writes\n"
                            "stats.json, instructions.csv, timeline.json (Chrome/Perfetto), config.yaml and the\n"
                            "trace's dumps into --out. With no arguments: the built-in demo trace on MARIANA.",
                      opts, args, vm))
        return 0;
    if (vm.count("trace") && vm.count("streams")) throw UsageError(prog + ": give --trace or --streams, not both");
    Config cfg = config_from(vm);
    const std::string out = vm["out"].as<std::string>();
    start_outputs(out);
    try {
        return run_outputs(prog, vm, cfg, out);
    } catch (const std::exception& e) {
        write_file(out + "/RUN_INCOMPLETE", std::string("failed: ") + e.what() + "\n");
        throw;
    }
}

int run_outputs(const std::string& prog, const po::variables_map& vm, Config cfg, const std::string& out) {
    write_file(out + "/config.yaml", config_to_yaml(cfg));

    std::string streams_dir, trace_name, source_name;
    if (vm.count("streams")) {
        streams_dir = vm["streams"].as<std::string>();
        trace_name = streams_dir;
    } else {
        std::string trace;
        if (vm.count("trace")) {
            trace = vm["trace"].as<std::string>();
            trace_name = trace;
        } else {
            // The demo decodes CPTC weights where the generation's ISA and firmware can: it opts
            // into the CPTC library (before any -p, which may say otherwise).
            const bool cptc = cfg.generation.nc_version >= 4 && cfg.gpsimd.cptc_library;
            if (cptc) cfg = config_from(vm, {"gpsimd.cptc_flag=true"});
            trace = out + "/demo.trace";
            write_file(trace, builtin_demo_trace(cptc));
            trace_name = cptc ? "built-in demo.trace (CPTC library opted in)" : "built-in demo_no_cptc.trace";
            source_name = cptc ? "demo.trace" : "demo_no_cptc.trace";
            write_file(out + "/config.yaml", config_to_yaml(cfg));
        }
        streams_dir = out + "/streams";
        model::trace::assemble_trace(trace, streams_dir, source_name.empty() ? trace_name : source_name);
    }
    const auto streams = model::trace::list_streams(streams_dir);
    const std::string setup = fs::exists(streams_dir + "/setup.trace") ? streams_dir + "/setup.trace" : "";

    RunOptions ro;
    ro.out_dir = out;
    ro.skip_unknown = vm["skip-unknown"].as<bool>();
    if (vm.count("pwp")) ro.pwp_dir = vm["pwp"].as<std::string>();
    const std::string numerics = vm["act-numerics"].as<std::string>();
    if (numerics != "pwp" && numerics != "exact") throw UsageError(prog + ": --act-numerics: expected pwp or exact, got \"" + numerics + "\"");
    ro.act_exact = numerics == "exact";
    ro.progress = !vm["no-progress"].as<bool>() && isatty(STDERR_FILENO);
    ro.cost_model = vm["cost-model"].as<bool>();
    ro.record_csv = !vm["no-csv"].as<bool>();
    ro.record_timeline = !vm["no-timeline"].as<bool>();
    if (vm.count("window")) parse_window(prog, vm["window"].as<std::string>(), ro);
    ro.process_name = "neuronsim " + cfg.generation.name + ": " + trace_name;
    TraceHost host("host", cfg, streams, setup, ro);
    RunReport rep = host.run();

    nlohmann::ordered_json stats;
    stats["core"] = rep.stats;
    write_file(out + "/stats.json", stats.dump(2) + "\n");
    const double sim_ns = rep.simulated.to_seconds() * 1e9;
    nlohmann::ordered_json host_json = {{"wall_seconds", rep.wall_seconds},
                                   {"simulated_ns_per_wall_second", rep.wall_seconds > 0 ? sim_ns / rep.wall_seconds : 0.0},
                                   {"instructions_per_second", rep.wall_seconds > 0 ? rep.instructions / rep.wall_seconds : 0.0}};
    write_file(out + "/host.json", host_json.dump(2) + "\n");

    fs::remove(fs::path(out) / "RUN_INCOMPLETE");  // every output is in place
    print_run_summary(cfg, trace_name, out, rep, host_json, host.core(), ro.cost_model);
    return 0;
}

int run_asm(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()
        ("trace", po::value<std::string>()->required(), "text trace (also positional)")
        ("out,o", po::value<std::string>()->required(), "output directory for <engine>.bin and setup.trace");
    po::positional_options_description pos;
    pos.add("trace", 1);
    po::variables_map vm;
    if (parse_options(prog, "Assembles a text trace into per-engine streams of 64-byte bundles (DIR/<engine>.bin)\n"
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
    opts.add_options()
        ("file", po::value<std::string>()->required(), "an <engine>.bin stream (also positional)")
        ("engine", po::value<std::string>(), "engine name (default: the file name's stem)");
    po::positional_options_description pos;
    pos.add("file", 1);
    po::variables_map vm;
    if (parse_options(prog, "Prints a binary engine stream as trace text; `asm` of the output gives the same bytes.", opts, args, vm, &pos, "FILE [--engine NAME]"))
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
