#!/usr/bin/env bash
# What looking for hazards (docs/hazards.md) costs a run: `neuronsim run --hazards off` against
# `--hazards warn` on one generated kernel trace, as whole processes, each R times (default 3)
# in turn; prints the median wall times, the ratio, and whether the two runs' stats.json agree
# apart from core.hazards (they must: the detector only looks). After scripts/setup.sh:
#   sh scripts/bench_hazards.sh [KERNEL] [SHAPE] [NUMERICS] [R]     (softmax 65536x2048 none 3)
set -eu
cd "$(dirname "$0")/.."
kernel=${1:-softmax}; shape=${2:-65536x2048}; numerics=${3:-none}; runs=${4:-3}
exe=build/neuronsim
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$exe" kernel "$kernel" --shape "$shape" --gen mariana -o "$work/k.trace" > /dev/null
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_of() {  # wall seconds of one run of "$@"
  local t0 t1; t0=$(date +%s.%N); "$@" > /dev/null; t1=$(date +%s.%N); echo "$t0 $t1" | awk '{printf "%.3f\n", $2 - $1}'
}
: > "$work/a"; : > "$work/b"
for _ in $(seq "$runs"); do
  for h in off warn; do
    rm -rf "$work/$h"
    time_of "$exe" run "$work/k.trace" --gen mariana --numerics "$numerics" --no-csv --no-timeline --no-progress --hazards "$h" -o "$work/$h" \
      >> "$work/$([ $h = off ] && echo a || echo b)"
  done
done
a=$(median < "$work/a"); b=$(median < "$work/b")
strip() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); s["core"].pop("hazards"); print(json.dumps(s["core"], sort_keys=True))' "$1"; }
same=$([ "$(strip "$work/off/stats.json")" = "$(strip "$work/warn/stats.json")" ] && echo yes || echo NO)
instr=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["core"]["instructions"])' "$work/warn/stats.json")
found=$(wc -l < "$work/warn/hazards.txt")
echo "neuronsim run of kernel $kernel $shape (mariana, --numerics $numerics, $instr instructions): median of $runs"
echo "  --hazards off:  $a s"
echo "  --hazards warn: $b s ($found hazards found)"
echo "  ratio warn / off: $(echo "$a $b" | awk '{printf "%.2f", $2 / $1}'); stats otherwise identical: $same"
[ "$same" = yes ]
