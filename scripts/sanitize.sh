#!/usr/bin/env bash
# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer (clang) with leak
# detection on, in the shared clang build (scripts/clang_build.sh, build-asan/). Arguments go to
# ctest, e.g. scripts/sanitize.sh -R 'Isa|Pwp|Trace'. Any sanitizer report fails its test
# (UBSan halts on the first error). No suppressions. clang, not GCC: GCC's ASan reports false
# stack-buffer errors when an exception unwinds across SystemC's coroutine stacks. The package
# test is left out: it installs the instrumented library and builds the example VP with the
# system compiler, which cannot link against ASan's runtime.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/clang_build.sh all  # every test binary (and the fuzzers, which fuzz_smoke.sh then runs)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:check_initialization_order=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-asan -j "${SANITIZE_JOBS:-$(nproc)}" --output-on-failure -E '^Package\.' "$@"
