#include "apps/config_options.h"

namespace neuronsim::apps {

void add_config_options(po::options_description& opts) {
    opts.add_options()
        ("config,c", po::value<std::string>(), "platform configuration YAML (configs/<gen>.yaml)")
        ("gen,g", po::value<std::string>(), "built-in generation: sunda, cayman, mariana (default), mariana_plus, maverick")
        ("param,p", po::value<std::vector<std::string>>()->composing(), "override dotted.key=value (repeatable, last wins)");
}

platform::Config config_from(const po::variables_map& vm, const std::vector<std::string>& extra) {
    std::vector<std::string> overrides = extra;
    if (vm.count("param"))
        for (const auto& p : vm["param"].as<std::vector<std::string>>()) overrides.push_back(p);
    if (vm.count("config") && vm.count("gen")) throw UsageError("give --config FILE or --gen NAME, not both");
    if (vm.count("config")) return platform::load_config(vm["config"].as<std::string>(), overrides);
    const std::string gen = vm.count("gen") ? vm["gen"].as<std::string>() : platform::default_generation();
    return platform::parse_config(platform::builtin_config_text(gen), "configs/" + gen + ".yaml (built in)", overrides);
}

model::workloads::GenLimits gen_limits(const platform::Config& c) {
    model::workloads::GenLimits g;
    g.name = c.generation.name;
    g.nc_version = c.generation.nc_version;
    g.partitions = c.memory.partitions;
    g.sbuf_bytes = c.memory.sbuf_bytes_per_partition;
    g.dma_engines = c.dma.engines;
    g.table_load_dma_engine = c.act.table_load_dma_engine;
    g.semaphores = c.semaphores;
    g.dram_bytes = c.memory.dram_bytes;
    // CPTC dtypes exist in the ISA from NC-v4 (hardware-facts §F.4); the library must ship and
    // be stageable (docs/cptc-format.md, "Dispatch and staging").
    g.cptc_decode = c.generation.nc_version >= 4 && c.gpsimd.cptc_library && c.gpsimd.coretype_perf;
    return g;
}

}  // namespace neuronsim::apps
