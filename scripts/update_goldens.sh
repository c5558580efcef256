#!/usr/bin/env bash
# Regenerates the golden results of the example traces on every generation
# (tests/golden/<trace>/<gen>/{stats.json,instructions.csv}). Run it after an intended timing
# change and review the diff: the golden tests pin every cycle.
set -euo pipefail
cd "$(dirname "$0")/.."
for trace in demo pipeline softmax gelu set_thrash; do
  for gen in sunda cayman mariana mariana_plus maverick; do
    out=$(mktemp -d)
    ./build/neuronsim run --gen "$gen" --trace "traces/$trace.trace" --out "$out" --no-progress > /dev/null
    mkdir -p "tests/golden/$trace/$gen"
    cp "$out/stats.json" "$out/instructions.csv" "tests/golden/$trace/$gen/"
    rm -rf "$out"
  done
done
echo "goldens updated under tests/golden/"
