"""Runs on the simulated NeuronCore, in this process, and their results as Python values."""
import csv
import json
import os
import tempfile
import warnings

import numpy as np

from . import _core
from ._messages import HazardError, HazardWarning, deliver

__all__ = ["run", "Result", "Stats", "generations", "config_yaml"]


def generations():
    """The generation presets: sunda, cayman, mariana, mariana_plus, maverick."""
    return list(_core.generations())


class Stats(dict):
    """stats.json as a dict whose keys are also attributes: r.stats.core.act.busy_ps."""

    def __init__(self, d):
        super().__init__({k: Stats(v) if isinstance(v, dict) else v for k, v in d.items()})

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"stats has no '{name}' (it has: {', '.join(self)})") from None


def _overrides(overrides):
    if overrides is None:
        return []
    if isinstance(overrides, dict):
        out = []
        for k, v in overrides.items():
            out.append(f"{k}={'true' if v is True else 'false' if v is False else v}")
        return out
    return [str(o) for o in overrides]


def _flatten(prefix, d, out):
    for k, v in d.items():
        key = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, dict):
            _flatten(key, v, out)
        else:
            out[key] = v
    return out


def config_yaml(gen=None, config=None, overrides=None):
    """The resolved configuration as `neuronsim config show` prints it (YAML text)."""
    overlays, extra = _config_layers(config)
    return _core.config_yaml(gen or "", overlays, extra + _overrides(overrides))


def _config_layers(config):
    """--config overlays (paths) and the overrides a dict config stands for."""
    if config is None:
        return [], []
    if isinstance(config, dict):
        return [], _overrides(_flatten("", config, {}))
    if isinstance(config, (str, os.PathLike)):
        return [os.fspath(config)], []
    return [os.fspath(c) for c in config], []


def _read_table(path):
    """instructions.csv as a pandas DataFrame when pandas is installed, else a numpy record array."""
    try:
        import pandas
    except ImportError:
        pandas = None
    if pandas is not None:
        return pandas.read_csv(path, keep_default_na=False, na_values=[], dtype={"stall_cause": str, "released_by": str, "source": str, "function": str})
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    cols = []
    for j, name in enumerate(header):
        vals = [r[j] for r in body]
        for kind in (int, float):
            try:
                cols.append(np.array([kind(v) for v in vals]))
                break
            except ValueError:
                continue
        else:
            cols.append(np.array(vals, dtype=object))
    return np.rec.fromarrays(cols, names=header) if body else np.rec.fromarrays([np.array([])] * len(header), names=header)


class Result:
    """A finished run: its directory and what is in it.

    out_dir       the run directory (a temporary one, removed with this object, unless run(out=))
    stats         stats.json (Stats: keys as attributes); docs/stats-schema.md
    instructions  instructions.csv (DataFrame with pandas, else a numpy record array)
    timeline      the path of timeline.json (Chrome/Perfetto), or None
    simulated_ns  the device's busy window
    dumps         {file name: path} of the trace's .dump outputs
    r[name]       a Kernel's output as an array of its shape and dtype (bf16 as float32)
    dump(name, dtype)  any dump as a flat array of dtype
    hazards       the hazards found (docs/hazards.md), each a dict: kind, first and second (engine,
                  index, mnemonic, issue_ns, end_ns; first is None for an unwritten read), memory,
                  partitions and bytes as [first, end) pairs, text (the line, with trace lines)
    """

    def __init__(self, out_dir, info, outputs, tmp):
        self._tmp = tmp
        self.out_dir = out_dir
        self.generation = info["generation"]
        self.simulated_ns = info["simulated_ns"]
        self.instruction_count = info["instructions"]
        self.wall_seconds = info["wall_seconds"]
        with open(os.path.join(out_dir, "stats.json")) as f:
            self.stats = Stats(json.load(f))
        csv_path = os.path.join(out_dir, "instructions.csv")
        self._csv = csv_path if os.path.exists(csv_path) else None
        self._instructions = None
        tl = os.path.join(out_dir, "timeline.json")
        self.timeline = tl if os.path.exists(tl) else None
        self.dumps = {d: os.path.join(out_dir, d) for d in info["dumps"]}
        self.hazards = list(info["hazards"])
        self._outputs = outputs

    @property
    def instructions(self):
        if self._csv is None:
            raise _core.Error(f"{self.out_dir}: no instructions.csv (the run was made with csv=False)")
        if self._instructions is None:
            self._instructions = _read_table(self._csv)
        return self._instructions

    def dump(self, name, dtype=np.uint8):
        if name not in self.dumps:
            raise KeyError(f"no dump '{name}' (the run wrote: {', '.join(self.dumps) or 'none'}; numerics='none' writes none)")
        return np.fromfile(self.dumps[name], dtype=dtype)

    def __getitem__(self, name):
        if name not in self._outputs:
            raise KeyError(f"no kernel output '{name}' (outputs: {', '.join(self._outputs) or 'none'}; other dumps: r.dump(file, dtype))")
        file, dtype, shape = self._outputs[name]
        from .kernel import decode
        return decode(self.dump(file, np.uint8), dtype).reshape(shape)

    def __repr__(self):
        return f"<neuronsim.Result {self.generation} {self.simulated_ns:.1f} ns, {self.instruction_count} instructions, {self.out_dir}>"


def _safe_relative(ref):
    """An inputs= key: a relative path inside the staging directory, no "..", not absolute."""
    parts = ref.replace("\\", "/").split("/")
    if os.path.isabs(ref) or ".." in parts or not ref:
        raise _core.Error(f"inputs: '{ref}': give the file name the trace's .data line uses, relative and without '..' "
                          f"(the array is written into the run directory, never elsewhere)")
    return ref


def _trace_file(trace):
    """(path, text) of a trace given as a path; refused unless a regular file, as the CLI does."""
    p = os.fspath(trace)
    if not os.path.isfile(p):
        raise _core.Error(f"{p}: not a regular trace file" if os.path.exists(p) else f"{p}: no such trace file")
    with open(p) as f:
        return p, f.read()


def _stage_trace(trace, inputs, stage):
    """The trace file to run. A trace file without inputs= runs as it is (its errors and stats
    name it, as the CLI's do). Otherwise a copy in `stage` with each `.data file=` given in
    `inputs` written there and every other relative file reference made absolute."""
    is_text = isinstance(trace, str) and "\n" in trace
    if not is_text and not isinstance(trace, (str, os.PathLike)):
        raise _core.Error(f"run: {trace!r} is neither a trace file, trace text (with newlines) nor a Kernel")
    if not is_text and not inputs:
        return _trace_file(trace)[0]
    if is_text:
        text, base, name = trace, None, "trace.trace"
    else:
        src, text = _trace_file(trace)
        base, name = os.path.dirname(os.path.abspath(src)), os.path.basename(src)
    os.makedirs(stage, exist_ok=True)
    inputs = {_safe_relative(k): v for k, v in (inputs or {}).items()}
    lines = []
    for line in text.splitlines():
        words = line.split()
        if words and words[0] == ".data":
            for i, w in enumerate(words):
                if w.startswith("file="):
                    ref = w[5:]
                    if ref in inputs:
                        path = os.path.join(stage, ref)
                        os.makedirs(os.path.dirname(path), exist_ok=True)
                        np.ascontiguousarray(inputs.pop(ref)).tofile(path)
                    elif not os.path.isabs(ref):
                        if base is None:
                            raise _core.Error(f"trace text: .data file={ref}: give it in inputs= (the text has no directory)")
                        words[i] = "file=" + os.path.join(base, ref)
            line = " ".join(words)
        lines.append(line)
    if inputs:
        raise _core.Error(f"inputs: no .data line of the trace names {', '.join(sorted(inputs))}")
    path = os.path.join(stage, name)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def run(trace_or_kernel, gen=None, *, config=None, overrides=None, numerics="full", act_numerics="pwp", inputs=None, out=None, force=False,
        pwp=None, threads=None, cost_model=False, csv=True, timeline=True, uninitialised="zero", hazards="warn"):
    """Runs a trace (a file, or trace text) or a Kernel on one generation and returns a Result.

    gen           sunda, cayman, mariana (default; a Kernel's own gen= if it has one), mariana_plus,
                  maverick, or trn1/inf2/trn2/trn3
    config        a YAML overlay path (or a list of them), or a dict of config keys
                  ({"dma": {"fixed_overhead_ns": 1000}}), applied on the preset
    overrides     {"dotted.key": value} or ["dotted.key=value", ...], after config
    numerics      "full" or "none" (timing only: the same times and stats, no values, no dumps)
    act_numerics  "pwp" (the resident tables) or "exact" (the closed forms)
    inputs        {file name: ndarray}: the bytes of a trace's `.data ... file=NAME` lines
    out           the run directory (default: a temporary one that lives as long as the Result);
                  an earlier run there is replaced only with force=True, as `neuronsim run`
    uninitialised "zero", or "nan": SBUF and PSUM start as 0xff bytes (NaN in every float type),
                  as nki.simulate_kernel's memory, so a read of never-written data shows
    hazards       "warn" (default): races between engines that no semaphore orders and reads of
                  bytes nothing wrote (docs/hazards.md) are each a HazardWarning and listed in
                  Result.hazards; "error": the same, then HazardError (its .result is the run);
                  "off": not looked for
    pwp, threads, cost_model, csv, timeline: as `neuronsim run --pwp/--threads/--cost-model/--no-csv/--no-timeline`
    """
    from .kernel import Kernel
    if threads is not None and (not isinstance(threads, int) or isinstance(threads, bool) or not 0 <= threads <= 1024):
        raise ValueError(f"threads: expected an int 0..1024 (0: all host threads) or None, got {threads!r}")
    if numerics not in ("full", "none"):
        raise ValueError(f"numerics: expected 'full' or 'none', got {numerics!r}")
    if uninitialised not in ("zero", "nan"):
        raise ValueError(f"uninitialised: expected 'zero' or 'nan', got {uninitialised!r}")
    if act_numerics not in ("pwp", "exact"):
        raise ValueError(f"act_numerics: expected 'pwp' or 'exact', got {act_numerics!r}")
    if hazards not in ("warn", "error", "off"):
        raise ValueError(f"hazards: expected 'warn', 'error' or 'off', got {hazards!r}")
    overlays, extra = _config_layers(config)
    tmp = None
    if out is None:
        tmp = tempfile.TemporaryDirectory(prefix="neuronsim-run-")
        out = tmp.name
    out = os.fspath(out)
    _core.prepare_run_directory(out, bool(force))
    stage = os.path.join(out, "inputs")
    try:
        outputs = {}
        if isinstance(trace_or_kernel, Kernel):
            if inputs:
                raise ValueError("inputs= is for traces; a Kernel holds its own inputs")
            trace, outputs = trace_or_kernel.write(stage), trace_or_kernel.outputs()
            gen = gen or trace_or_kernel.gen
        else:
            trace = _stage_trace(trace_or_kernel, inputs, stage)
        info = _core.run_trace(trace, out, gen or "", overlays, extra + _overrides(overrides), numerics, act_numerics, "" if pwp is None else os.fspath(pwp),
                               threads, bool(cost_model), bool(csv), bool(timeline), True, uninitialised, hazards)
    except BaseException as e:
        incomplete = os.path.join(out, "RUN_INCOMPLETE")
        if os.path.exists(incomplete):
            with open(incomplete) as f:
                running = f.read() == "running\n"
            if running:
                with open(incomplete, "w") as f:
                    f.write(f"failed: {e}\n")
        if tmp is not None:
            tmp.cleanup()
        raise
    finally:
        deliver()
    result = Result(out, info, outputs, tmp)
    for h in result.hazards:
        warnings.warn(h["text"], HazardWarning, stacklevel=2)
    if hazards == "error" and result.hazards:
        e = HazardError(f"{len(result.hazards)} hazard{'s' if len(result.hazards) != 1 else ''} (hazards='error'): {result.hazards[0]['text']}"
                        + (f" (and {len(result.hazards) - 1} more: Result.hazards, {out}/hazards.txt)" if len(result.hazards) > 1 else ""))
        e.result = result
        raise e
    return result
