#!/usr/bin/env bash
# Runs the whole test suite (after scripts/setup.sh): brings build/ up to date, then ctest
# in parallel. Exits non-zero when any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/CMakeCache.txt ] || cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j "$(nproc)"
ctest --test-dir build -j "$(nproc)" --output-on-failure
