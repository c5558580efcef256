#include "platform/simulate.h"

#include <filesystem>

#include "model/trace/assembler.h"

namespace neuronsim::platform {

void fresh_simulation_context() {
    sc_core::sc_curr_simcontext = new sc_core::sc_simcontext();
    sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
}

RunReport simulate_trace(const Config& cfg, const std::string& trace, const RunOptions& options) {
    fresh_simulation_context();
    const std::string streams_dir = options.out_dir + "/streams";
    model::trace::assemble_trace(trace, streams_dir);
    const auto streams = model::trace::list_streams(streams_dir);
    const std::string setup = std::filesystem::exists(streams_dir + "/setup.trace") ? streams_dir + "/setup.trace" : "";
    TraceHost host("host", cfg, streams, setup, options);
    return host.run();
}

}  // namespace neuronsim::platform
