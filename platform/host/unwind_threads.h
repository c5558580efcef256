#pragma once
// Ends the simulation's SC_THREADs by unwinding their stacks. SystemC frees a thread that is
// still suspended (a run stopped by Ctrl-C, a failure, a deadlock) without unwinding it, so
// whatever its locals owned leaks; a host that owns the whole simulation calls this once it is
// done with it, before its modules are destroyed. Not for a library inside someone's VP.
namespace neuronsim::platform {

// Kills every thread process that has not ended, from a spawned method (a kill from sc_main is
// not allowed), and runs the one delta that takes. Nothing if the simulation was stopped.
void unwind_threads();

}  // namespace neuronsim::platform
