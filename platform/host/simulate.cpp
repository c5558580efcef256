#include "platform/host/simulate.h"

#include <filesystem>
#include <vector>

#include "model/trace/assembler.h"

namespace neuronsim::platform {

void fresh_simulation_context() {
    // An old context cannot be deleted: its engine threads are suspended coroutines, and
    // deleting the context hangs tearing them down (tried: ActTest and PlatformTest hang). So
    // every context stays owned here, reachable until exit: nothing is lost, nothing leaks
    // unseen (LeakSanitizer reports only unreachable memory).
    // The list itself is never destroyed, so that it still holds them when LSan looks at exit.
    static auto* contexts = new std::vector<sc_core::sc_simcontext*>;
    if (contexts->empty() && sc_core::sc_curr_simcontext) contexts->push_back(sc_core::sc_curr_simcontext);
    contexts->push_back(new sc_core::sc_simcontext());
    sc_core::sc_curr_simcontext = contexts->back();
    sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
}

RunReport simulate_streams(const Config& cfg, const std::string& streams_dir, const RunOptions& options) {
    const auto streams = model::trace::list_streams(streams_dir);
    const std::string setup = std::filesystem::exists(streams_dir + "/setup.trace") ? streams_dir + "/setup.trace" : "";
    TraceHost host("host", cfg, streams, setup, options);
    return host.run();
}

RunReport simulate_trace(const Config& cfg, const std::string& trace, const RunOptions& options) {
    fresh_simulation_context();
    const std::string streams_dir = options.out_dir + "/streams";
    model::trace::assemble_trace(trace, streams_dir);
    return simulate_streams(cfg, streams_dir, options);
}

}  // namespace neuronsim::platform
