#!/usr/bin/env bash
# Writes a long act/pool semaphore ping-pong trace (2 x N sync instructions, default N=200000)
# for measuring `neuronsim run`'s instruction rate and memory:
#   scripts/make_pingpong_trace.sh 200000 > /tmp/big.trace
#   build/neuronsim run --trace /tmp/big.trace --out /tmp/big --no-progress
set -euo pipefail
n=${1:-200000}
awk -v n="$n" 'BEGIN { for (i = 0; i < n; ++i) { printf "act sync wait=1>=%d update=0+1\npool sync wait=0>=%d update=1+1\n", i, i + 1 } }'
