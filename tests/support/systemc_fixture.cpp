#include "tests/support/systemc_fixture.h"

#include "platform/simulate.h"

namespace neuronsim::test {

// A new context becomes current, as SystemC test benches commonly do (platform/simulate.cpp
// keeps the old ones reachable: SystemC cannot delete a context with suspended threads).
void reset_systemc_context() { platform::fresh_simulation_context(); }

}  // namespace neuronsim::test
