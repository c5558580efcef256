"""A kernel builder: write a NeuronCore kernel in a few lines of Python and get its trace.

    k = neuronsim.Kernel()
    x = k.dram_input("x", np.float32 array of shape (rows, cols))
    y = k.dram_output("y", x.shape)
    for i, rows in enumerate(k.row_tiles(x.shape[0])):       # 128-row tiles
        t = k.sbuf((128, cols), name=f"in{i % 2}")             # two buffers, reused
        k.dma_copy(t, x[rows])
        o = k.sbuf((128, cols), name=f"out{i % 2}")
        k.activation(o, t, func="gelu")
        k.dma_copy(y[rows], o)
    r = neuronsim.run(k, gen="cayman"); r["y"]

Tiles are allocated in SBUF or PSUM by shape and dtype (the same name gives the same tile
back: that is how a kernel reuses its buffers). Each operation goes to one engine stream: DMA
copies to the DMA queues (loads from DRAM on dma.0, stores to DRAM on dma.1, others on dma.2,
or queue=), activations to ACT, CPTC decodes (cptc_input, cptc_decode) to GPSIMD (pool),
tensor_tensor / tensor_scalar / tensor_reduce / tensor_copy / reciprocal to VectorE (dve),
matmul to TensorE (pe). The semaphores come from the data: an operation waits for
the last operation of every other stream that wrote what it reads (read after write), read or
wrote what it writes (write after read, write after write), by byte ranges per partition. Each
stream counts its completed producers on a semaphore of its own, so a wait is "that stream's
semaphore >= the producer's count"; an operation that needs more than one wait gets `sync`
instructions before it on its own stream. A DMA queue keeps several transfers in flight, so a
copy that touches what an earlier copy of its own queue touches waits for it too. ACT loads
the table set an activation needs when the resident one does not hold its function (the first
trainium set in roster order that does, or set=).
"""
import os

import numpy as np

from . import _core

__all__ = ["Kernel", "Tile", "DramTensor", "CptcWeights", "decode", "encode", "DTYPES"]

_ACCUMULATOR_CMDS = ("idle", "zero", "accumulate", "zero_accumulate", "load")
_DVE_OPS = {"add": "add", "subtract": "subtract", "multiply": "mult", "mult": "mult", "max": "max", "min": "min", "divide": "divide"}
_COMPUTE_DTYPES = ("fp32", "bf16", "fp16")  # what VectorE and TensorE take here
_QUEUE = __import__("re").compile(r"^(act|pool|dma\.\d+|dma\d+(\.\d+)?)$")

# name: (bytes per element, trace dtype name)
DTYPES = {"fp32": 4, "bf16": 2, "fp16": 2, "uint8": 1, "int8": 1}
_ALIGN = 64  # bytes: where tiles start in a partition, and DRAM tensors (x64)


def _bf16_bits(a):
    """float32 -> bf16 bit patterns, rounded to nearest even (NaNs stay quiet NaNs)."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(np.asarray(a, dtype=np.float32))
    return np.where(nan, ((u >> 16) | 0x40).astype(np.uint16), rounded)


def encode(a, dtype):
    """The bytes of array `a` as elements of `dtype`. float32 values become bf16 by rounding to
    nearest even and fp16 by numpy's (also nearest even); uint16 arrays are taken as bf16/fp16
    bit patterns and uint32 arrays as fp32 bit patterns, unchanged."""
    a = np.asarray(a)
    if dtype == "fp32":
        if a.dtype == np.uint32:
            return a.astype("<u4").tobytes()
        if a.dtype != np.float32:
            raise TypeError(f"fp32 data: expected float32 (or uint32 bits), got {a.dtype}")
        return a.astype("<f4").tobytes()
    if dtype in ("bf16", "fp16"):
        if a.dtype == np.uint16:
            return a.astype("<u2").tobytes()
        if a.dtype != np.float32:
            raise TypeError(f"{dtype} data: expected float32 (rounded to nearest even) or uint16 bits, got {a.dtype}")
        return (_bf16_bits(a) if dtype == "bf16" else a.astype("<f2").view("<u2")).tobytes()
    if dtype in ("uint8", "int8"):
        want = np.uint8 if dtype == "uint8" else np.int8
        if a.dtype != want:
            raise TypeError(f"{dtype} data: expected {np.dtype(want).name}, got {a.dtype}")
        return a.tobytes()
    raise ValueError(f"dtype '{dtype}': expected one of {', '.join(DTYPES)}")


def decode(raw, dtype):
    """Raw little-endian bytes (uint8 array) of `dtype` elements as float32 (bf16, fp16: exactly),
    or as uint8/int8 for those."""
    raw = np.ascontiguousarray(raw, dtype=np.uint8)
    if dtype == "fp32":
        return raw.view("<f4").astype(np.float32)
    if dtype == "bf16":
        return (raw.view("<u2").astype(np.uint32) << 16).view(np.float32)
    if dtype == "fp16":
        return raw.view("<f2").astype(np.float32)
    if dtype in ("uint8", "int8"):
        return raw.view(np.uint8 if dtype == "uint8" else np.int8).copy()
    raise ValueError(f"dtype '{dtype}': expected one of {', '.join(DTYPES)}")


def _range(key, size, what):
    """(start, count) of an int or a contiguous slice within 0..size; IndexError otherwise."""
    if isinstance(key, slice):
        if key.step not in (None, 1):
            raise IndexError(f"{what}: {key}: only contiguous ranges (step 1)")
        lo = 0 if key.start is None else key.start
        hi = size if key.stop is None else key.stop
    elif isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        lo, hi = int(key), int(key) + 1
    else:
        raise IndexError(f"{what}: {key!r}: expected an int or a slice")
    if not (0 <= lo < hi <= size):
        raise IndexError(f"{what}: [{lo}:{hi}] is not a non-empty range inside 0..{size} (no negative or past-the-end indices)")
    return lo, hi - lo


_NAME = __import__("re").compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


def _check_name(name, what):
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"{what} name {name!r}: letters, digits, '_', '.' and '-' only (it names a file of the run)")
    return name


def _check_quadrant(t, what="activation"):
    """ACT's (and VectorE's) lanes come in quadrants of 32 partitions: more than 64 active start
    at 0, more than 32 at 0 or 64, others at a multiple of 32 (the engine refuses anything else)."""
    n, p0 = t.partitions, t.p0
    ok = p0 == 0 if n > 64 else p0 in (0, 64) if n > 32 else p0 % 32 == 0
    if not ok:
        where = "0" if n > 64 else "0 or 64" if n > 32 else "0, 32, 64 or 96"
        raise ValueError(f"{what} over partitions {p0}..{p0 + n - 1}: {n} active partitions start at {where}")


def _f32_field(v):
    """A float operand as its binary32 bit pattern (exact in the trace)."""
    return "0x%08x" % int(np.float32(v).view(np.uint32))


class DramTensor:
    """A 2-D tensor (rows x cols) in DRAM. t[r0:r1] or t[r0:r1, c0:c1] is a region a DMA copies."""

    def __init__(self, name, shape, dtype, addr):
        self.name, self.shape, self.dtype, self.addr = name, tuple(shape), dtype, addr
        self.pitch = self.shape[1] * DTYPES[dtype]

    def __getitem__(self, key):
        rows, cols = key if isinstance(key, tuple) else (key, slice(None))
        r0, nr = _range(rows, self.shape[0], f"{self.name} rows")
        c0, nc = _range(cols, self.shape[1], f"{self.name} columns")
        return _DramRegion(self, r0, nr, c0, nc)

    def region(self):
        return self[:, :]


class CptcWeights:
    """Values quantised to CPTC-K streams in DRAM (Kernel.cptc_input): `tensor` holds one
    partition's stream per row (uint8, `stream_bytes` per row); w[rows] is a region of it for
    dma_copy. `out_dtype` is what the routed decode kernel stores, `cols` values per row,
    `expected` what it stores (as decode() gives it), `kernel` the routed cptc_decode_impl<N>."""

    def __init__(self, tensor, info, cols):
        self.tensor, self.cols = tensor, cols
        self.out_dtype, self.fields, self.kernel = info["out_dtype"], info["fields"], info["kernel"]
        self.stream_bytes = tensor.shape[1]
        self.expected = decode(info["decoded"].reshape(-1), self.out_dtype).reshape(tensor.shape[0], cols)

    @property
    def shape(self):
        return self.tensor.shape

    def __getitem__(self, key):
        return self.tensor[key]


class _DramRegion:
    def __init__(self, t, r0, rows, c0, cols):
        self.tensor, self.r0, self.rows, self.c0, self.cols = t, r0, rows, c0, cols
        self.dtype = t.dtype

    @property
    def addr(self):
        return self.tensor.addr + self.r0 * self.tensor.pitch + self.c0 * DTYPES[self.dtype]

    def spans(self):
        """(space, partition, start, end) byte ranges: one per row in DRAM (space 'dram', partition 0)."""
        es = DTYPES[self.dtype]
        return [("dram", 0, self.addr + r * self.tensor.pitch, self.addr + r * self.tensor.pitch + self.cols * es) for r in range(self.rows)]


class Tile:
    """A tile in SBUF or PSUM: `partitions` rows starting at partition p0, `cols` elements each
    at byte `offset` of every partition. t[p0:p1, c0:c1] is a sub-tile (same offset rules)."""

    def __init__(self, name, space, p0, partitions, offset, cols, dtype):
        self.name, self.space, self.p0, self.partitions, self.offset, self.cols, self.dtype = name, space, p0, partitions, offset, cols, dtype

    @property
    def shape(self):
        return (self.partitions, self.cols)

    def __getitem__(self, key):
        rows, cols = key if isinstance(key, tuple) else (key, slice(None))
        r0, nr = _range(rows, self.partitions, f"{self.name} partitions")
        c0, nc = _range(cols, self.cols, f"{self.name} columns")
        return Tile(self.name, self.space, self.p0 + r0, nr, self.offset + c0 * DTYPES[self.dtype], nc, self.dtype)

    def location(self):
        return f"{self.space}:{self.p0}:0x{self.offset:x}"

    def spans(self):
        n = self.cols * DTYPES[self.dtype]
        return [(self.space, p, self.offset, self.offset + n) for p in range(self.p0, self.p0 + self.partitions)]


class _Spans:
    """An operation's byte ranges per (space, partition), with a bounding box per space so that
    most pairs are told apart without looking at their ranges."""

    def __init__(self, spans):
        self.index, self.box = {}, {}
        for s, p, lo, hi in spans:
            self.index.setdefault((s, p), []).append((lo, hi))
            b = self.box.get(s)
            self.box[s] = (p, p, lo, hi) if b is None else (min(b[0], p), max(b[1], p), min(b[2], lo), max(b[3], hi))

    def __bool__(self):
        return bool(self.index)


def _overlap(a, b):
    """True when two _Spans share a byte (same space and partition)."""
    for s, (p0, p1, lo, hi) in a.box.items():
        q = b.box.get(s)
        if q is not None and p0 <= q[1] and q[0] <= p1 and lo < q[3] and q[2] < hi:
            break
    else:
        return False
    small, large = (a, b) if len(a.index) <= len(b.index) else (b, a)
    for key, ranges in small.index.items():
        for alo, ahi in large.index.get(key, ()):
            for lo, hi in ranges:
                if lo < ahi and alo < hi:
                    return True
    return False


class _Op:
    def __init__(self, stream, text, reads, writes, where):
        self.stream, self.text, self.where = stream, text, where
        self.reads, self.writes = _Spans(reads), _Spans(writes)
        self.waits = {}  # stream -> the producer _Op it waits for (the latest of that stream)
        self.count = None  # its number among its stream's producers (set when one is waited on)
        self.seq = 0  # its position in the kernel
        self.known = {}  # stream -> seq of its latest operation known complete when this one issues


class Kernel:
    """Builds a trace: DRAM tensors, SBUF/PSUM tiles, and the operations between them."""

    def __init__(self, name="kernel", gen=None):
        self.name = _check_name(name, "kernel")
        self.gen = gen  # run()'s generation when it names none
        self.memory = _core.memory(gen or "")
        self._files = set()
        self._dram_next = 0
        self._dram = {}
        self._data = []  # (.data line, file name, bytes)
        self._dumps = []  # (name, .dump line, file, dtype, shape)
        self._tiles = {}
        self._next = {"sbuf": 0, "psum": 0}
        self._ops = []
        self._resident_set = None
        self._sets = {f["name"]: f["sets"] for f in _core.catalog()}
        self._roster = list(_core.trainium_sets())

    # --- memory ---------------------------------------------------------------------------
    def _file(self, file):
        if file in self._files:
            raise ValueError(f"file {file}: two of the kernel's tensors would write it (choose other names)")
        self._files.add(file)
        return file

    def _dram_tensor(self, name, shape, dtype):
        _check_name(name, "DRAM tensor")
        if name in self._dram:
            raise ValueError(f"DRAM tensor '{name}' exists already")
        if dtype not in DTYPES:
            raise ValueError(f"dtype '{dtype}': expected one of {', '.join(DTYPES)}")
        shape = tuple(int(s) for s in shape)
        if len(shape) != 2 or min(shape) < 1:
            raise ValueError(f"DRAM tensor '{name}': shape {shape}: expected (rows, cols), both at least 1")
        t = DramTensor(name, shape, dtype, self._dram_next)
        size = shape[0] * shape[1] * DTYPES[dtype]
        self._dram_next += -(-size // 4096) * 4096
        if self._dram_next > self.memory["dram_bytes"] // 2:
            raise ValueError(f"DRAM tensor '{name}': the kernel's tensors need {self._dram_next} bytes, more than half of "
                             f"{self.memory['generation']}'s {self.memory['dram_bytes']} (the rest holds the instruction rings and table sets)")
        self._dram[name] = t
        return t

    def dram_input(self, name, array, dtype=None):
        """A DRAM tensor holding `array` (2-D; float32, or uint16/uint32 bit patterns). dtype: the
        element type in DRAM, default fp32 (bf16 or fp16 round float32 values to nearest even)."""
        a = np.asarray(array)
        if a.ndim == 1:
            a = a.reshape(1, -1)
        dtype = dtype or ("fp32" if a.dtype in (np.float32, np.uint32) else None)
        if dtype is None:
            raise TypeError(f"dram_input '{name}': give dtype= for {a.dtype} data")
        t = self._dram_tensor(name, a.shape, dtype)
        file = self._file(f"{name}.bin")
        self._data.append((f".data dram:0x{t.addr:x} file={file}", file, encode(a, dtype)))
        return t

    def cptc_input(self, name, values, bits=4, out=None, block=64):
        """`values` (rows, cols; float32) quantised to CPTC-`bits` streams in DRAM for the decode
        kernel the routing sends CPTC-K to (docs/cptc-format.md), one row per partition. out:
        what the decode stores (fp16, fp32, int8, uint8; default: the kernel's first). Returns
        CptcWeights: load its rows into a uint8 SBUF tile of (128, w.stream_bytes), then
        cptc_decode."""
        a = np.asarray(values)
        if a.ndim != 2 or a.dtype != np.float32:
            raise TypeError(f"cptc_input '{name}': expected a 2-D float32 array, got {a.ndim}-D {a.dtype}")
        info = _core.cptc_encode(a, int(bits), "" if out is None else str(out), int(block))
        streams = info["bytes"]
        t = self._dram_tensor(name, streams.shape, "uint8")
        file = self._file(f"{name}.cptc{int(bits)}.bin")
        self._data.append((f".data dram:0x{t.addr:x} file={file}", file, encode(streams, "uint8")))
        return CptcWeights(t, info, a.shape[1])

    def dram_output(self, name, shape, dtype="fp32"):
        """A DRAM tensor whose contents after the run are Result[name] (an array of `shape`)."""
        t = self._dram_tensor(name, shape, dtype)
        file = self._file(f"{name}.bin")
        n = t.shape[0] * t.shape[1] * DTYPES[dtype]
        self._dumps.append((name, f".dump dram:0x{t.addr:x} bytes={n} file={file}", file, dtype, t.shape))
        return t

    def dram(self, name, shape, dtype="fp32"):
        """A DRAM scratch tensor (neither loaded nor dumped)."""
        return self._dram_tensor(name, shape, dtype)

    def _tile(self, space, shape, dtype, name, init):
        shape = tuple(int(s) for s in shape)
        if len(shape) != 2 or not (1 <= shape[0] <= self.memory["partitions"]) or shape[1] < 1:
            raise ValueError(f"tile {name or ''} {shape}: expected (partitions 1..{self.memory['partitions']}, cols >= 1)")
        if dtype not in DTYPES:
            raise ValueError(f"dtype '{dtype}': expected one of {', '.join(DTYPES)}")
        if name is not None and name in self._tiles:
            t = self._tiles[name]
            if (t.space, t.shape, t.dtype) != (space, shape, dtype):
                raise ValueError(f"tile '{name}' is {t.space} {t.shape} {t.dtype}, not {space} {shape} {dtype}")
            if init is not None:
                raise ValueError(f"tile '{name}' exists already: init= fills a tile only where it is made")
            return t
        if name is not None:
            _check_name(name, "tile")
        name = name or f"{space}{len(self._tiles)}"
        off = self._next[space]
        size = shape[1] * DTYPES[dtype]
        limit = self.memory["sbuf_bytes_per_partition" if space == "sbuf" else "psum_bytes_per_partition"]
        if off + size > limit:
            raise ValueError(f"tile '{name}': {size} bytes per partition at offset {off} pass {self.memory['generation']}'s "
                             f"{limit} bytes of {space.upper()} per partition")
        self._next[space] = off + -(-size // _ALIGN) * _ALIGN
        t = Tile(name, space, 0, shape[0], off, shape[1], dtype)
        self._tiles[name] = t
        if init is not None:
            a = np.asarray(init)
            if a.shape != shape:
                raise ValueError(f"tile '{name}': init has shape {a.shape}, expected {shape}")
            file = self._file(f"{name}.init.bin")
            self._data.append((f".data {t.location()} partitions={shape[0]} file={file}", file, encode(a, dtype)))
        return t

    def sbuf(self, shape, dtype="fp32", name=None, init=None):
        """An SBUF tile (partitions, cols); `init`: its contents before the run (an array of shape)."""
        return self._tile("sbuf", shape, dtype, name, init)

    def psum(self, shape, dtype="fp32", name=None, init=None):
        """A PSUM tile (partitions, cols)."""
        return self._tile("psum", shape, dtype, name, init)

    def row_tiles(self, rows, partitions=None):
        """The row ranges (slices) of 128-row (or `partitions`-row) tiles covering `rows`."""
        p = partitions or self.memory["partitions"]
        return [slice(r, min(r + p, rows)) for r in range(0, rows, p)]

    # --- operations -----------------------------------------------------------------------
    def _where(self):
        return f"operation {len(self._ops)}"

    def _add(self, stream, text, reads, writes):
        op = _Op(stream, text, reads, writes, self._where())
        op.seq = len(self._ops)
        # The latest conflicting operation of each stream (earlier ones are implied by it).
        # An engine's own later instructions are ordered by the engine, except a DMA queue's.
        needed = {}
        for prev in reversed(self._ops):
            if prev.stream in needed:
                continue
            if prev.stream == stream and not stream.startswith("dma"):
                continue
            if (prev.writes and (_overlap(prev.writes, op.reads) or _overlap(prev.writes, op.writes))) or (
                    prev.reads and _overlap(prev.reads, op.writes)):
                needed[prev.stream] = prev
        # What is known complete when op issues: what its stream's previous operation knew (a
        # stream issues in order), and through each wait, the producer and all it knew. A wait
        # that is already known is left out (a stream completes in program order).
        same = next((p for p in reversed(self._ops) if p.stream == stream), None)
        known = dict(same.known) if same is not None else {}
        for prev in sorted(needed.values(), key=lambda p: -p.seq):
            if known.get(prev.stream, -1) >= prev.seq:
                continue
            op.waits[prev.stream] = prev
            for s, q in prev.known.items():
                known[s] = max(known.get(s, -1), q)
            known[prev.stream] = max(known.get(prev.stream, -1), prev.seq)
        op.known = known
        self._ops.append(op)
        return op

    def dma_copy(self, dst, src, queue=None):
        """Copies src to dst: DRAM rows to a tile's partitions, a tile to DRAM rows, or tile to tile.
        Both sides have the same rows x cols and dtype. queue: "dma.Q" or "dmaE.Q" (default: loads
        dma.0, stores dma.1, others dma.2)."""
        if isinstance(src, DramTensor):
            src = src.region()
        if isinstance(dst, DramTensor):
            dst = dst.region()
        rows = src.rows if isinstance(src, _DramRegion) else src.partitions
        drows = dst.rows if isinstance(dst, _DramRegion) else dst.partitions
        if (rows, src.cols, src.dtype) != (drows, dst.cols, dst.dtype):
            raise ValueError(f"dma_copy: source {rows}x{src.cols} {src.dtype} and destination {drows}x{dst.cols} {dst.dtype} differ")
        if isinstance(src, _DramRegion) and isinstance(dst, _DramRegion):
            raise ValueError("dma_copy: DRAM to DRAM is not a tile copy (stage it through SBUF)")
        queue = queue or ("dma.0" if isinstance(src, _DramRegion) else "dma.1" if isinstance(dst, _DramRegion) else "dma.2")
        if not _QUEUE.match(queue):
            raise ValueError(f"queue {queue!r}: expected dma.Q, dmaE.Q (or dmaE), act or pool")
        nbytes = src.cols * DTYPES[src.dtype]
        f = [f"src={src.location() if isinstance(src, Tile) else 'dram:0x%x' % src.addr}",
             f"dst={dst.location() if isinstance(dst, Tile) else 'dram:0x%x' % dst.addr}", f"partitions={rows}", f"bytes={nbytes}"]
        if isinstance(src, _DramRegion):
            f.append(f"src_stride={src.tensor.pitch}")
        if isinstance(dst, _DramRegion):
            f.append(f"dst_stride={dst.tensor.pitch}")
        return self._add(queue, f"copy {' '.join(f)}", src.spans(), dst.spans())

    def _ensure_set(self, func, set_name):
        if func not in self._sets:
            raise ValueError(f"activation func '{func}': not a catalog function (neuronsim.act.functions() lists them)")
        if set_name is not None:
            if set_name not in self._roster:
                raise ValueError(f"set '{set_name}': not a built-in trainium set (its sets: {', '.join(self._roster)})")
            if set_name not in self._sets[func]:
                raise ValueError(f"set '{set_name}' does not hold {func} (sets that do: {', '.join(self._sets[func]) or 'none'})")
        if set_name is None:
            if self._resident_set is not None and self._resident_set in self._sets.get(func, []):
                return
            i = _core.first_set_covering([func])
            if i < 0:
                raise ValueError(f"activation func '{func}': no built-in trainium set holds it (neuronsim.act.functions() lists them)")
            set_name = self._roster[i]
        if set_name != self._resident_set:
            self._add("act", f"load_act_func_set set={set_name}", [], [])
            self._resident_set = set_name

    def _operand(self, name, v, reads, src_field, pointer, immediate, src):
        """A float operand: a number (immediate, as bits), or a (partitions, 1) fp32 tile read per partition."""
        if isinstance(v, Tile):
            if v.dtype != "fp32" or v.cols != 1:
                raise ValueError(f"{name}: a per-partition operand is a (partitions, 1) fp32 tile, not {v.shape} {v.dtype}")
            if (v.p0, v.partitions) != (src.p0, src.partitions):
                raise ValueError(f"{name}: the tile covers partitions {v.p0}..{v.p0 + v.partitions - 1}, the activation "
                                 f"{src.p0}..{src.p0 + src.partitions - 1}: the engine reads one value per active partition")
            reads += v.spans()
            return [f"{src_field}={pointer}", f"{name}={v.location()}"]
        return [f"{src_field}={immediate}", f"{name}={_f32_field(v)}"]

    def activation(self, dst, src, func, scale=1.0, bias=0.0, accumulate=None, set=None):
        """dst = func(src * scale + bias) on ACT. scale, bias: numbers, or (partitions, 1) fp32
        tiles (per partition). accumulate: None, or an accumulator command ("zero_accumulate"
        starts a row sum, "accumulate" adds to it): read it with read_accumulator. set: the table
        set to use (default: the resident one if it holds func, else the first that does)."""
        if src.partitions != dst.partitions or src.p0 != dst.p0 or src.cols != dst.cols:
            raise ValueError(f"activation: src {src.shape} at partition {src.p0} and dst {dst.shape} at {dst.p0} differ")
        _check_quadrant(src)
        if src.cols > 65535:
            raise ValueError(f"activation: {src.cols} elements per partition; at most 65535 in one instruction (split the tile)")
        func = str(func).lower()
        self._ensure_set(func, set)
        reads = list(src.spans())
        f = [f"func={func}", f"in_bias_dtype={src.dtype}:fp32", f"out_dtype={dst.dtype}", f"num_active_channels={src.partitions}"]
        f += self._operand("scale", scale, reads, "scale_src", "pointer", "immediate", src)
        f += self._operand("bias", bias, reads, "bias_src_n", "pointer", "immediate", src)
        if accumulate is not None and accumulate not in _ACCUMULATOR_CMDS:
            raise ValueError(f"accumulate {accumulate!r}: expected None or one of {', '.join(_ACCUMULATOR_CMDS)}")
        if accumulate is not None:
            f.append(f"accumulator_cmd={accumulate}")
        f += [f"src={src.location()}", "src.step=1,0,0", f"src.num={src.cols},1,1", f"dst={dst.location()}", "dst.step=1,0,0", f"dst.num={dst.cols},1,1"]
        return self._add("act", f"activate {' '.join(f)}", reads, dst.spans())

    def cptc_decode(self, dst, src, weights):
        """dst = the decode of the CPTC streams in `src` on GPSIMD (conv_lut_load, the routed
        cptc_decode_impl<N>): src a (128, weights.stream_bytes) uint8 SBUF tile holding rows of
        `weights`, dst a (128, weights.cols) SBUF tile of weights.out_dtype. The generation must
        stage the CPTC library (MARIANA and later with run(..., overrides={"gpsimd.cptc_flag": True}))."""
        if not isinstance(weights, CptcWeights):
            raise TypeError("cptc_decode: weights must be the CptcWeights of cptc_input")
        full = self.memory["partitions"]
        for t, what, cols, dtype in ((src, "src", weights.stream_bytes, "uint8"), (dst, "dst", weights.cols, weights.out_dtype)):
            if not isinstance(t, Tile) or t.space != "sbuf":
                raise ValueError(f"cptc_decode: {what} must be an SBUF tile (GPSIMD reaches SBUF only)")
            if (t.p0, t.partitions, t.cols, t.dtype) != (0, full, cols, dtype):
                raise ValueError(f"cptc_decode: {what} is {t.shape} {t.dtype} at partition {t.p0}; the decode runs on all {full} partitions: "
                                 f"expected ({full}, {cols}) {dtype} at partition 0")
        return self._add("pool", f"conv_lut_load {weights.fields} src={src.location()} dst={dst.location()}", src.spans(), dst.spans())

    def read_accumulator(self, dst):
        """dst (a (partitions, 1) fp32 tile) = ACT's per-partition accumulator."""
        if dst.cols != 1 or dst.dtype != "fp32":
            raise ValueError(f"read_accumulator: dst is a (partitions, 1) fp32 tile, not {dst.shape} {dst.dtype}")
        _check_quadrant(dst)
        return self._add("act", f"read_accumulator count=1 dtype=fp32 num_active_channels={dst.partitions} dst={dst.location()} dst.num=1",
                         [], dst.spans())

    def activation_reduce(self, dst, src, func, reduce_dst, scale=1.0, bias=0.0, set=None):
        """dst = func(src * scale + bias) and reduce_dst = its sum along each partition's row."""
        self.activation(dst, src, func, scale=scale, bias=bias, accumulate="zero_accumulate", set=set)
        return self.read_accumulator(reduce_dst)

    # --- VectorE (docs/vector-engine.md) and TensorE (docs/tensor-engine.md) -------------------
    def _dve_tiles(self, what, dst, srcs, same_cols=True):
        for t in (dst, *srcs):
            if not isinstance(t, Tile):
                raise TypeError(f"{what}: operands are SBUF or PSUM tiles, not {type(t).__name__}")
            if t.dtype not in _COMPUTE_DTYPES:
                raise ValueError(f"{what}: tile '{t.name}' is {t.dtype}; VectorE here takes {', '.join(_COMPUTE_DTYPES)}")
            if (t.p0, t.partitions) != (dst.p0, dst.partitions):
                raise ValueError(f"{what}: tile '{t.name}' covers partitions {t.p0}..{t.p0 + t.partitions - 1}, dst "
                                 f"{dst.p0}..{dst.p0 + dst.partitions - 1}: every operand is on the same partitions")
            if same_cols and t.cols != dst.cols:
                raise ValueError(f"{what}: tile '{t.name}' has {t.cols} elements per partition, dst {dst.cols}")
        _check_quadrant(dst, what)

    @staticmethod
    def _ap(key, t):
        return [f"{key}={t.location()}", f"{key}.num={t.cols},1", f"{key}.step=1,0"]

    def _dve(self, mnemonic, head, aps, dst, reads):
        f = list(head)
        for key, t in aps:
            f += self._ap(key, t)
        f.append(f"num_active_channels={dst.partitions}")
        return self._add("dve", f"{mnemonic} {' '.join(f)}", reads, dst.spans())

    def _dve_op(self, op):
        if op not in _DVE_OPS:
            raise ValueError(f"op {op!r}: expected one of {', '.join(_DVE_OPS)}")
        return _DVE_OPS[op]

    def tensor_tensor(self, dst, a, b, op):
        """dst = a op b elementwise on VectorE (op: add, subtract, multiply, max, min, divide), in
        binary32, rounded once to dst's dtype. Tiles in SBUF or PSUM on the same partitions."""
        self._dve_tiles("tensor_tensor", dst, (a, b))
        return self._dve("tensor_tensor", [f"op={self._dve_op(op)}", f"in0_dtype={a.dtype}", f"in1_dtype={b.dtype}", f"out_dtype={dst.dtype}"],
                         (("src0", a), ("src1", b), ("dst", dst)), dst, a.spans() + b.spans())

    def tensor_scalar(self, dst, src, op, operand, op1=None, operand1=None):
        """dst = (src op operand) op1 operand1 on VectorE; an operand is a number or a (partitions,
        1) fp32 tile (one value per partition). Without op1 one step."""
        self._dve_tiles("tensor_scalar", dst, (src,))
        reads = list(src.spans())
        head = [f"op0={self._dve_op(op)}", f"op1={'bypass' if op1 is None else self._dve_op(op1)}", f"in_dtype={src.dtype}", f"out_dtype={dst.dtype}"]
        pointer = False
        for i, (o, v) in enumerate(((op, operand), (op1, operand1))):
            if o is None:
                if v is not None:
                    raise ValueError("tensor_scalar: operand1 without op1")
                continue
            if isinstance(v, Tile):
                if v.dtype != "fp32" or v.cols != 1 or (v.p0, v.partitions) != (src.p0, src.partitions):
                    raise ValueError(f"tensor_scalar: operand{i} is a (partitions, 1) fp32 tile on src's partitions, not {v.shape} {v.dtype} "
                                     f"at partition {v.p0}")
                head += [f"operand{i}_src=pointer", f"operand{i}={v.location()}"]
                reads += v.spans()
                pointer = True
            elif isinstance(v, (int, float, np.floating, np.integer)):
                head.append(f"imm{i}={_f32_field(float(v))}")
            else:
                raise TypeError(f"tensor_scalar: operand{i} is a number or a tile, not {type(v).__name__}")
        if pointer:
            head.append("operand_dtype=fp32")
        return self._dve("tensor_scalar", head, (("src", src), ("dst", dst)), dst, reads)

    def tensor_reduce(self, dst, src, op="add", negate=False):
        """dst (partitions, 1) = the sum, max or min (op: add, max, min) of each partition's row of
        src, in element order from the first element, negated when `negate`, on VectorE."""
        self._dve_tiles("tensor_reduce", dst, (src,), same_cols=False)
        if dst.cols != 1:
            raise ValueError(f"tensor_reduce: dst is a (partitions, 1) tile, not {dst.shape}")
        if op not in ("add", "max", "min"):
            raise ValueError(f"tensor_reduce: op {op!r}: expected add, max or min")
        head = [f"reduce_op={op}", f"negate={1 if negate else 0}", f"in_dtype={src.dtype}", f"out_dtype={dst.dtype}"]
        return self._dve("tensor_reduce", head, (("src", src), ("dst", dst)), dst, src.spans())

    def tensor_copy(self, dst, src):
        """dst = src on VectorE, converted between the tiles' dtypes (e.g. a matmul's fp32 PSUM
        result into a bf16 SBUF tile)."""
        self._dve_tiles("tensor_copy", dst, (src,))
        return self._dve("tensor_copy", [f"in_dtype={src.dtype}", f"out_dtype={dst.dtype}"], (("src", src), ("dst", dst)), dst, src.spans())

    def reciprocal(self, dst, src):
        """dst = 1 / src (the IEEE division) on VectorE."""
        self._dve_tiles("reciprocal", dst, (src,))
        return self._dve("reciprocal", [f"in_dtype={src.dtype}", f"out_dtype={dst.dtype}"], (("src", src), ("dst", dst)), dst, src.spans())

    def bn_stats(self, dst, src):
        """dst (partitions, 6) = (count, mean, variance x count) of src's even-indexed elements,
        then of its odd-indexed ones, per partition, on VectorE (src at most 512 elements; the
        arithmetic: docs/vector-engine.md)."""
        self._dve_tiles("bn_stats", dst, (src,), same_cols=False)
        if dst.cols != 6 or src.cols > 512:
            raise ValueError(f"bn_stats: src {src.shape} (at most 512 elements per partition), dst {dst.shape}: expected (partitions, 6)")
        return self._dve("bn_stats", [f"in_dtype={src.dtype}", f"out_dtype={dst.dtype}"], (("src", src), ("dst", dst)), dst, src.spans())

    def bn_aggr(self, dst, src):
        """dst (partitions, 2) = (mean, variance) of the (count, mean, M2) triples of src (one or
        more bn_stats outputs side by side), on VectorE."""
        self._dve_tiles("bn_aggr", dst, (src,), same_cols=False)
        if dst.cols != 2 or src.cols % 3:
            raise ValueError(f"bn_aggr: src {src.shape} (a multiple of 3 elements), dst {dst.shape}: expected (partitions, 2)")
        return self._dve("bn_aggr", [f"in_dtype={src.dtype}", f"out_dtype={dst.dtype}"], (("src", src), ("dst", dst)), dst, src.spans())

    def matmul(self, dst, stationary, moving, start=True):
        """dst (+)= stationary^T x moving on TensorE: stationary (K, M) and moving (K, N) SBUF tiles
        of one dtype on the same K <= 128 partitions, M <= 128, N <= 512; dst an fp32 PSUM tile
        (M, N) inside one PSUM bank. start=True begins an accumulation group (the bank from +0);
        start=False adds to what dst holds. Emits the load_stationary and the matmul."""
        for t, what in ((stationary, "stationary"), (moving, "moving"), (dst, "dst")):
            if not isinstance(t, Tile):
                raise TypeError(f"matmul: {what} is a tile, not {type(t).__name__}")
        if stationary.space != "sbuf" or moving.space != "sbuf":
            raise ValueError("matmul: the stationary and moving tiles are in SBUF")
        if dst.space != "psum" or dst.dtype != "fp32":
            raise ValueError(f"matmul: dst is an fp32 PSUM tile, not {dst.space} {dst.dtype}")
        if stationary.dtype != moving.dtype or stationary.dtype not in _COMPUTE_DTYPES:
            raise ValueError(f"matmul: stationary {stationary.dtype} and moving {moving.dtype}: one dtype of {', '.join(_COMPUTE_DTYPES)}")
        k, m, n = stationary.partitions, stationary.cols, moving.cols
        if (moving.p0, moving.partitions) != (stationary.p0, k):
            raise ValueError(f"matmul: moving covers partitions {moving.p0}..{moving.p0 + moving.partitions - 1}, stationary "
                             f"{stationary.p0}..{stationary.p0 + k - 1}: a matmul contracts the same partitions")
        if m > 128 or n > 512:
            raise ValueError(f"matmul: stationary {stationary.shape}, moving {moving.shape}: M is at most 128, N at most 512")
        if dst.shape != (m, n):
            raise ValueError(f"matmul: dst is {dst.shape}, expected (M, N) = ({m}, {n})")
        bank = self.memory["psum_bank_bytes"]
        if dst.offset // bank != (dst.offset + 4 * n - 1) // bank:
            raise ValueError(f"matmul: dst bytes {dst.offset}..{dst.offset + 4 * n - 1} cross a {bank}-byte PSUM bank boundary; a matmul writes one bank")
        d = stationary.dtype
        self._add("pe", f"load_stationary in_dtype={d} num_active_channels={k} " + " ".join(self._ap("src", stationary)), stationary.spans(), [])
        f = [f"in_dtype={d}", f"num_active_channels={k}", f"start={1 if start else 0}"] + self._ap("moving", moving) + self._ap("dst", dst)
        return self._add("pe", f"matmul {' '.join(f)}", moving.spans() + ([] if start else dst.spans()), dst.spans())

    # --- output ---------------------------------------------------------------------------
    def outputs(self):
        """{output name: (dump file, dtype, shape)}."""
        return {name: (file, dtype, shape) for name, _, file, dtype, shape in self._dumps}

    def trace_text(self):
        """The trace, with the semaphores the dependencies need. (The .data files are written by write().)"""
        streams = []
        for op in self._ops:
            if op.stream not in streams:
                streams.append(op.stream)
        sem = {s: i for i, s in enumerate(streams)}
        if len(sem) > 256:
            raise ValueError(f"the kernel uses {len(sem)} streams; the device has 256 semaphores")
        produced = {s: 0 for s in streams}
        producers = {id(p) for op in self._ops for p in op.waits.values()}
        for op in self._ops:  # producers are numbered in program order on their stream
            if id(op) in producers:
                produced[op.stream] += 1
                op.count = produced[op.stream]
        lines = [f"# {self.name}: written by neuronsim.Kernel (Python); semaphore i counts the completed producers of stream i:",
                 "# " + ", ".join(f"{i} {s}" for s, i in sem.items())]
        for line, _, _ in self._data:
            lines.append(line)
        lines.append("")
        for op in self._ops:
            waits = [f"wait={sem[s]}>={p.count}" for s, p in op.waits.items()]
            for w in waits[1:]:
                lines.append(f"{op.stream} sync {w}")
            words = [op.stream, op.text] + waits[:1]
            if op.count is not None:
                words.append(f"update={sem[op.stream]}+1")
            lines.append(" ".join(words))
        lines.append("")
        for _, line, _, _, _ in self._dumps:
            lines.append(line)
        return "\n".join(lines) + "\n"

    def write(self, directory):
        """Writes DIRECTORY/<name>.trace and its .data files; returns the trace's path."""
        os.makedirs(directory, exist_ok=True)
        for _, file, data in self._data:
            with open(os.path.join(directory, file), "wb") as f:
                f.write(data)
        path = os.path.join(directory, f"{self.name}.trace")
        with open(path, "w") as f:
            f.write(self.trace_text())
        return path
