#pragma once
// The SystemC kernel neuronsim is linked against (shown by `neuronsim --version`).
#include <string>

namespace neuronsim::platform {

std::string systemc_release();  // e.g. "2.3.4-Accellera"

}  // namespace neuronsim::platform
