#include "platform/tlm/systemc_info.h"

#include <systemc>

namespace neuronsim::platform {

std::string systemc_release() { return sc_core::sc_release(); }

}  // namespace neuronsim::platform
