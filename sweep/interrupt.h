#pragma once
// SIGINT/SIGTERM for the sweep: the handler only sets a flag; the sweep loop then stops
// launching points, stops the running ones and exits 130.
namespace neuronsim::sweep {

void install_interrupt_handlers();
bool interrupted();
void clear_interrupt();

}  // namespace neuronsim::sweep
