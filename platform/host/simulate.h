#pragma once
// Simulates a text trace to the end in a fresh SystemC simulation context, so one process can
// simulate several traces one after another (`neuronsim advise` runs a trace and its rewrite;
// tests run many platforms). Earlier contexts are kept (reachable) until the process ends.
#include <string>

#include "platform/host/trace_host.h"

namespace neuronsim::platform {

// Makes a new simulation context current.
void fresh_simulation_context();

// Runs the assembled streams of `streams_dir` (<engine>.bin, setup.trace: `neuronsim asm`) on
// `cfg` in the current context; the outputs go to options.out_dir.
RunReport simulate_streams(const Config& cfg, const std::string& streams_dir, const RunOptions& options);

// Assembles `trace` into options.out_dir/streams and runs it on `cfg` in a fresh context;
// the outputs (dumps, recordings as `options` asks) go to options.out_dir.
RunReport simulate_trace(const Config& cfg, const std::string& trace, const RunOptions& options);

}  // namespace neuronsim::platform
