// libneuronsim: the shared library of the public API (include/neuronsim/), linked from the
// model, firmware and platform archives; this file only gives the target a source of its own.
#include "neuronsim/version.h"

namespace neuronsim {
extern const char* const kLibraryVersion;
const char* const kLibraryVersion = NEURONSIM_VERSION;
}  // namespace neuronsim
