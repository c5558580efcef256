#include "tests/support/asan.h"

#if NEURONSIM_ASAN
#include <pthread.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace neuronsim::test {

// libsystemc announces its coroutine switches to ASan through the weak
// __sanitizer_{start,finish}_switch_fiber hooks. After a test bench's modules are destroyed
// with their threads, the main thread can stay recorded on a coroutine stack that is gone, and
// LeakSanitizer's scan at exit then faults on it ("Tracer caught signal 11", the test aborts;
// seen in 12 of 16 runs of EngineBench.* on a fresh machine). Announcing a switch to the
// thread's own stack, which it is on, puts the record right.
void restore_thread_stack_for_asan() {
#if NEURONSIM_ASAN
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
    void* base = nullptr;
    size_t size = 0;
    const int got = pthread_attr_getstack(&attr, &base, &size);
    pthread_attr_destroy(&attr);
    if (got != 0) return;
    void* fake_stack = nullptr;
    __sanitizer_start_switch_fiber(&fake_stack, base, size);
    __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
#endif
}

}  // namespace neuronsim::test
