#!/usr/bin/env bash
# A longer fuzzing campaign on one target: scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
# TARGET is trace_reader, profile_loader, set_check, bundle or pool_firmware. The checked-in
# seeds (tests/fuzz/corpus/TARGET) are read, never written: new inputs go to
# build-asan/corpus/TARGET (kept between campaigns), crashes to build-asan/artifacts/.
# A crashing input, once fixed, belongs in tests/fuzz/corpus/TARGET/ as crash-<what>.
# Reproduce one with: build-asan/fuzz/fuzz_TARGET FILE
set -euo pipefail
cd "$(dirname "$0")/.."
targets="trace_reader profile_loader set_check bundle pool_firmware"
if [ $# -lt 2 ] || ! [[ " $targets " == *" $1 "* ]] || ! [[ "$2" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]   (TARGET: $targets)" >&2
  exit 2
fi
target=$1 seconds=$2
shift 2
bash scripts/fuzz_build.sh
mkdir -p "build-asan/corpus/$target" build-asan/artifacts
dict=()
[ -f "tests/fuzz/$target.dict" ] && dict=(-dict="tests/fuzz/$target.dict")
exec "build-asan/fuzz/fuzz_$target" "build-asan/corpus/$target" "tests/fuzz/corpus/$target" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="build-asan/artifacts/$target-" "${dict[@]}" "$@"
