"""Activation functions over numpy arrays, bit-exact with the simulated ACT engine.

Every evaluation path of ``neuronsim act eval`` is here, on the same SIMD batch code and host
threads: the hardware path (a packed set's tables as the table memory holds them; the
default, on the built-in trainium set that holds the function), a per-function profile
(``evaluate_generic``), the reference simulator on a profile directory (name dispatch), and its
closed forms (``exact=True``). Inputs are float32 arrays (any shape) or uint32 arrays of
binary32 bit patterns; the result has the input's shape and kind. Nothing goes through
float64: the bits out are the bits the simulator computes.
"""
import functools
import json
import math
import os

import numpy as np

from . import _core
from ._messages import deliver

__all__ = ["eval", "functions", "sets", "load_profile", "load_set", "generate", "pack", "check", "accuracy", "closed_form", "names"]


def names():
    """The 31 activation names of the reference simulator's dispatch, in its order."""
    return list(_core.act_fn_names())


@functools.lru_cache(maxsize=1)
def _catalog():
    return tuple(_core.catalog())  # built once: eval() consults it on every call


def functions():
    """The built-in catalog's profiles: name, stem, func_id (trainium), sets holding it, domain, ...
    One entry per profile, so a function with two (ln: ln_40p and ln_400p) appears twice; they
    differ by stem."""
    return [dict(f) for f in _catalog()]


def sets(target="trainium"):
    """The names of the built-in sets of `target` (trainium: in roster order, as set=N counts)."""
    if target == "trainium":
        return list(_core.trainium_sets())
    d = os.path.join(_core.catalog_dir(), "pwp_bin_" + target)
    if not os.path.isdir(d):
        raise _core.Error(f"target '{target}': no built-in sets (expected trainium or with_ln)")
    return sorted(f[:-5] for f in os.listdir(d) if f.endswith(".json") and f not in ("act_info.json", "version.json"))


def _as_f32(x, what="x"):
    """(float32 C-contiguous array, True if the caller gave uint32 bits). No value conversion."""
    a = np.asarray(x)
    if a.dtype == np.float32:
        return np.ascontiguousarray(a).reshape(a.shape or (1,)), False
    if a.dtype == np.uint32:
        return np.ascontiguousarray(a).reshape(a.shape or (1,)).view(np.float32), True
    raise TypeError(f"{what}: expected a float32 array or a uint32 array of binary32 bit patterns, got {a.dtype} "
                    f"(convert explicitly, e.g. np.asarray(x, dtype=np.float32), to choose the rounding)")


def _stamp(*paths):
    """What the cached evaluators are keyed on besides their arguments: the size and time of each
    file they read, so a file rewritten in place is read again."""
    out = []
    for p in paths:
        try:
            st = os.stat(p)
            out.append((p, st.st_mtime_ns, st.st_size))
        except OSError:
            out.append((p, None, None))  # absent: the evaluator's own error says so
    return tuple(out)


def _set_files(manifest):
    stem = manifest[:-5] if manifest.endswith(".json") else manifest
    return (manifest, stem + "_bkt.bin", stem + "_ctrl.bin")


def _dir_files(d):
    try:
        return tuple(sorted(os.path.join(d, f) for f in os.listdir(d)))
    except OSError:
        return (d,)


@functools.lru_cache(maxsize=64)
def _set_evaluator(set_name, target, func, stamp):
    return _core.Evaluator.of_set(set_name, target, func)


@functools.lru_cache(maxsize=64)
def _profile_evaluator(path, stamp):
    return _core.Evaluator.of_profile(path)


@functools.lru_cache(maxsize=64)
def _dir_evaluator(pwp_dir, func, exact, alpha, stamp):
    return _core.Evaluator.of_pwp_dir(pwp_dir, func, exact, alpha)


def _bare_name(func):
    """A function as the catalog names it: "gelu" for "gelu", "Gelu", "gelu_400p" or "23"."""
    f = str(func)
    fns = _catalog()
    if f.isdigit():
        for fn in fns:
            if fn["func_id"] == int(f):
                return fn["name"]
        raise _core.Error(f"func_id {f}: no catalog function has it on trainium (neuronsim.act.functions() lists them)")
    low = f.lower()
    for fn in fns:
        if low in (fn["name"], fn["stem"]):
            return fn["name"]
    return low


def _default_set(func, target):
    if target != "trainium":
        raise _core.Error(f"func '{func}' on target {target}: name the set (set=...); only trainium's roster picks one by itself")
    i = _core.first_set_covering([func])
    if i < 0:
        known = ", ".join(sorted({f["name"] for f in functions() if f["sets"]}))
        raise _core.Error(f"func '{func}': no built-in trainium set holds it (functions in the sets: {known})")
    return _core.trainium_sets()[i]


def _evaluator(func, set, target, profile, pwp_dir, exact, alpha):
    if profile is not None:
        if set is not None or pwp_dir is not None or exact:
            raise ValueError("profile= evaluates that profile alone: give no set=, pwp_dir= or exact=")
        if alpha:
            raise ValueError("alpha has no effect on a profile (only the reference's Prelu uses it: pwp_dir= or exact=True)")
        if isinstance(profile, dict):
            return _core.Evaluator.of_profile_json(_profile_text(profile), profile.get("name", "<profile dict>"))
        path = _profile_path(profile)
        if not os.path.isfile(path):
            raise _core.Error(f"profile {path}: no such file")
        return _profile_evaluator(path, _stamp(path))
    if pwp_dir is not None or exact:
        if set is not None:
            raise ValueError("set= is the hardware path; pwp_dir= and exact= are the reference simulator's")
        d = "" if pwp_dir is None else os.fspath(pwp_dir)
        return _dir_evaluator(d, _core.act_fn_name(func), bool(exact), float(alpha), _stamp(*_dir_files(d)) if d else ())
    if alpha:
        raise ValueError("alpha has no effect on the tables (only the reference's Prelu uses it: pwp_dir= or exact=True)")
    bare = _bare_name(func) if target == "trainium" else func
    if func.lower() == bare:
        func = bare  # a name in any case; a stem or func_id goes to the set's lookup as it is
    set_name = _default_set(bare, target) if set is None else os.fspath(set)
    manifest = _core.resolve_set(set_name, target)
    return _set_evaluator(set_name, target, func, _stamp(*_set_files(manifest)))


def eval(x, func="gelu", set=None, *, target="trainium", profile=None, pwp_dir=None, exact=False, scale=None, bias=None, alpha=0.0, threads=0):
    """f(scale*x + bias), element by element, bit-exact.

    x         float32 array (any shape), or uint32 bit patterns (the result is then uint32 too).
    func      with the tables: a bare name ("exp", any case), stem ("exp_400p") or func_id
              ("7"); with pwp_dir= or exact=: one of names() in any case ("gelu").
    set       a built-in set name ("gelu_and_others") or a manifest path; default: the first
              trainium set in roster order that holds func (the compiler's first fit).
    profile   a per-function profile (path, or a dict as load_profile returns) instead.
    pwp_dir   a profile directory: the reference simulator's name dispatch over its files.
    exact     the reference simulator's closed form (with pwp_dir= or alone).
    scale, bias  the pre-scale, multiply then add, each rounded to float32 as the ACT engine
              does; None (default) on both: x goes in as it is. The reference simulator
              (pwp_dir=, exact=) always applies it, with 1 and 0 by default, as it does.
    alpha     Prelu's slope (reference simulator only).
    threads   host threads (0: all); the bits do not depend on it.

    An element that cannot be evaluated (a table selection the reference would throw on) raises
    neuronsim.Error naming its index and bits.
    """
    a, bits = _as_f32(x)
    if not isinstance(threads, int) or isinstance(threads, bool) or threads < 0:
        raise ValueError(f"threads: expected an int >= 0 (0: all host threads), got {threads!r}")
    fe = _evaluator(str(func), set, target, profile, pwp_dir, exact, alpha)
    if (pwp_dir is not None or exact) and scale is None and bias is None:
        scale, bias = 1.0, 0.0
    try:
        y = fe.evaluate(a, None if scale is None else float(scale), None if bias is None else float(bias), int(threads))
    finally:
        deliver()
    y = y.reshape(np.shape(x))  # a 0-d input gives a 0-d result
    return y.view(np.uint32) if bits else y


def _profile_path(name_or_path):
    p = os.fspath(name_or_path)
    if os.sep in p or p.endswith(".json"):
        return p
    d = os.path.join(_core.catalog_dir(), "pwp_jsons")
    if os.path.exists(os.path.join(d, p + ".json")):
        return os.path.join(d, p + ".json")
    return os.path.join(d, _core.catalog_fn(p)["stem"] + ".json")  # an unknown name lists the catalog


def load_profile(name_or_path):
    """A profile as a dict: the vendor's JSON keys, plus "arrays": each side's sections as float32
    arrays x, d0..d3 and its declared octaves. A bare name ("gelu") or stem ("gelu_400p") is the
    built-in catalog's profile."""
    path = _profile_path(name_or_path)
    text = _core.profile_json(path)
    d = json.loads(text)
    d["arrays"] = _core.profile_arrays(text, path)
    deliver()
    return d


def _profile_text(p):
    if isinstance(p, dict):
        return json.dumps({k: v for k, v in p.items() if k != "arrays"})
    return _core.profile_json(_profile_path(p))


def generate(func):
    """A newly generated profile of a catalog function (what `neuronsim pwp gen` writes), as load_profile's dict."""
    text = _core.generate_profile(func)
    d = json.loads(text)
    d["arrays"] = _core.profile_arrays(text, func)
    return d


def pack(profiles, name, out_dir, target="trainium"):
    """Packs profiles into one function set: writes OUT_DIR/<name>_bkt.bin, _ctrl.bin and <name>.json
    and returns the manifest's path. `profiles`: {stem: profile dict, path or catalog name}; the
    stem ("exp_400p") names the function in the set."""
    os.makedirs(out_dir, exist_ok=True)
    _core.pack_set(target, name, [(stem, _profile_text(p)) for stem, p in profiles.items()], os.fspath(out_dir))
    return os.path.join(os.fspath(out_dir), name + ".json")


def load_set(name_or_path, target="trainium"):
    """A packed set: its manifest (a dict), the bkt and ctrl blobs (uint8 arrays) and ctrl's stride."""
    d = _core.read_set(os.fspath(name_or_path), target)
    d["manifest"] = json.loads(d["manifest"])
    return d


def check(pwp_dir):
    """Every cross-check `neuronsim pwp check` makes on a pwp_bin_* directory: {"issues": [...], counts}."""
    return _core.check_pwp_dir(os.fspath(pwp_dir))


def closed_form(func, x):
    """The catalog function's closed form, as the reference simulator computes it in float."""
    a, bits = _as_f32(x)
    y = _core.closed_form(func, a)
    return y.view(np.uint32) if bits else y


def _sweep(fn, per_octave):
    lo, hi = fn["domain"]
    lo = max(lo, 2.0 ** -126)
    e0 = max(-126, math.floor(math.log2(lo)))
    e1 = min(127, math.ceil(math.log2(hi))) if math.isfinite(hi) else 127
    m = np.arange(per_octave, dtype=np.float64) / per_octave
    mags = np.concatenate([(1.0 + m) * 2.0 ** e for e in range(e0, e1)]).astype(np.float32)
    mags = mags[(mags >= np.float32(lo)) & (mags <= np.float32(hi))]
    return np.concatenate([mags, -mags]) if fn["domain_negative"] else mags


def accuracy(func_or_profile, x=None, *, func=None, per_octave=256, threads=0):
    """Per-element error of a profile against its function's closed form.

    func_or_profile  a catalog name ("gelu": its built-in profile), a profile path or dict (yours
                     or the vendor's; func= names its catalog function when the profile's
                     "name" key does not).
    x                float32 inputs; default: per_octave evenly spaced values in every octave of
                     the function's domain, both signs where it has them.
    Returns a dict: x, y, expected (float32), abs, rel, ulp (float64), handled (bool: False where
    the profile cannot evaluate the element; y is NaN there), and the maxima over handled
    elements: max_abs, max_rel (where |expected| >= FLT_MIN, as `neuronsim pwp accuracy`),
    max_ulp, unhandled; "certified" (bool: x in the function's certified domain), max_score
    (the generator's bar |y - f| / max(|f|, 0.1) there) and passes (max_score <= 1e-6, all
    certified elements handled).
    """
    if isinstance(func_or_profile, dict):
        prof = func_or_profile
        fe = _core.Evaluator.of_profile_json(_profile_text(prof), prof.get("name", "<profile dict>"))
        name = func or prof.get("name")
    else:
        path = _profile_path(func_or_profile)
        fe = _core.Evaluator.of_profile(path)
        name = func or json.loads(_core.profile_json(path)).get("name") or os.path.basename(path).split("_")[0]
    fn = _core.catalog_fn(name)
    xs = _sweep(fn, per_octave) if x is None else _as_f32(x)[0].ravel()
    r = _core.accuracy_arrays(fe, fn["name"], xs)
    deliver()
    r["x"] = xs
    h = r["handled"]
    ok = h & np.isfinite(r["rel"]) & (np.abs(r["expected"]) >= np.finfo(np.float32).tiny)
    r["max_abs"] = float(r["abs"][h].max()) if h.any() else float("nan")
    r["max_rel"] = float(r["rel"][ok].max()) if ok.any() else float("nan")
    r["max_ulp"] = float(r["ulp"][h].max()) if h.any() else float("nan")
    r["unhandled"] = int((~h).sum())
    # The generator's bar (docs/pwp-tables.md): |y - f| / max(|f|, 0.1) <= 1e-6 where the
    # function's table is certified; a NaN output scores infinity.
    lo, hi = fn["certified"]
    r["certified"] = (np.abs(xs) >= lo) & (np.abs(xs) <= hi)
    inside = r["certified"] & h
    s = np.nan_to_num(r["abs"][inside] / np.maximum(np.abs(r["expected"][inside]).astype(np.float64), 0.1), nan=np.inf)
    r["max_score"] = float(s.max()) if s.size else float("nan")
    r["passes"] = bool(s.size and r["max_score"] <= 1e-6 and not (r["certified"] & ~h).any())
    r["function"] = fn["name"]
    return r
