#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz in the shared clang build (scripts/clang_build.sh:
# ASan + UBSan + coverage, build-asan/). Used by fuzz.sh and fuzz_smoke.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/clang_build.sh neuronsim_fuzzers
