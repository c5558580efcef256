// `neuronsim run`, `asm`, `disasm`: the trace-driven platform.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "apps/commands.h"
#include "model/common/error.h"
#include "model/io/json_path.h"
#include "model/isa/opcodes.h"
#include "model/trace/assembler.h"
#include "platform/builtin_demo_trace.h"
#include "platform/config/config.h"
#include "platform/platform.h"

namespace neuronsim::apps {

namespace {

namespace fs = std::filesystem;
using namespace platform;

Config config_from(const po::variables_map& vm) {
    std::vector<std::string> overrides = vm.count("param") ? vm["param"].as<std::vector<std::string>>() : std::vector<std::string>{};
    if (vm.count("config") && vm.count("gen")) throw UsageError("give --config FILE or --gen NAME, not both");
    if (vm.count("config")) return load_config(vm["config"].as<std::string>(), overrides);
    const std::string gen = vm.count("gen") ? vm["gen"].as<std::string>() : default_generation();
    return parse_config(builtin_config_text(gen), "configs/" + gen + ".yaml (built in)", overrides);
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary);
    f << text;
    if (!f) throw Error(path + ": cannot write");
}

int run_run(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()
        ("config,c", po::value<std::string>(), "platform configuration YAML (configs/<gen>.yaml)")
        ("gen,g", po::value<std::string>(), "built-in generation: sunda, cayman, mariana (default), mariana_plus, maverick")
        ("param,p", po::value<std::vector<std::string>>()->composing(), "override dotted.key=value (repeatable, last wins)")
        ("trace,t", po::value<std::string>(), "text trace (default: the built-in demo trace)")
        ("streams", po::value<std::string>(), "directory of binary engine streams (<engine>.bin, setup.trace) instead of --trace")
        ("out,o", po::value<std::string>()->default_value("neuronsim-out"), "output directory")
        ("pwp", po::value<std::string>(), "a pwp_bin_* directory (ours or the vendor's) whose sets LoadActFuncSet loads (default: the built-in catalog's pwp_bin_trainium)")
        ("act-numerics", po::value<std::string>()->default_value("pwp"), "pwp: Activate evaluates the resident tables; exact: the closed forms (the reference's no-profile mode)")
        ("skip-unknown", po::bool_switch(), "an opcode this simulator does not model costs run.skip_unknown_cost_ns and is counted, instead of an error")
        ("no-progress", po::bool_switch(), "no progress bar even on a terminal");
    po::variables_map vm;
    if (parse_options(prog, "Runs an instruction trace on the simulated NeuronCore of one generation and writes\n"
                            "stats.json, instructions.csv, timeline.json (Chrome/Perfetto), config.yaml and the\n"
                            "trace's dumps into --out. With no arguments: the built-in demo trace on MARIANA.",
                      opts, args, vm))
        return 0;
    if (vm.count("trace") && vm.count("streams")) throw UsageError(prog + ": give --trace or --streams, not both");
    Config cfg = config_from(vm);
    const std::string out = vm["out"].as<std::string>();
    fs::create_directories(out);
    write_file(out + "/config.yaml", config_to_yaml(cfg));

    std::string streams_dir, trace_name;
    if (vm.count("streams")) {
        streams_dir = vm["streams"].as<std::string>();
        trace_name = streams_dir;
    } else {
        std::string trace;
        if (vm.count("trace")) {
            trace = vm["trace"].as<std::string>();
            trace_name = trace;
        } else {
            trace = out + "/demo.trace";
            write_file(trace, builtin_demo_trace());
            trace_name = "built-in demo.trace";
        }
        streams_dir = out + "/streams";
        model::trace::assemble_trace(trace, streams_dir);
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
    Platform core("core", cfg, streams, setup, ro);
    RunReport rep = core.run();

    nlohmann::ordered_json stats;
    stats["core"] = rep.stats;
    write_file(out + "/stats.json", stats.dump(2) + "\n");
    const double sim_ns = rep.simulated.to_seconds() * 1e9;
    nlohmann::ordered_json host = {{"wall_seconds", rep.wall_seconds},
                                   {"simulated_ns_per_wall_second", rep.wall_seconds > 0 ? sim_ns / rep.wall_seconds : 0.0},
                                   {"instructions_per_second", rep.wall_seconds > 0 ? rep.instructions / rep.wall_seconds : 0.0}};
    write_file(out + "/host.json", host.dump(2) + "\n");

    // The summary: deterministic results first, host speed apart.
    std::printf("neuronsim run: %s (NC-v%d), %s -> %s/\n", cfg.generation.name.c_str(), cfg.generation.nc_version, trace_name.c_str(), out.c_str());
    std::printf("  simulated time %.3f ns (%.0f ACT cycles at %.2f GHz), %llu instructions\n", sim_ns, sim_ns * cfg.act.clock_ghz,
                cfg.act.clock_ghz, static_cast<unsigned long long>(rep.instructions));
    std::printf("  %-10s %12s %14s %7s %14s\n", "engine", "instructions", "busy ns", "util %", "stalled ns");
    for (auto it = rep.stats.begin(); it != rep.stats.end(); ++it) {
        const auto& n = it.value();
        if (!n.is_object() || !n.contains("busy_ps")) continue;
        double busy = n["busy_ps"].get<uint64_t>() / 1000.0;
        std::printf("  %-10s %12llu %14.3f %7.1f %14.3f\n", it.key().c_str(), static_cast<unsigned long long>(n["instructions"].get<uint64_t>()),
                    busy, sim_ns > 0 ? 100.0 * busy / sim_ns : 0.0, n["stalled_ps"].get<uint64_t>() / 1000.0);
    }
    const auto& dma = rep.stats["dma"];
    std::printf("  DMA: %llu transfers, %llu bytes\n", static_cast<unsigned long long>(dma["transfers"].get<uint64_t>()),
                static_cast<unsigned long long>(dma["bytes"].get<uint64_t>()));
    uint64_t elements = 0;
    if (rep.stats.contains("act")) {
        const auto& a = rep.stats["act"];
        elements = a["elements"].get<uint64_t>();
        std::printf("  ACT: %llu elements, %llu table loads (%llu redundant), %llu bytes, %.3f ns loading; resident set %s\n",
                    static_cast<unsigned long long>(elements), static_cast<unsigned long long>(a["table_loads"].get<uint64_t>()),
                    static_cast<unsigned long long>(a["redundant_table_loads"].get<uint64_t>()),
                    static_cast<unsigned long long>(a["table_load_bytes"].get<uint64_t>()), a["table_load_ps"].get<uint64_t>() / 1000.0,
                    rep.stats["act_tables"]["resident_set"].get<std::string>().c_str());
    }
    const bool pool_work = rep.stats.contains("pool") && rep.stats["pool"].contains("cptc_decodes") &&
                           rep.stats["pool"]["cptc_decodes"].get<uint64_t>() + rep.stats["pool"]["copies"].get<uint64_t>() +
                                   rep.stats["pool"]["conv_lut_loads"].get<uint64_t>() > 0;
    if (pool_work) {
        const auto& pl = rep.stats["pool"];
        std::string kernels;
        for (auto k = pl["cptc_by_kernel"].begin(); k != pl["cptc_by_kernel"].end(); ++k)
            kernels += (kernels.empty() ? " (" : ", ") + k.key() + " x" + std::to_string(k.value().get<uint64_t>());
        if (!kernels.empty()) kernels += ")";
        std::printf("  POOL: %llu CPTC decodes%s, %llu elements decoded, %llu copies, %llu conversion-LUT loads\n",
                    static_cast<unsigned long long>(pl["cptc_decodes"].get<uint64_t>()), kernels.c_str(),
                    static_cast<unsigned long long>(pl["cptc_decoded_elements"].get<uint64_t>()),
                    static_cast<unsigned long long>(pl["copies"].get<uint64_t>()), static_cast<unsigned long long>(pl["conv_lut_loads"].get<uint64_t>()));
    }
    std::printf("host: %.3f s wall, %.0f simulated ns per wall second, %.0f instructions/s, %.3g elements/s, %.3g DMA bytes/s\n",
                rep.wall_seconds, host["simulated_ns_per_wall_second"].get<double>(), host["instructions_per_second"].get<double>(),
                rep.wall_seconds > 0 ? elements / rep.wall_seconds : 0.0, rep.wall_seconds > 0 ? dma["bytes"].get<uint64_t>() / rep.wall_seconds : 0.0);
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
