#!/usr/bin/env bash
# The trace-throughput benchmark (bench/README.md): `neuronsim run` on the act/pool semaphore
# ping-pong trace, recording instructions.csv and timeline.json (the default). Prints each run's
# host figures (host.json: simulation wall time including writing the records, instructions/s,
# peak RSS) and the whole command's wall time (including the trace's assembly), then one run of
# a trace ten times longer for memory flatness. The records are ~260 bytes per instruction
# (100 MB for the default trace), so the disk's write-back matters: the script syncs before it
# measures. TMPDIR chooses where the outputs go (e.g. TMPDIR=/dev/shm for memory).
#   scripts/bench_trace_rate.sh [NEURONSIM] [PAIRS] [RUNS]     (defaults: build/neuronsim 200000 5)
set -euo pipefail
bin=${1:-build/neuronsim}
pairs=${2:-200000}
runs=${3:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
here=$(dirname "$0")
"$here/make_pingpong_trace.sh" "$pairs" > "$dir/t.trace"
"$here/make_pingpong_trace.sh" $((pairs * 10)) > "$dir/t10.trace"
field() { sed -n "s/.*\"$1\": \([0-9.e+]*\).*/\1/p" "$2"; }
one() {  # trace label
    local t0 t1
    t0=$(date +%s.%N)
    "$bin" run --trace "$1" --out "$dir/out" --force --no-progress > /dev/null
    t1=$(date +%s.%N)
    local n
    n=$(( $(wc -l < "$dir/out/instructions.csv") - 1 ))
    awk -v label="$2" -v n="$n" -v ips="$(field instructions_per_second "$dir/out/host.json")" \
        -v wall="$(field wall_seconds "$dir/out/host.json")" -v rss="$(field peak_rss_bytes "$dir/out/host.json")" -v t0="$t0" -v t1="$t1" \
        'BEGIN { printf "%-8s %9d instructions  simulation %.3f s = %.2f M instructions/s  peak RSS %.1f MB  whole command %.3f s = %.2f M/s\n",
                 label, n, wall, ips / 1e6, rss / 1e6, t1 - t0, n / (t1 - t0) / 1e6 }'
    rm -rf "$dir/out"
}
sync
for i in $(seq 1 "$runs"); do one "$dir/t.trace" "run $i"; done
one "$dir/t10.trace" "10x"
sync
