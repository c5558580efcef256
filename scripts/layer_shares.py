#!/usr/bin/env python3
"""Where a model layer's time goes, per generation: total simulated time, the share of it with a
DMA transfer in flight, the share ACT is busy, and ACT's Activate time against the public
throughput form sum(max(64, N)) cycles. Reads the outputs of `neuronsim run` (instructions.csv,
stats.json), so it can compare two builds of neuronsim on the same layers.

  scripts/layer_shares.py NEURONSIM OUTDIR [--model bert-base:128 ...] [--gen sunda ...]

It generates each layer with NEURONSIM's own `kernel` command (so each build uses its own
generator), runs it timing-only on each generation and prints one row per (layer, generation).
"""
import argparse
import csv
import json
import os
import subprocess
import sys


def union(intervals):
    total, end = 0.0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def measure(exe, out, model, seq, gen):
    trace = os.path.join(out, f"{model}_{seq}_{gen}.trace")
    subprocess.run([exe, "kernel", "--model", model, "--layer", "0", "--seq", str(seq), "--gen", gen, "-o", trace],
                   check=True, stdout=subprocess.DEVNULL)
    run = os.path.join(out, f"{model}_{seq}_{gen}")
    subprocess.run([exe, "run", "--gen", gen, "--trace", trace, "--numerics", "none", "--no-progress", "--no-timeline", "--force",
                    "--out", run], check=True, stdout=subprocess.DEVNULL)
    stats = json.load(open(os.path.join(run, "stats.json")))["core"]
    total = stats["simulated_ps"] / 1000.0
    act_ghz = stats["act"]["clock_ghz"]
    dma, act, form = [], [], 0.0
    with open(os.path.join(run, "instructions.csv")) as f:
        for r in csv.DictReader(f):
            s, e = float(r["start_ns"]), float(r["end_ns"])
            if r["engine"].startswith("dma") and r["mnemonic"] == "copy":
                dma.append((s, e))
            elif r["engine"] == "act":
                act.append((s, e))
                if r["mnemonic"] == "activate":
                    form += max(64, int(r["n"])) / act_ghz
    activate_ns = stats["act"]["by_mnemonic"].get("activate", {}).get("busy_ps", 0) / 1000.0
    return total, union(dma) / total, union(act) / total, activate_ns / form if form else 0.0, stats["dma"]["bytes"] / total


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("exe")
    p.add_argument("out")
    p.add_argument("--model", action="append", default=None, help="MODEL:SEQ (default bert-base:128, bert-base:512, llama2-7b:2048)")
    p.add_argument("--gen", action="append", default=None)
    a = p.parse_args()
    models = a.model or ["bert-base:128", "bert-base:512", "llama2-7b:2048"]
    gens = a.gen or ["sunda", "cayman", "mariana", "mariana_plus", "maverick"]
    os.makedirs(a.out, exist_ok=True)
    print("layer            generation    total us   DMA in flight   ACT busy   Activate / sum(max(64,N))   DMA GB/s")
    for m in models:
        model, seq = m.split(":")
        for g in gens:
            total, dma, act, ratio, gbps = measure(a.exe, a.out, model, int(seq), g)
            print(f"{model + ' S=' + seq:16} {g:12} {total / 1000:10.1f} {100 * dma:13.1f}% {100 * act:9.1f}%   {ratio:6.2f} {gbps:28.1f}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
