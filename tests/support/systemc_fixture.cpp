#include "tests/support/systemc_fixture.h"

#include "platform/host/simulate.h"
#include "tests/support/asan.h"

namespace neuronsim::test {

// A new context becomes current, as SystemC test benches commonly do (platform/host/simulate.cpp
// keeps the old ones reachable: SystemC cannot delete a context with suspended threads).
void reset_systemc_context() {
    restore_thread_stack_for_asan();  // the previous context's threads may have been the last stack ASan saw
    platform::fresh_simulation_context();
}

}  // namespace neuronsim::test
