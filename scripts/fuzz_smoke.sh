#!/usr/bin/env bash
# Fuzz smoke test, for CI: builds the libFuzzer harnesses (scripts/fuzz_build.sh), replays
# every checked-in corpus, then fuzzes each target for FUZZ_SECONDS (default 12) from its
# seeds. Fails on any crash, sanitizer report, uncaught exception, broken round trip, input
# slower than 10 s or over 2 GiB; the input is kept in build-asan/artifacts/. Eight targets:
# about 100 s of fuzzing plus the build (see the README for timings).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-12}
targets="trace_reader profile_loader set_check bundle pool_firmware config sweep_spec device"
start=$(date +%s)
bash scripts/fuzz_build.sh
built=$(date +%s)
mkdir -p build-asan/artifacts
status=0
for t in $targets; do
  exe=build-asan/fuzz/fuzz_$t
  log=build-asan/smoke-$t.log
  work=$(mktemp -d)
  # Replay: every seed (and every crash input fixed since) must pass.
  if ! "$exe" -runs=0 "tests/fuzz/corpus/$t" >"$log" 2>&1; then
    echo "fuzz_smoke: $t: a corpus input fails (log: $log)"; tail -n 30 "$log"; status=1; rm -rf "$work"; continue
  fi
  dict=()
  [ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
  if "$exe" "$work" "tests/fuzz/corpus/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="build-asan/artifacts/$t-" -print_final_stats=1 "${dict[@]}" >>"$log" 2>&1; then
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    echo "fuzz_smoke: $t: ok (${execs:-?} executions in ${seconds} s)"
  else
    echo "fuzz_smoke: $t: FAILED (log: $log; input in build-asan/artifacts/)"; tail -n 40 "$log"; status=1
  fi
  rm -rf "$work"
done
end=$(date +%s)
echo "fuzz_smoke: build $((built - start)) s, replay and fuzzing $((end - built)) s"
exit $status
