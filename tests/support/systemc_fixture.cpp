#include "tests/support/systemc_fixture.h"

#include <systemc>

namespace neuronsim::test {

void reset_systemc_context() {
    // The old context is left alone (deleting it tears down modules of the previous test);
    // a new one becomes current, as SystemC test benches commonly do.
    sc_core::sc_curr_simcontext = new sc_core::sc_simcontext();
    sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
}

}  // namespace neuronsim::test
