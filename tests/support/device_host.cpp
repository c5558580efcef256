#include "tests/support/device_host.h"

#include "tests/support/systemc_fixture.h"

namespace neuronsim::test {

Config cfg_of(const std::string& gen, std::vector<std::string> overrides) { return parse_config(builtin_config_text(gen), gen, overrides); }

nlohmann::json run_device(const std::string& gen, std::function<void(Host&, TestDram&, NeuronCore&)> body, std::function<void(TestDram&)> setup,
                          std::vector<std::string> overrides, const DeviceOptions& options) {
    reset_systemc_context();
    TestDram dram("dram", 1 << 22);
    if (setup) setup(dram);
    overrides.insert(overrides.begin(), "memory.dram_bytes=4194304");
    NeuronCore core("core", cfg_of(gen, overrides), options);
    Host host("host", [&](Host& h) { body(h, dram, core); });
    core.mem.bind(dram.socket);
    host.mmio.bind(core.mmio);
    core.irq.bind(host.irq);
    sc_core::sc_start();
    return nlohmann::json::parse(core.stats_json());
}

}  // namespace neuronsim::test
