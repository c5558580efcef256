#!/usr/bin/env bash
# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer (clang) with leak
# detection on, in build-asan/ apart from the GCC build. Arguments go to ctest, e.g.
#   scripts/sanitize.sh -R 'Isa|Pwp|Trace|ReadFile|Json|PoolFirmware'
# Any sanitizer report fails its test (UBSan halts on the first error). No suppressions of
# neuronsim's own code. clang, not GCC: GCC's ASan reports false stack-buffer errors when an
# exception unwinds across SystemC's coroutine stacks. SANITIZE_JOBS sets the parallelism.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang++ >/dev/null; then
  echo "sanitize: clang++ not found (Debian 12: apt-get install clang)" >&2
  exit 2
fi
jobs=${SANITIZE_JOBS:-$(nproc)}
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
if [ ! -f build-asan/CMakeCache.txt ]; then
  CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g" \
    "-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined" -DNEURONSIM_BUILD_BENCH=OFF >/dev/null
fi
cmake --build build-asan -j "$jobs" --target neuronsim neuronsim_tests
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:check_initialization_order=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-asan -j "$jobs" --output-on-failure "$@"
