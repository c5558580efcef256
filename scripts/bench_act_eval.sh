#!/usr/bin/env bash
# `neuronsim act eval --set` against a reference-structured scalar loop (bench/act_eval_reference_loop.cpp)
# as whole processes over the same N mixed inputs (default 8 M), each run R times (default 3)
# in turn; prints each one's median wall time, the ratio and whether the outputs are
# bit-identical (cmp). After scripts/setup.sh:
#   sh scripts/bench_act_eval.sh [N] [R] [SET] [FUNC]
set -eu
cd "$(dirname "$0")/.."
n=${1:-8000000}; runs=${2:-3}; set=${3:-exp_and_others}; func=${4:-exp}
exe=build/neuronsim; loop=build/bench/neuronsim_act_eval_reference_loop
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
manifest=build/share/neuronsim/catalog/pwp_bin_trainium/"$set".json
"$loop" --make-inputs "$n" "$work/in.f32"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_of() {  # wall seconds of one run of "$@"
  local t0 t1; t0=$(date +%s.%N); "$@"; t1=$(date +%s.%N); echo "$t0 $t1" | awk '{printf "%.3f\n", $2 - $1}'
}
: > "$work/a"; : > "$work/b"
for _ in $(seq "$runs"); do
  time_of "$exe" act eval --set "$set" --func "$func" --format f32 --in "$work/in.f32" --out "$work/fast.f32" >> "$work/a"
  time_of "$loop" "$manifest" "$func" "$work/in.f32" "$work/ref.f32" >> "$work/b"
done
a=$(median < "$work/a"); b=$(median < "$work/b")
same=$(cmp -s "$work/fast.f32" "$work/ref.f32" && echo yes || echo NO)
echo "act eval --set $set --func $func over $n mixed inputs, $(nproc) threads: median of $runs"
echo "  neuronsim act eval (batch path, threaded): $a s"
echo "  reference-structured scalar loop:          $b s"
echo "  ratio loop / act eval: $(echo "$a $b" | awk '{printf "%.2f", $2 / $1}')x; outputs bit-identical: $same"
[ "$same" = yes ]
