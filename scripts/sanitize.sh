#!/usr/bin/env bash
# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer (clang) with leak
# detection on, in build-asan/ apart from the GCC build. Arguments go to ctest, e.g.
#   scripts/sanitize.sh -R 'Isa|Pwp|Trace|ReadFile|Json|PoolFirmware'
# Any sanitizer report fails its test (UBSan halts on the first error). No suppressions of
# neuronsim's own code. clang, not GCC: GCC's ASan reports false stack-buffer errors when an
# exception unwinds across SystemC's coroutine stacks. SANITIZE_JOBS sets the parallelism;
# SANITIZE_CXX=g++ SANITIZE_DIR=build-asan-gcc builds with GCC instead (fine for the model and
# firmware tests, which run no SystemC coroutines).
set -euo pipefail
cd "$(dirname "$0")/.."
cxx=${SANITIZE_CXX:-clang++}
dir=${SANITIZE_DIR:-build-asan}
if ! command -v "$cxx" >/dev/null; then
  echo "sanitize: $cxx not found (Debian 12: apt-get install clang)" >&2
  exit 2
fi
jobs=${SANITIZE_JOBS:-$(nproc)}
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
if [ ! -f "$dir/CMakeCache.txt" ]; then
  CXX=$cxx cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g" \
    "-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined" -DNEURONSIM_BUILD_BENCH=OFF >/dev/null
fi
cmake --build "$dir" -j "$jobs" --target neuronsim neuronsim_tests
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:check_initialization_order=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$dir" -j "$jobs" --output-on-failure "$@"
