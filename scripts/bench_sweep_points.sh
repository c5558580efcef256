#!/bin/sh
# The per-point cost of `neuronsim sweep` (docs/what-if.md, "The cost of a point"): N timing-only points of a trivial trace
# run by warm workers (the default) and by exec'd processes (--spawn), each -j JOBS,
# and the same point run alone as `neuronsim run`, N_ALONE times. Prints wall seconds,
# points/s, and per point: the cost in core time (wall x jobs / N), the run's own CPU time (the
# database's cpu_seconds: what `neuronsim run` does once started: config, device, simulation,
# outputs) and the difference, the sweep's overhead per point (starting it, collecting and
# recording its results); and the points' cost against a whole `neuronsim run` process.
#   scripts/bench_sweep_points.sh [EXE] [N] [JOBS] [N_ALONE]
set -eu
EXE=$(readlink -f "${1:-build/neuronsim}")
N=${2:-10000}
JOBS=${3:-2}
ALONE=${4:-50}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
cd "$DIR"
printf 'act sync\n' > t.trace
cat > s.yaml <<SPEC
traces: [t.trace]
numerics: none
axes:
  - {key: act.clock_ghz, range: {from: 1.0, to: 2.0, steps: $N}}
SPEC
now() { date +%s.%N; }
calc() { awk "BEGIN { print $1 }"; }  # (awk is in every Debian; bc is not)
t0=$(now)
i=0
while [ $i -lt "$ALONE" ]; do
  "$EXE" run --trace t.trace --numerics none -p act.clock_ghz=1.5 --no-progress --no-csv --no-timeline --out "alone$i" >/dev/null
  i=$((i + 1))
done
t1=$(now)
run_ms=$(calc "($t1 - $t0) * 1000 / $ALONE")
printf 'neuronsim run alone: %d runs, %.1f ms each (wall)\n' "$ALONE" "$run_ms"
for mode in workers spawn; do
  flag=""
  [ "$mode" = spawn ] && flag="--spawn"
  rm -f "$mode.db"
  t0=$(now)
  "$EXE" sweep s.yaml -o "$mode.db" -j "$JOBS" --no-progress $flag > "$mode.out"
  t1=$(now)
  grep -q "$N points: $N run now (0 failed)" "$mode.out" || { cat "$mode.out"; echo "bench: the $mode sweep did not run every point" >&2; exit 1; }
  wall=$(calc "$t1 - $t0")
  per=$(calc "$wall * $JOBS * 1000 / $N")
  "$EXE" sweep export "$mode.db" --csv "$mode.csv" >/dev/null
  col=$(head -1 "$mode.csv" | tr ',' '\n' | grep -n '^cpu_seconds$' | cut -d: -f1)
  own=$(awk -F, -v c="$col" 'NR > 1 { s += $c; n++ } END { print s * 1000 / n }' "$mode.csv")
  printf '%-7s %d points -j %d: %.1f s, %.1f points/s, %.1f ms of a core per point: the run %.1f ms + the sweep %.1f ms; %+.1f ms against a run alone\n' \
    "$mode" "$N" "$JOBS" "$wall" "$(calc "$N / $wall")" "$per" "$own" "$(calc "$per - $own")" "$(calc "$per - $run_ms")"
done
