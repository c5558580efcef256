import re

import numpy as np
import pytest

import neuronsim as ns


def gelu_kernel(a, buffers=2, dtype="fp32"):
    k = ns.Kernel("gelu")
    rows, cols = a.shape
    x = k.dram_input("x", a, dtype=dtype)
    y = k.dram_output("y", a.shape, dtype=dtype)
    for i, r in enumerate(k.row_tiles(rows)):
        t = k.sbuf((128, cols), dtype, name=f"in{i % buffers}")
        o = k.sbuf((128, cols), dtype, name=f"out{i % buffers}")
        k.dma_copy(t, x[r])
        k.activation(o, t, func="gelu")
        k.dma_copy(y[r], o)
    return k


@pytest.mark.parametrize("gen", ["trn1", "mariana"])
def test_a_double_buffered_kernel_is_bit_exact_against_numpy_eval(gen):
    a = np.random.default_rng(7).standard_normal((1024, 96)).astype(np.float32)
    r = ns.run(gelu_kernel(a), gen=gen)
    assert np.array_equal(r["y"].view(np.uint32), ns.act.eval(a, "gelu").view(np.uint32))


def test_bf16_tiles_round_to_nearest_even():
    a = np.float32([[1.0 + 2**-8, 1.0 + 3 * 2**-8, -2.5, 0.0]] * 128)  # ties to even: 1.0 and 1.015625
    k = ns.Kernel("bf16")
    x = k.dram_input("x", a, dtype="bf16")
    y = k.dram_output("y", a.shape, dtype="fp32")
    t = k.sbuf((128, 4), "bf16", name="t")
    o = k.sbuf((128, 4), "fp32", name="o")
    k.dma_copy(t, x)
    k.activation(o, t, func="identity")
    k.dma_copy(y, o)
    out = ns.run(k)["y"]
    assert out[0].tolist() == [1.0, 1.015625, -2.5, 0.0]


def test_the_semaphores_come_from_the_data():
    a = np.ones((512, 64), dtype=np.float32)
    text = gelu_kernel(a, buffers=2).trace_text()
    ops = [l for l in text.splitlines() if l and not l.startswith((".", "#"))]
    # read after write: every activation waits for its load
    assert all("wait=" in l for l in ops if " activate " in l)
    # write after read: the third load reuses in0, which the first activation read
    loads = [l for l in ops if l.startswith("dma.0 copy")]
    assert "wait=" not in loads[0] and "wait=" not in loads[1] and re.search(r"wait=\d+>=1", loads[2])
    # one buffer: nothing overlaps, every reuse waits
    single = gelu_kernel(a, buffers=1).trace_text()
    assert single.count("wait=") > text.count("wait=")


def test_without_the_semaphores_the_kernel_races():
    # The check above can fail for a reason: strip the waits, and the activations read SBUF
    # before the loads land (the device runs the engines concurrently).
    a = np.random.default_rng(3).standard_normal((256, 64)).astype(np.float32) + 3
    k = gelu_kernel(a)
    good = ns.run(k)["y"]
    raced_text = re.sub(r" wait=\S+", "", k.trace_text())
    raced_text = "\n".join(l for l in raced_text.splitlines() if " sync" not in l) + "\n"
    import tempfile, os
    with tempfile.TemporaryDirectory() as d:
        k.write(d)
        path = os.path.join(d, "raced.trace")
        open(path, "w").write(raced_text)
        with pytest.warns(ns.HazardWarning) as caught:
            raced_run = ns.run(path)
        raced = raced_run.dump("y.bin", np.float32).reshape(a.shape)
        with pytest.raises(ns.HazardError) as failed, pytest.warns(ns.HazardWarning):
            ns.run(path, hazards="error")
    assert np.array_equal(good.view(np.uint32), ns.act.eval(a, "gelu").view(np.uint32))
    assert not np.array_equal(raced.view(np.uint32), good.view(np.uint32))
    # The simulator says why (docs/hazards.md): each activation reads a tile its load writes
    # with no semaphore between them, named by the raced trace's lines.
    kinds = [h["kind"] for h in raced_run.hazards]
    assert "read after write" in kinds
    raw = next(h for h in raced_run.hazards if h["kind"] == "read after write")
    assert raw["first"]["engine"].startswith("dma") and raw["second"]["engine"] == "act"
    assert "raced.trace:" in raw["text"] and raw["partitions"] == (0, 128)
    assert len(caught) == len(raced_run.hazards)
    assert raced_run.stats.core.hazards.read_after_write == kinds.count("read after write")
    assert failed.value.result.hazards == raced_run.hazards
    # The builder's own semaphores leave none.
    assert ns.run(k).hazards == []
    assert ns.run(gelu_kernel(a, buffers=1)).hazards == []


def test_activation_reduce_gives_the_row_sums_of_a_softmax():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((128, 32)).astype(np.float32)
    k = ns.Kernel("softmax_sum")
    x = k.dram_input("x", a)
    e_out = k.dram_output("e", a.shape)
    s_out = k.dram_output("sum", (128, 1))
    t = k.sbuf((128, 32), name="t")
    e = k.sbuf((128, 32), name="e")
    s = k.sbuf((128, 1), name="s")
    k.dma_copy(t, x)
    k.activation_reduce(e, t, "exp", s)
    k.dma_copy(e_out, e)
    k.dma_copy(s_out, s)
    r = ns.run(k)
    ref = ns.act.eval(a, "exp")
    assert np.array_equal(r["e"].view(np.uint32), ref.view(np.uint32))
    # the accumulator sums in element order, in binary32
    seq = np.zeros(128, dtype=np.float32)
    for j in range(32):
        seq = (seq + ref[:, j]).astype(np.float32)
    assert np.array_equal(r["sum"][:, 0].view(np.uint32), seq.view(np.uint32))


def test_per_partition_bias_and_table_loads():
    a = np.zeros((128, 8), dtype=np.float32)
    bias = np.arange(128, dtype=np.float32).reshape(128, 1) / 64
    k = ns.Kernel("bias")
    x = k.dram_input("x", a)
    y = k.dram_output("y", a.shape)
    b = k.sbuf((128, 1), name="b", init=bias)
    t = k.sbuf((128, 8), name="t")
    o = k.sbuf((128, 8), name="o")
    k.dma_copy(t, x)
    k.activation(o, t, "exp", bias=b)
    k.activation(t, o, "exp")  # same set: no second load
    k.activation(o, t, "gelu")  # another set: a load
    k.dma_copy(y, o)
    text = k.trace_text()
    assert text.count("load_act_func_set") == 2
    r = ns.run(k)
    want = ns.act.eval(ns.act.eval(ns.act.eval(np.repeat(bias, 8, axis=1), "exp"), "exp"), "gelu")
    assert np.array_equal(r["y"].view(np.uint32), want.view(np.uint32))


def test_builder_errors_say_what_is_wrong():
    k = ns.Kernel()
    with pytest.raises(ValueError, match="partitions 1..128"):
        k.sbuf((129, 4))
    with pytest.raises(ValueError, match="SBUF per partition"):
        k.sbuf((128, 1 << 20))
    t = k.sbuf((128, 4), name="t")
    with pytest.raises(ValueError, match="differ"):
        k.dma_copy(t, k.dram_input("x", np.zeros((64, 4), dtype=np.float32)))


def test_what_the_device_would_refuse_the_builder_refuses_first():
    k = ns.Kernel()
    x = k.dram_input("x", np.zeros((128, 8), dtype=np.float32))
    t = k.sbuf((128, 8), name="t")
    with pytest.raises(IndexError, match="inside 0..128"):
        x[-1]
    with pytest.raises(IndexError, match="inside 0..128"):
        t[200]
    with pytest.raises(IndexError):
        x[0:129]
    bt = k.sbuf((128, 1), name="bt")
    with pytest.raises(ValueError, match="one value per active partition"):
        k.activation(t, t, "identity", bias=bt[0:64])
    with pytest.raises(ValueError, match="does not hold"):
        k.activation(t, t, "gelu", set="exp_and_others")
    with pytest.raises(ValueError, match="accumulate"):
        k.activation(t, t, "exp", accumulate="sum")
    with pytest.raises(ValueError, match="start at 0 or 64"):
        k.activation(t[10:74], t[10:74], "exp")
    with pytest.raises(ValueError, match="queue"):
        k.dma_copy(t, x, queue="dma.x")
    with pytest.raises(ValueError, match="name"):
        k.sbuf((128, 4), name="a b")
    k.sbuf((128, 4), name="u", init=np.zeros((128, 4), np.float32))
    with pytest.raises(ValueError, match="two of the kernel's tensors"):
        k.dram_input("u.init", np.zeros((1, 4), np.float32))
    with pytest.raises(ValueError, match="init= fills a tile only where it is made"):
        k.sbuf((128, 4), name="u", init=np.ones((128, 4), np.float32))


def test_the_kernels_generation_is_the_runs_default():
    k = ns.Kernel(gen="sunda")
    t = k.sbuf((128, 4), name="t", init=np.ones((128, 4), np.float32))
    y = k.dram_output("y", (128, 4))
    k.dma_copy(y, t)
    assert ns.run(k).generation == "SUNDA"
    assert ns.run(k, gen="cayman").generation == "CAYMAN"


def test_runs_from_several_python_threads_take_turns():
    import threading
    a = np.random.default_rng(9).standard_normal((256, 32)).astype(np.float32)
    want = ns.act.eval(a, "gelu").view(np.uint32)
    results, errors = [], []

    def one():
        try:
            results.append(np.array_equal(ns.run(gelu_kernel(a))["y"].view(np.uint32), want))
            results.append(np.array_equal(ns.act.eval(a, "gelu", threads=2).view(np.uint32), want))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    ts = [threading.Thread(target=one) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=120)
    assert not errors and len(results) == 8 and all(results)


def test_softmax_on_the_builder_is_vectore_and_scalare_and_close_to_numpy():
    rng = np.random.default_rng(11)
    x = rng.uniform(-8, 8, (300, 64)).astype(np.float32)  # 3 tiles, the last one partial
    k = ns.kernels.softmax(x)
    assert "dve tensor_reduce reduce_op=max negate=1" in k.trace_text() and "neg_max" not in k.trace_text()
    r = ns.run(k, gen="trn2", hazards="error")
    # the steps by their definitions: VectorE's -max (exact), ScalarE's exp(x * 1 + (-max)) from
    # the table with the float32 row sum in element order, VectorE's IEEE 1/sum and product
    nm = -x.max(axis=1, keepdims=True)
    e = ns.act.eval((x * np.float32(1.0) + nm).astype(np.float32), "exp")
    s = np.zeros(x.shape[0], dtype=np.float32)
    for j in range(x.shape[1]):
        s = (s + e[:, j]).astype(np.float32)
    rc = (np.float32(1.0) / s).astype(np.float32)
    y = (e * rc[:, None]).astype(np.float32)
    assert np.array_equal(r["sum"][:, 0].view(np.uint32), s.view(np.uint32))
    assert np.array_equal(r["y"].view(np.uint32), y.view(np.uint32))
    ref = np.exp(x - x.max(axis=1, keepdims=True))
    ref /= ref.sum(axis=1, keepdims=True)
    assert np.allclose(r["y"], ref, rtol=1e-5, atol=1e-7)
    assert r.stats["core"]["act"]["table_loads"] == 1


def test_linear_on_tensore_sums_each_output_in_k_order():
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, (200, 96)).astype(np.float32)  # K = 200: a full and a partial k-tile
    w = rng.uniform(-1, 1, (200, 160)).astype(np.float32)  # M = 160: two output blocks
    r = ns.run(ns.kernels.linear(x, w, dtype="bf16"), gen="cayman", hazards="error")
    def bf16(a):  # the values the bf16 DRAM tensors hold
        return ns.kernel.decode(np.frombuffer(ns.kernel.encode(a, "bf16"), np.uint8), "bf16").reshape(a.shape)

    xb, wb = bf16(x), bf16(w)
    want = np.zeros((160, 96), dtype=np.float32)
    for kk in range(200):  # docs/tensor-engine.md: each product rounded, summed k by k from +0
        want = (want + (wb[kk][:, None] * xb[kk][None, :]).astype(np.float32)).astype(np.float32)
    assert np.array_equal(r["y"].view(np.uint32), want.view(np.uint32))
    assert r.stats["core"]["pe"]["by_mnemonic"]["matmul"]["count"] == 4


def test_bn_stats_and_bn_aggr_give_each_rows_mean_and_variance():
    x = np.random.default_rng(9).uniform(-2, 2, (100, 1000)).astype(np.float32)
    k = ns.Kernel("bn")
    X = k.dram_input("x", x)
    Y = k.dram_output("y", (100, 2))
    t = k.sbuf((100, 1000), name="x")
    st = k.sbuf((100, 12), name="st")
    o = k.sbuf((100, 2), name="o")
    k.dma_copy(t, X)
    k.bn_stats(st[:, 0:6], t[:, 0:500])
    k.bn_stats(st[:, 6:12], t[:, 500:1000])
    k.bn_aggr(o, st)
    k.dma_copy(Y, o)
    r = ns.run(k, hazards="error")
    assert np.allclose(r["y"][:, 0], x.mean(axis=1, dtype=np.float64), atol=1e-5)
    assert np.allclose(r["y"][:, 1], x.var(axis=1, dtype=np.float64), rtol=1e-4)
    with pytest.raises(ValueError, match="at most 512"):
        k.bn_stats(st[:, 0:6], t)


def test_matmul_and_vectore_refuse_what_the_engines_would():
    k = ns.Kernel("bad")
    a = k.sbuf((128, 128), "bf16", name="a")
    b = k.sbuf((128, 600), "bf16", name="b")
    c = k.sbuf((64, 64), "bf16", name="c")
    p = k.psum((128, 512), name="p")
    with pytest.raises(ValueError, match="N at most 512"):
        k.matmul(k.psum((128, 600), name="q"), a, b)
    with pytest.raises(ValueError, match="contracts the same partitions"):
        k.matmul(p[0:128, 0:64], a, c)
    with pytest.raises(ValueError, match="fp32 PSUM tile"):
        k.matmul(k.sbuf((128, 64), name="s"), a, a[:, 0:64])
    with pytest.raises(ValueError, match="PSUM bank boundary"):
        k.matmul(k.psum((128, 1024), name="big")[:, 256:556], a, b[:, 0:300])  # PSUM bytes 1024..2223
    with pytest.raises(ValueError, match="expected one of add, subtract, multiply"):
        k.tensor_tensor(c, c, c, "pow")
    with pytest.raises(ValueError, match="same partitions"):
        k.tensor_tensor(c, c, a[0:32, 0:64], "add")
    with pytest.raises(ValueError, match=r"\(partitions, 1\) tile"):
        k.tensor_reduce(c, c, "max")


def test_an_activation_layer_with_a_partial_last_tile():
    x = np.random.default_rng(12).standard_normal((200, 40)).astype(np.float32)
    r = ns.run(ns.kernels.activation_layer(x, "silu"))
    assert np.array_equal(r["y"].view(np.uint32), ns.act.eval(x, "silu").view(np.uint32))


@pytest.mark.parametrize("bits", [4, 3, 7])
def test_cptc_dequant_activation_decodes_on_gpsimd_and_activates(bits):
    # CPTC4 -> impl<3> (fp16), CPTC3 -> impl<5> (uint8, the integer leg), CPTC7 -> impl<6>:
    # the run's output is gelu of exactly what the encoder says the decode stores.
    w = np.random.default_rng(bits).uniform(-1, 1, (256, 192)).astype(np.float32)
    if bits == 3:
        w = (w + 1) * 3.5
    k = ns.kernels.cptc_dequant_activation(w, bits=bits)
    r = ns.run(k, gen="mariana", overrides={"gpsimd.cptc_flag": True})
    W = k.weights
    assert W.kernel.startswith({4: "cptc_decode_impl<3>", 3: "cptc_decode_impl<5>", 7: "cptc_decode_impl<6>"}[bits])
    assert W.out_dtype == ("uint8" if bits == 3 else "fp16")
    want = ns.act.eval(W.expected.astype(np.float32), "gelu")
    assert np.array_equal(r["y"].view(np.uint32), want.view(np.uint32))
    assert r.hazards == []
    assert r.stats.core.pool.cptc_decodes == 2
    # the quantisation is the encoder's: close to w, not equal
    assert np.max(np.abs(W.expected.astype(np.float32) - w)) < (0.6 if bits == 3 else 0.2)


def test_cptc_decode_checks_its_tiles():
    k = ns.Kernel("bad_cptc")
    W = k.cptc_input("w", np.zeros((128, 64), np.float32), bits=4)
    s = k.sbuf((128, W.stream_bytes), "uint8", name="s")
    with pytest.raises(ValueError, match="expected \\(128, 64\\) fp16 at partition 0"):
        k.cptc_decode(k.sbuf((128, 64), "fp32", name="d32"), s, W)
    with pytest.raises(ValueError, match="src is \\(64, "):
        k.cptc_decode(k.sbuf((128, 64), "fp16", name="d"), s[0:64], W)
    with pytest.raises(ValueError, match="SBUF tile"):
        k.cptc_decode(k.psum((128, 64), "fp16", name="p"), s, W)
    with pytest.raises(TypeError, match="2-D float32"):
        k.cptc_input("w2", np.zeros((4, 4), np.float64))
    with pytest.raises(ns.Error, match="block_size 0"):  # (was a division by zero)
        k.cptc_input("w3", np.zeros((128, 64), np.float32), block=0)
    # without the CPTC library staged, the device says how to stage it
    d = k.sbuf((128, 64), "fp16", name="d")
    k.dma_copy(s, W[0:128])
    k.cptc_decode(d, s, W)
    with pytest.raises(ns.Error, match="gpsimd.cptc_flag=true"):
        ns.run(k, gen="mariana")
