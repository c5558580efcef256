#!/usr/bin/env bash
# Configures and builds the libFuzzer harnesses of tests/fuzz with clang (ASan + UBSan +
# coverage) into build-fuzz/, apart from the GCC build in build/. Used by fuzz.sh and
# fuzz_smoke.sh; FUZZ_BUILD_JOBS sets the build parallelism (default: all cores).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang++ >/dev/null; then
  echo "fuzz: clang++ not found (Debian 12: apt-get install clang); libFuzzer comes with it" >&2
  exit 2
fi
if [ ! -f build-fuzz/CMakeCache.txt ]; then
  CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g" \
    -DNEURONSIM_FUZZ=ON -DNEURONSIM_BUILD_TESTS=OFF -DNEURONSIM_BUILD_BENCH=OFF >/dev/null
fi
cmake --build build-fuzz -j "${FUZZ_BUILD_JOBS:-$(nproc)}" --target neuronsim_fuzzers
