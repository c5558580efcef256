#!/usr/bin/env python3
"""A model layer across generations: each of its blocks (the phases of `neuronsim kernel --model`)
generated and run alone, timing-only, and the whole layer run as one trace. For each block it
prints the simulated time, the busiest engine (stats.json's core.derived.critical_engine) and how
busy each engine was over the block's time; "bound by" names the busiest engine and its share,
and "next" the second, so the margin shows how close another engine is to bounding it. The
layer row adds the host's wall time of the whole-layer run (the issue-27 goal: under 10 s
timing-only for llama2-7b at S = 2048).

  scripts/layer_study.py NEURONSIM OUTDIR [--model llama2-7b] [--seq 2048] [--dtype bf16] [--gen G ...] [--json FILE]

The blocks are those of model/workloads/kernels.cpp's presets (docs/workloads.md, "Model
presets"); each is a `neuronsim kernel` with the preset's sizes.
"""
import argparse
import json
import os
import subprocess
import sys
import time

MODELS = {
    # name: (hidden, heads, intermediate, norm, act, post_norm)
    "bert-base": (768, 12, 3072, "layernorm", "gelu", True),
    "llama2-7b": (4096, 32, 11008, "rmsnorm", "silu", False),
}
ENGINES = ("act", "dve", "pe", "pool", "dma")


def blocks(model, seq):
    hidden, heads, inter, norm, act, post = MODELS[model]
    shape = f"{seq}x{hidden}"
    qkv = ("linear QKV", ["linear", "--shape", shape, "--features", str(3 * hidden)])
    attn = ("attention", ["attention", "--shape", shape, "--heads", str(heads)])
    out = ("linear out", ["linear", "--shape", shape])
    mlp = ("mlp", ["mlp", "--shape", shape, "--intermediate", str(inter), "--act", act])
    nrm = (norm, [norm, "--shape", shape])
    return [qkv, attn, out, nrm, mlp, nrm] if post else [nrm, qkv, attn, out, nrm, mlp]


def run(exe, out, name, kernel_args, gen, dtype):
    trace = os.path.join(out, f"{name}_{gen}.trace")
    subprocess.run([exe, "kernel", *kernel_args, "--dtype", dtype, "--gen", gen, "-o", trace], check=True, stdout=subprocess.DEVNULL)
    rundir = os.path.join(out, f"{name}_{gen}")
    t0 = time.monotonic()
    subprocess.run([exe, "run", "--gen", gen, "--trace", trace, "--numerics", "none", "--no-progress", "--no-timeline", "--no-csv", "--force",
                    "--out", rundir], check=True, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    core = json.load(open(os.path.join(rundir, "stats.json")))["core"]
    total = core["simulated_ps"]
    busy = {e: core[e]["busy_ps"] / total for e in ENGINES if e in core and e != "dma" and total}
    busy["dma"] = core["derived"]["dma_busy_ps"] / total if total else 0.0
    ranked = sorted(busy.items(), key=lambda kv: -kv[1])
    return {"block": name, "generation": gen, "simulated_us": total / 1e6, "critical_engine": core["derived"]["critical_engine"],
            "busy": busy, "bound_by": ranked[0], "next": ranked[1] if len(ranked) > 1 else ("-", 0.0), "host_s": wall}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("exe")
    p.add_argument("out")
    p.add_argument("--model", default="llama2-7b", choices=sorted(MODELS))
    p.add_argument("--seq", type=int, default=2048)
    p.add_argument("--dtype", default="bf16", choices=["fp32", "bf16", "fp16"])
    p.add_argument("--gen", action="append", default=None, help="generation (repeatable; default all five)")
    p.add_argument("--json", help="also write the rows as JSON to this file")
    a = p.parse_args()
    gens = a.gen or ["sunda", "cayman", "mariana", "mariana_plus", "maverick"]
    os.makedirs(a.out, exist_ok=True)
    rows = []
    print(f"{a.model} layer, S={a.seq}, {a.dtype}, timing-only ({a.exe})")
    print(f"{'generation':13} {'block':12} {'simulated us':>12}  {'bound by':14} {'next':14}  " + " ".join(f"{e:>5}" for e in ENGINES))
    for gen in gens:
        for i, (name, args) in enumerate(blocks(a.model, a.seq)):
            r = run(a.exe, a.out, f"{i}_{name.replace(' ', '_')}", args, gen, a.dtype)
            r["block"] = name
            rows.append(r)
            print(f"{gen:13} {name:12} {r['simulated_us']:12.1f}  {r['bound_by'][0]:>4} {100 * r['bound_by'][1]:5.1f}%    "
                  f"{r['next'][0]:>4} {100 * r['next'][1]:5.1f}%    " + " ".join(f"{100 * r['busy'].get(e, 0):4.0f}%" for e in ENGINES))
        layer = run(a.exe, a.out, "layer", ["--model", a.model, "--layer", "0", "--seq", str(a.seq)], gen, a.dtype)
        layer["block"] = "layer"
        rows.append(layer)
        blocks_us = sum(r["simulated_us"] for r in rows if r["generation"] == gen and r["block"] != "layer")
        print(f"{gen:13} {'LAYER':12} {layer['simulated_us']:12.1f}  {layer['bound_by'][0]:>4} {100 * layer['bound_by'][1]:5.1f}%    "
              f"(blocks alone add to {blocks_us:.1f} us; host {layer['host_s']:.2f} s for the layer's run)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
