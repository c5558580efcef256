#include "tests/support/systemc_fixture.h"

#include "platform/simulate.h"

namespace neuronsim::test {

// The old context is left alone (deleting it tears down modules of the previous test); a new
// one becomes current, as SystemC test benches commonly do.
void reset_systemc_context() { platform::fresh_simulation_context(); }

}  // namespace neuronsim::test
