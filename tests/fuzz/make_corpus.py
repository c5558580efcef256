#!/usr/bin/env python3
"""Writes the seed corpora of tests/fuzz/corpus/<target>/ from the tree: the example traces,
their assembled bundles, profiles and sets of the generated catalog, POOL bundles with SBUF
contents. Run from the repository root after a build (it uses build/neuronsim):

    python3 tests/fuzz/make_corpus.py [build/neuronsim]

Seeds are small on purpose (libFuzzer mutates small inputs faster); JSON is minified.
Crashing inputs found later are added by hand as corpus/<target>/crash-<what>."""
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "neuronsim")
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus")
SEP = b"\n====\n"


def put(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def minify(path):
    with open(path) as f:
        return json.dumps(json.load(f), separators=(",", ":")).encode()


def traces():
    out = {}
    for p in sorted(glob.glob(os.path.join(ROOT, "traces", "*.trace"))):
        with open(p) as f:
            text = f.read()
        # .data file= names the harness's scratch files.
        text = re.sub(r"file=data/\S+", "file=d4k.bin", text)
        out[os.path.basename(p)] = text
    return out


tmp_root = tempfile.mkdtemp(prefix="neuronsim-corpus-")


def main():
    tmp = tmp_root
    # trace_reader: the example traces, plus directives of every form.
    for name, text in traces().items():
        put("trace_reader", name, text.encode())
    put("trace_reader", "directives.trace",
        b".data dram:0x100 u32 1 2 3\n.data sbuf:3:0x10 partitions=2 f32 1.0 -2.5 0x7fc00000\n"
        b".data psum:0:0 partitions=4 file=d16.bin\n.reg 4 0x1234\n"
        b".dump psum:1:0x20 bytes=64 partitions=3 file=out/p.bin  # comment\r\n"
        b"dma1.3 copy src=dram:0x0 dst=sbuf@0x2640000 partitions=2 bytes=8 events=0007000000000000\n"
        b"act activate src=0x3200000 dst=psum:2:0x10 scale=0x7fc00001 wait=1==3 update=2=3\n")

    # bundle: every bundle of the assembled traces; with a trace line after one of them.
    trace_dir = os.path.join(tmp, "traces")
    os.makedirs(trace_dir)
    lines = []
    for name, text in traces().items():
        src = os.path.join(trace_dir, name)
        with open(src, "w") as f:
            f.write(re.sub(r"^\.data.*$", "", text, flags=re.M))
        out = os.path.join(tmp, "asm-" + name)
        subprocess.run([EXE, "asm", src, "-o", out], check=True, stdout=subprocess.DEVNULL)
        for b in sorted(glob.glob(os.path.join(out, "*.bin"))):
            data = open(b, "rb").read()
            for i in range(0, len(data), 64):
                bundle = data[i:i + 64]
                put("bundle", hashlib.sha1(bundle).hexdigest()[:16], bundle)
        lines += [l.split("#")[0].strip() for l in text.splitlines() if l and l[0] not in ".#" and l.strip()]
    for i, l in enumerate(sorted(set(lines))[:12]):
        put("bundle", "line-%02d" % i, bytes(64) + l.encode())

    # profile_loader: small catalog profiles, minified.
    subprocess.run([EXE, "pwp", "gen", "--out", os.path.join(tmp, "cat")], check=True, stdout=subprocess.DEVNULL)
    jsons = os.path.join(tmp, "cat", "pwp_jsons")
    for n in ["identity_1p", "leaky_relu_1p", "sign_1p", "arctan_4p", "tanh_4p"]:
        put("profile_loader", n + ".json", minify(os.path.join(jsons, n + ".json")))

    # set_check: the small sets of both targets as set "s".
    for target in ["trainium", "with_ln"]:
        d = os.path.join(tmp, "cat", "pwp_bin_" + target)
        roster = json.load(open(os.path.join(d, "act_info.json")))
        for s in roster["act_func_sets"]:
            if s["name"] not in ("small", "trig_and_small"):
                continue
            man = json.load(open(os.path.join(d, s["name"] + ".json")))
            bkt = open(os.path.join(d, man["bkt_bin"]), "rb").read()
            ctrl = open(os.path.join(d, man["ctl_bin"]), "rb").read()
            man["bkt_bin"], man["ctl_bin"] = "s_bkt.bin", "s_ctrl.bin"
            act = {"act_func_sets": [dict(s, name="s")]}
            put("set_check", "%s-%s" % (target, s["name"]),
                json.dumps(act, separators=(",", ":")).encode() + SEP + json.dumps(man, separators=(",", ":")).encode() + SEP + bkt + SEP + ctrl)

    # pool_firmware: config byte, slice byte, bundle, one partition's SBUF (4096 bytes).
    weights = open(os.path.join(ROOT, "traces", "data", "weights_cptc4.bin"), "rb").read()[:80]
    sbuf = (weights + bytes(4096))[:4096]
    pool = os.path.join(tmp, "pool.trace")
    with open(pool, "w") as f:
        f.write("pool conv_lut_load src=sbuf:0:0x0 src.num=4,5 src.step=1,4 in_dtype=9 out_dtype=7 num_active_rows=128 "
                "num_active_cols=128 mconst0=0x3c00 mconst1=0x100 row_grp=15 col_grp=15 block_size=64 lut_dtype=0x1c "
                "dst=sbuf:0:0x800 dst.num=128,1,1 dst.step=1,0,0\n"
                "pool ext spec=7 src=sbuf:0:0x0 src.num=4,5 src.step=1,4 in_dtype=9 out_dtype=10 num_active_rows=128 "
                "num_active_cols=128 mconst0=0x3c00 mconst1=0x100 row_grp=15 col_grp=15 block_size=64 lut_dtype=0x1d "
                "dst=sbuf:0:0x800 dst.num=32,2,1 dst.step=1,64,0\n"
                "pool ext spec=1 in_dtype=5 num_active_rows=4 src=sbuf:0:0x10 src.num=3,1 src.step=2,0 dst=sbuf:0:0x100 dst.num=3,1,1 dst.step=1,0,0\n"
                "pool ext spec=0\n"
                "pool conv_lut_load in_dtype=5 src=sbuf:0:0x20 src.num=16,1 src.step=1,0\n")
    subprocess.run([EXE, "asm", pool, "-o", os.path.join(tmp, "pool")], check=True, stdout=subprocess.DEVNULL)
    data = open(os.path.join(tmp, "pool", "pool.bin"), "rb").read()
    cfgs = [0x8C, 0x8C, 0x8C, 0x8C, 0x8C]  # bit 7: keep the opcode; NeuronCore v4, CPTC flag, default routing
    for i in range(0, len(data), 64):
        put("pool_firmware", "pool-%d" % (i // 64), bytes([cfgs[i // 64], 0x0F]) + data[i:i + 64] + sbuf)

    device_seeds()


def device_seeds():
    """device: operation streams for fuzz_device.cpp (one byte chooses the operation, the
    next bytes its operands; see its one_op()). Operations: 5 wait, 7 RESET, 8 DRAM manners,
    10 overwrite the sets directory, 12 read every register, 13 a program on one queue."""
    wait_100us, read_all, reset = [5, 4], [12], [7]
    program = lambda q, ring, templates: [13, q, ring, len(templates) - 1] + templates
    # Load exp_and_others, activate, then the same with the directory's control_words (offset
    # 24 of entry 0) set to 0x7fffffff: the load must fail cleanly.
    put("device", "load-activate-then-corrupt-directory", bytes(
        program(0, 0, [0, 4]) + wait_100us * 2 + read_all + reset +
        [10, 0, 24, 5, 0xff, 0xff, 0xff, 0x7f] + program(0, 1, [0, 4]) + wait_100us * 2 + read_all + reset))
    # RESET while fetches and transfers wait inside a slow DRAM's b_transport.
    put("device", "reset-while-the-dram-waits", bytes(
        [8, 0, 200, 0] + [8, 1, 0] + program(2, 0, [9, 10]) + program(0, 2, [1, 5]) + [5, 1] + reset + [5, 2] + read_all +
        program(1, 3, [8]) + wait_100us + reset))
    # DMA and ACT handing over through semaphores, the interrupt waited for, then halts.
    put("device", "pipeline-with-irq", bytes(
        program(2, 0, [9, 10]) + program(0, 1, [1, 5]) + [9, 3, 1] + wait_100us + read_all + program(0, 4, [13]) + program(1, 5, [14]) +
        wait_100us + read_all))


if __name__ == "__main__":
    main()
    shutil.rmtree(tmp_root, ignore_errors=True)
