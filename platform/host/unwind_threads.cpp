#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "platform/host/unwind_threads.h"

#include <systemc>
#include <vector>

namespace neuronsim::platform {
namespace {

void collect(const std::vector<sc_core::sc_object*>& objects, std::vector<sc_core::sc_process_handle>& out) {
    for (sc_core::sc_object* o : objects) {
        sc_core::sc_process_handle h(o);
        if (h.valid() && h.proc_kind() != sc_core::SC_METHOD_PROC_ && !h.terminated()) out.push_back(h);
        collect(o->get_child_objects(), out);
    }
}

}  // namespace

void unwind_threads() {
    // Not started (no stacks yet) or stopped (sc_start is refused then): nothing to do.
    if (sc_core::sc_get_status() != sc_core::SC_PAUSED) return;
    std::vector<sc_core::sc_process_handle> threads;
    collect(sc_core::sc_get_top_level_objects(), threads);
    if (threads.empty()) return;
    sc_core::sc_spawn_options o;
    o.spawn_method();
    sc_core::sc_spawn(
        [threads] {
            for (sc_core::sc_process_handle h : threads)
                if (!h.terminated()) h.kill();
        },
        sc_core::sc_gen_unique_name("neuronsim_unwind"), &o);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
}

}  // namespace neuronsim::platform
