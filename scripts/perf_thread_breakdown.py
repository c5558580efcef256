#!/usr/bin/env python3
"""Where each host thread of a `neuronsim run` spent its time, from a perf profile.

    perf record -F 2000 --call-graph dwarf,32768 -o run.data \
        neuronsim run big.trace --force --no-csv --no-timeline --hazards off -p run.host_threads=2 -o out
    perf script -i run.data -F tid,time,ip,sym | python3 scripts/perf_thread_breakdown.py --hz 2000

Each sample is put in the first category whose rule matches its call chain (the rules below,
in order), and each thread's samples are printed as seconds (samples / --hz). The simulation
thread is the lowest thread id (the process's first). Samples tell CPU time only: a thread's
sleep shows as its "off CPU" figure, its first-to-last sample span less its samples. perf's
own unwinding takes CPU from the run's threads on a two-core machine, so the figures say
where the time goes, not how long an unprofiled run takes (bench/README.md section 21).
"""
import argparse
import collections
import re
import sys

# (category, pattern over the whole chain "leaf <- caller <- ..."), first match wins.
RULES = [
    ("copies", r"CopiesInFlight::make_taken|(memcpy|memmove).* <- .*(CopiesInFlight|direct_copy)"),
    ("passes", r"fast_pass|fold_n|scalar_n|alu_n|reciprocal_n|bn_stats|batched_lanes|decode_fast|cptc_decode|PoolFirmware::apply"),
    ("pool bookkeeping", r"^[^<]*WorkerPool::work"),
    ("waits", r"^[^<]*(WorkerPool::run|WorkerPool::loop|spin_until)|wait_task|futex|pthread_cond|pthread_mutex|CopiesInFlight::post"),
    ("files", r"AtomicFile|FileRange|read_at|write_pieces|prepare_run_directory|ByteStream|sha256"),
    ("trace assembly", r"assemble"),
    ("start-up, config, catalog", r"_dl_|call_init|YAML|compose_config|nlohmann|act_info|shared_act_set_region"),
    ("simulation", r"sc_core|neuronsim::platform|neuronsim::model"),
]


def read_samples(lines):
    """[(time, tid, [frame, ...])] from `perf script -F tid,time,ip,sym`."""
    head = re.compile(r"\s*(\d+)\s+(\d+\.\d+):")
    samples = []
    for line in lines:
        m = head.match(line)
        if m and not line.startswith("\t"):
            samples.append((float(m.group(2)), int(m.group(1)), []))
        elif line.strip() and samples:
            samples[-1][2].append(line.strip().split(" ", 1)[-1])
    return samples


def category(frames):
    chain = " <- ".join(frames)
    for name, pattern in RULES:
        if re.search(pattern, chain):
            return name
    return "other"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hz", type=float, required=True, help="the sampling rate given to perf record -F")
    args = ap.parse_args()
    samples = read_samples(sys.stdin)
    if not samples:
        sys.exit("perf_thread_breakdown: no samples on stdin (perf script -F tid,time,ip,sym)")
    sim = min(tid for _, tid, _ in samples)
    by_thread = collections.defaultdict(list)
    for t, tid, frames in samples:
        by_thread[tid].append((t, frames))
    for tid in sorted(by_thread):
        rows = by_thread[tid]
        counts = collections.Counter(category(f) for _, f in rows)
        span = rows[-1][0] - rows[0][0]
        on = len(rows) / args.hz
        name = "simulation thread" if tid == sim else "host thread"
        print(f"{name} {tid}: {on:.3f} s on CPU over a {span:.3f} s span ({max(0.0, span - on):.3f} s off CPU)")
        for cat, n in counts.most_common():
            print(f"  {cat:28s} {n / args.hz:7.3f} s")


if __name__ == "__main__":
    main()
