"""Kernels written on the builder (neuronsim.Kernel), as `neuronsim kernel` schedules them:
128-row tiles, loads on dma.0 and stores on dma.1 double-buffered against ACT, table sets
loaded when a step needs one; VectorE and TensorE where the C++ generators use them. Each returns the Kernel; run it with neuronsim.run and read its
outputs by name. The C++ generators (`neuronsim kernel`) remain for the model-sized traces
and their ring-buffered inputs.
"""
import numpy as np

from .kernel import Kernel

__all__ = ["activation_layer", "cptc_dequant_activation", "linear", "softmax"]


def activation_layer(x, func="gelu", dtype="fp32", buffers=2, gen=None, name="activation_layer"):
    """y = func(x) over a (rows, cols) array: each 128-row tile loaded, activated, stored.
    Outputs: "y"."""
    rows, cols = x.shape
    k = Kernel(name, gen=gen)
    X = k.dram_input("x", x, dtype=dtype)
    Y = k.dram_output("y", x.shape, dtype=dtype)
    for i, r in enumerate(k.row_tiles(rows)):
        p = r.stop - r.start
        t = k.sbuf((128, cols), dtype, name=f"in{i % buffers}")[0:p]
        o = k.sbuf((128, cols), dtype, name=f"out{i % buffers}")[0:p]
        k.dma_copy(t, X[r])
        k.activation(o, t, func=func)
        k.dma_copy(Y[r], o)
    return k


def softmax(x, buffers=2, gen=None, name="softmax"):
    """Row softmax of a (rows, cols) float32 array as `neuronsim kernel softmax` schedules it:
    VectorE finds -max of each row (tensor_reduce max, negated); ScalarE computes e = exp(x -
    max) in place with -max as its per-partition bias and the row sum accumulated; VectorE takes
    r = 1 / sum and y = e * r. One table set (exp) stays resident. Outputs: "y", and "sum"
    (each row's sum of e)."""
    x = np.asarray(x, dtype=np.float32)
    rows, cols = x.shape
    k = Kernel(name, gen=gen)
    X = k.dram_input("x", x)
    Y = k.dram_output("y", x.shape)
    S = k.dram_output("sum", (rows, 1))
    for i, r in enumerate(k.row_tiles(rows)):
        p = r.stop - r.start
        b = i % buffers
        t = k.sbuf((128, cols), name=f"x{b}")[0:p]
        nm = k.sbuf((128, 1), name=f"nm{b}")[0:p]
        s = k.sbuf((128, 1), name=f"s{b}")[0:p]
        rc = k.sbuf((128, 1), name=f"r{b}")[0:p]
        k.dma_copy(t, X[r])
        k.tensor_reduce(nm, t, "max", negate=True)
        k.activation_reduce(t, t, "exp", s, bias=nm)  # in place, the row sum accumulated
        k.reciprocal(rc, s)
        k.tensor_scalar(t, t, "multiply", rc)
        k.dma_copy(Y[r], t)
        k.dma_copy(S[r], s)
    return k


def linear(x, w, dtype="bf16", gen=None, name="linear"):
    """y = w^T x on TensorE for x (K, N) and w (K, M), K and M multiples of 128 or smaller, N
    <= 512: the contraction over K in 128-partition k-tiles accumulating in one PSUM bank per
    128-row block of the output, copied out by VectorE. Outputs: "y" (M, N) fp32."""
    x = np.asarray(x, dtype=np.float32)
    w = np.asarray(w, dtype=np.float32)
    (kd, n), (kw, m) = x.shape, w.shape
    if kd != kw:
        raise ValueError(f"linear: x has {kd} rows, w {kw}: both are the contraction dimension K")
    k = Kernel(name, gen=gen)
    X = k.dram_input("x", x, dtype=dtype)
    W = k.dram_input("w", w, dtype=dtype)
    Y = k.dram_output("y", (m, n))
    ktiles = k.row_tiles(kd)
    xs = [k.sbuf((r.stop - r.start, n), dtype, name=f"x{j}") for j, r in enumerate(ktiles)]
    for j, r in enumerate(ktiles):
        k.dma_copy(xs[j], X[r])
    for b, mr in enumerate(k.row_tiles(m)):
        mm = mr.stop - mr.start
        acc = k.psum((mm, n), name=f"acc{b % 2}_{mm}")
        for j, r in enumerate(ktiles):
            wt = k.sbuf((r.stop - r.start, mm), dtype, name=f"w{j}_{b % 2}_{mm}")
            k.dma_copy(wt, W[r, mr], queue="dma.2")
            k.matmul(acc, wt, xs[j], start=j == 0)
        o = k.sbuf((mm, n), name=f"y{b % 2}_{mm}")
        k.tensor_copy(o, acc)
        k.dma_copy(Y[mr], o)
    return k


def cptc_dequant_activation(w, bits=4, func="gelu", dtype="fp32", buffers=2, gen=None, name="cptc_dequant_activation"):
    """y = func(decode(CPTC-K(w))) over a (rows, cols) float32 array, rows a multiple of 128:
    each tile's compressed streams loaded, decoded on GPSIMD (the routed cptc_decode_impl<N>)
    and activated on ACT from the decoded type into `dtype`, then stored, as `neuronsim kernel
    cptc-dequant-act` schedules it. Outputs: "y"; the CptcWeights are k.weights (their
    .expected is what the decode stores). Needs a generation that stages the CPTC library:
    run(k, gen="mariana", overrides={"gpsimd.cptc_flag": True})."""
    w = np.asarray(w, dtype=np.float32)
    rows, cols = w.shape
    if rows % 128:
        raise ValueError(f"cptc_dequant_activation: {rows} rows; a CPTC decode runs on all 128 partitions: rows must be a multiple of 128")
    k = Kernel(name, gen=gen)
    W = k.cptc_input("w", w, bits=bits)
    Y = k.dram_output("y", w.shape, dtype=dtype)
    for i, r in enumerate(k.row_tiles(rows)):
        b = i % buffers
        stream = k.sbuf((128, W.stream_bytes), "uint8", name=f"stream{b}")
        dec = k.sbuf((128, cols), W.out_dtype, name=f"decoded{b}")
        o = k.sbuf((128, cols), dtype, name=f"out{b}")
        k.dma_copy(stream, W[r])
        k.cptc_decode(dec, stream, W)
        k.activation(o, dec, func=func)
        k.dma_copy(Y[r], o)
    k.weights = W
    return k
