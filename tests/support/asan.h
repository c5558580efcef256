#pragma once
// NEURONSIM_ASAN is 1 in an AddressSanitizer build (GCC or clang): tests that cap the address
// space (setrlimit RLIMIT_AS, ulimit -v) skip themselves, ASan reserving terabytes of it.
#if defined(__SANITIZE_ADDRESS__)
#define NEURONSIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NEURONSIM_ASAN 1
#endif
#endif
#ifndef NEURONSIM_ASAN
#define NEURONSIM_ASAN 0
#endif

namespace neuronsim::test {

// In an AddressSanitizer build: records the calling thread's own stack as its stack again, after
// SystemC's coroutines ran (asan_stack.cpp); elsewhere nothing. For test benches and harnesses.
void restore_thread_stack_for_asan();

}  // namespace neuronsim::test
