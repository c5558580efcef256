#include "platform/act/act_pass_tap.h"

#include <atomic>

namespace neuronsim::platform {

namespace {
std::atomic<ActPassTap*> g_tap{nullptr};
}

void set_act_pass_tap(ActPassTap* tap) { g_tap.store(tap, std::memory_order_release); }
ActPassTap* act_pass_tap() { return g_tap.load(std::memory_order_acquire); }

}  // namespace neuronsim::platform
