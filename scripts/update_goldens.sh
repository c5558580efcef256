#!/usr/bin/env bash
# Regenerates the golden results of the example traces listed in tests/golden/examples.txt
# (tests/golden/<trace>/<gen>/{stats.json,instructions.csv}). Run it after an intended timing
# change and review the diff: the golden tests pin every cycle.
set -euo pipefail
cd "$(dirname "$0")/.."
grep -v '^#' tests/golden/examples.txt | while read -r trace gens extra; do
  [ -n "$trace" ] || continue
  for gen in $(./build/neuronsim config generations --select "$gens"); do
    out=$(mktemp -d)
    # shellcheck disable=SC2086  # the extra arguments are words
    ./build/neuronsim run --gen "$gen" --trace "traces/$trace.trace" --out "$out" --no-progress $extra > /dev/null
    mkdir -p "tests/golden/$trace/$gen"
    cp "$out/stats.json" "$out/instructions.csv" "tests/golden/$trace/$gen/"
    rm -rf "$out"
  done
done
echo "goldens updated under tests/golden/"
