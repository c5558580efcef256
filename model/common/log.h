#pragma once
// Messages of the library code (a profile's warnings, POOL's firmware log): they go to the sink
// the host installs, and nowhere before one is. The CLI installs its logger (apps/main.cpp); a
// NeuronCore in someone's virtual platform routes them through SystemC's report handler
// (platform/tlm/systemc_log.h), so the platform's own filters and verbosity apply. Library code
// never writes to stdout or stderr itself.
#include <functional>
#include <string>

namespace neuronsim::model {

enum class LogLevel { Debug, Info, Warning };

// `topic` names the component ("pwp", "pool"); a SystemC sink makes it "neuronsim/<topic>".
using LogSink = std::function<void(LogLevel, const char* topic, const std::string& message)>;

// Replaces the sink (an empty one drops every message). Thread-safe, as is log().
void set_log_sink(LogSink sink);
// Installs `sink` only where no sink is installed yet; true when it did.
bool set_log_sink_if_unset(LogSink sink);

void log(LogLevel level, const char* topic, const std::string& message);

}  // namespace neuronsim::model
