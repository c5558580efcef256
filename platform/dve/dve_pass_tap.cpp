#include "platform/dve/dve_pass_tap.h"

#include <atomic>

namespace neuronsim::platform {

namespace {
std::atomic<VectorPassTap*> g_tap{nullptr};
}

void set_vector_pass_tap(VectorPassTap* tap) { g_tap.store(tap, std::memory_order_release); }
VectorPassTap* vector_pass_tap() { return g_tap.load(std::memory_order_acquire); }

}  // namespace neuronsim::platform
