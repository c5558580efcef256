#pragma once
// Library messages (model/common/log.h) through SystemC's report handler, as a device inside
// someone's virtual platform must send them: message type "neuronsim/<topic>", debug lines at
// SC_DEBUG and information at SC_MEDIUM verbosity, warnings as SC_WARNING, so the platform's
// filters, verbosity and actions apply.
namespace neuronsim::platform {

// Installs the SystemC sink unless a host installed one of its own (the CLI does).
void log_through_systemc_unless_routed();

}  // namespace neuronsim::platform
