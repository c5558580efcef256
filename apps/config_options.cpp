#include "apps/config_options.h"

namespace neuronsim::apps {

void add_config_options(po::options_description& opts) {
    opts.add_options()
        ("gen,g", po::value<std::string>(), "generation preset: sunda, cayman, mariana (default), mariana_plus, maverick")
        ("config,c", po::value<std::vector<std::string>>()->composing(),
         "YAML overlay on the preset (repeatable, applied in order): only the keys it gives change. A complete config file "
         "given without --gen selects its own generation's preset")
        ("param,p", po::value<std::vector<std::string>>()->composing(), "override dotted.key=value after the overlays (repeatable, last wins)");
}

std::vector<std::string> config_overlays(const po::variables_map& vm) {
    return vm.count("config") ? vm["config"].as<std::vector<std::string>>() : std::vector<std::string>{};
}

std::vector<std::string> config_overrides(const po::variables_map& vm) {
    return vm.count("param") ? vm["param"].as<std::vector<std::string>>() : std::vector<std::string>{};
}

Config config_from(const po::variables_map& vm, const std::vector<std::string>& extra) {
    std::vector<std::string> overrides = extra;
    for (const auto& p : config_overrides(vm)) overrides.push_back(p);
    return compose_config(vm.count("gen") ? vm["gen"].as<std::string>() : "", config_overlays(vm), overrides);
}

model::workloads::GenLimits gen_limits(const Config& c) {
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
