import json
import os

import numpy as np
import pytest

import neuronsim as ns


def bits(a):
    return np.asarray(a, dtype=np.float32).view(np.uint32)


def random_inputs(n, seed=1):
    """Bit patterns across the whole float range, finite ones only, plus the specials."""
    u = np.random.default_rng(seed).integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    x = u.view(np.float32)
    x = x[np.isfinite(x)]
    return np.concatenate([x, np.float32([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0])])


def test_the_tables_and_the_profile_agree_bit_for_bit():
    # The hardware path (the built-in set's blobs) against evaluate_generic on the same
    # function's profile: two decoders of the same numbers, so any difference is a bug in one.
    x = random_inputs(200_000)
    for func in ("gelu", "exp", "sigmoid", "tanh"):
        tables = ns.act.eval(x, func)
        profile = ns.act.eval(x, func, profile=ns.act.load_profile(func))
        assert np.array_equal(bits(tables), bits(profile)), func


def test_threads_do_not_change_the_bits():
    x = random_inputs(1_000_000, seed=2)
    one = ns.act.eval(x, "gelu", threads=1)
    two = ns.act.eval(x, "gelu", threads=2)
    assert np.array_equal(bits(one), bits(two))


def test_a_thread_count_past_the_cap_is_an_error():
    with pytest.raises(ns.Error, match="at most 1024"):
        ns.act.eval(np.ones(4, dtype=np.float32), "gelu", threads=100000)
    assert ns.act.eval(np.ones(4, dtype=np.float32), "gelu", threads=3).shape == (4,)


def test_bits_in_bits_out_and_shape_kept():
    x = np.linspace(-3, 3, 24, dtype=np.float32).reshape(4, 6)
    y = ns.act.eval(x, "gelu")
    yb = ns.act.eval(x.view(np.uint32), "gelu")
    assert y.shape == (4, 6) and y.dtype == np.float32
    assert yb.dtype == np.uint32 and np.array_equal(yb, bits(y))


def test_no_float64_detour():
    with pytest.raises(TypeError, match="float32"):
        ns.act.eval(np.linspace(-1, 1, 5), "gelu")
    with pytest.raises(TypeError, match="float32"):
        ns.act.eval([0.5, 1.0], "gelu")


def test_prescale_is_multiply_then_add_in_float32():
    x = np.float32([0.1, -2.5, 3.75, 1e-3])
    s, b = np.float32(1.7), np.float32(-0.3)
    pre = (x * s).astype(np.float32) + b  # two float32 roundings, no fused multiply-add
    assert np.array_equal(bits(ns.act.eval(x, "exp", scale=s, bias=b)), bits(ns.act.eval(pre.astype(np.float32), "exp")))


def test_the_reference_simulator_and_its_closed_form():
    x = np.linspace(-6, 6, 4001, dtype=np.float32)
    catalog = os.path.join(ns._core.catalog_dir(), "pwp_jsons")
    # name dispatch over a profile directory: the same tables as the profile itself
    by_dir = ns.act.eval(x, "gelu", pwp_dir=catalog)
    assert np.array_equal(bits(by_dir), bits(ns.act.eval(x, "gelu", profile="gelu")))
    exact = ns.act.eval(x, "gelu", exact=True)
    assert np.array_equal(bits(exact), bits(ns.act.closed_form("gelu", x)))
    assert not np.array_equal(bits(exact), bits(by_dir))  # the tables are not the closed form


def test_errors_name_what_is_valid():
    with pytest.raises(ns.Error, match="gelu_and_others"):
        ns.act.eval(np.float32([1]), "gelu", set="gelu_and_other")
    with pytest.raises(ns.Error, match="Unsupported activation function"):
        ns.act.eval(np.float32([1]), "gelux", exact=True)
    with pytest.raises(ns.Error, match="not in set exp_and_others"):
        ns.act.eval(np.float32([1]), "gelu", set="exp_and_others")


def test_tables_as_python_values():
    p = ns.act.load_profile("exp")
    assert p["name"].startswith("exp")
    pos = p["arrays"]["pos"]
    assert pos["x"].dtype == np.float32 and len(pos["x"]) == len(pos["d3"]) > 0
    s = ns.act.load_set("exp_and_others")
    names = [f["func_name"] for f in s["manifest"]["profile_meta_data"]]
    assert any(n.startswith("exp") for n in names)
    assert s["bkt"].dtype == np.uint8 and len(s["ctrl"]) % s["ctrl_stride"] == 0
    assert "exp_and_others" in ns.act.sets()
    gelu = next(f for f in ns.act.functions() if f["name"] == "gelu")
    assert gelu["func_id"] == 23 and "gelu_and_others" in gelu["sets"]


def test_pack_a_set_and_evaluate_it(tmp_path):
    manifest = ns.act.pack({"gelu_400p": "gelu", "exp_400p": "exp"}, "mine", tmp_path)
    x = random_inputs(50_000, seed=3)
    for func in ("gelu", "exp"):
        assert np.array_equal(bits(ns.act.eval(x, func, set=manifest)), bits(ns.act.eval(x, func, profile=func)))
    # the directory is a pwp_bin_* directory: listed in act_info.json, checked clean, and a run
    # loads the set from it (its index is its position: a second pack comes after)
    ns.act.pack({"sigmoid_400p": "sigmoid"}, "second", tmp_path)
    info = json.loads((tmp_path / "act_info.json").read_text())
    assert [s["name"] for s in info["act_func_sets"]] == ["mine", "second"]
    assert ns.act.check(tmp_path)["issues"] == []
    v = np.linspace(-3, 3, 16, dtype=np.float32)
    text = (".data sbuf:0:0x0 file=v.bin\n"
            "act load_act_func_set set=1\n"
            "act activate func=5 in_bias_dtype=fp32:fp32 out_dtype=fp32 num_active_channels=1 scale=1.0 bias=0 bias_src_n=immediate "
            "src=sbuf:0:0x0 src.step=1,0,0 src.num=16,1,1 dst=sbuf:0:0x100 dst.step=1,0,0 dst.num=16,1,1\n"
            ".dump sbuf:0:0x100 bytes=64 file=y.bin\n")
    r = ns.run(text, inputs={"v.bin": v}, pwp=tmp_path)
    assert np.array_equal(r.dump("y.bin", np.uint32), bits(ns.act.eval(v, "sigmoid", set=str(tmp_path / "second.json"))))


def test_check_finds_a_broken_pointer(tmp_path):
    import shutil
    src = os.path.join(ns._core.catalog_dir(), "pwp_bin_trainium")
    assert ns.act.check(src)["issues"] == []
    dst = tmp_path / "pwp_bin_trainium"
    shutil.copytree(src, dst)
    m = json.loads((dst / "exp_and_others.json").read_text())
    m["profile_meta_data"][0]["pwl_control_base_pos"] += 1
    (dst / "exp_and_others.json").write_text(json.dumps(m))
    assert ns.act.check(dst)["issues"], "a raised control pointer must be reported"


def score(r):
    """The generator's bar (docs/pwp-tables.md): |y - f| / max(|f|, 0.1) over the certified domain."""
    fn = next(f for f in ns.act.functions() if f["name"] == r["function"])
    lo, hi = fn["certified"]
    inside = (np.abs(r["x"]) >= lo) & (np.abs(r["x"]) <= hi) & r["handled"]
    s = r["abs"][inside] / np.maximum(np.abs(r["expected"][inside]), 0.1)
    return np.nan_to_num(s, nan=np.inf).max()  # a NaN output is as wrong as it gets


def test_accuracy_arrays_and_a_perturbed_profile():
    good = ns.act.accuracy("exp", per_octave=64)
    assert good["function"] == "exp" and good["unhandled"] == 0
    assert good["x"].shape == good["ulp"].shape == good["handled"].shape == good["y"].shape
    assert score(good) <= 1e-6  # the built-in table meets the bar where it is certified
    assert good["passes"] and good["max_score"] == pytest.approx(score(good), rel=1e-6)
    # flip a mantissa bit of the constant term of every section: the error must show
    bad = {k: v for k, v in ns.act.load_profile("exp").items() if k != "arrays"}
    flipped = 0

    def bump(o):
        nonlocal flipped
        if isinstance(o, dict):
            for k, v in o.items():
                if k == "d0" and isinstance(v, dict) and "int" in v:  # a float box: only "int" is read
                    o[k] = dict(v, int=v["int"] ^ 0x4000)
                    flipped += 1
                else:
                    bump(v)
        elif isinstance(o, list):
            for v in o:
                bump(v)

    bump(bad)
    assert flipped > 0, "the profile's sections were not found"
    worse = ns.act.accuracy(bad, func="exp", per_octave=64)
    assert score(worse) > 10 * max(score(good), 1e-9)
    assert not worse["passes"] and worse["max_score"] == pytest.approx(score(worse), rel=1e-6)


def test_names_ids_stems_and_zero_d_inputs():
    x = np.linspace(-2, 2, 7, dtype=np.float32)
    want = bits(ns.act.eval(x, "gelu"))
    assert np.array_equal(bits(ns.act.eval(x, "Gelu")), want)
    assert np.array_equal(bits(ns.act.eval(x, "23")), want)
    stem = next(f["stem"] for f in ns.act.functions() if f["name"] == "gelu")
    assert np.array_equal(bits(ns.act.eval(x, stem)), want)
    assert ns.act.eval(np.float32(2), "gelu").shape == ()
    with pytest.raises(ValueError, match="threads"):
        ns.act.eval(x, "gelu", threads=-1)
    with pytest.raises(ns.Error, match="the reference's names: Identity"):
        ns.act.eval(x, "foo", exact=True)


def test_a_set_rewritten_in_place_is_read_again(tmp_path):
    x = np.linspace(-2, 2, 9, dtype=np.float32)
    m = ns.act.pack({"gelu_4p": "gelu"}, "s", tmp_path)
    first = ns.act.eval(x, "gelu", set=m)
    ns.act.pack({"gelu_4p": "tanh"}, "s", tmp_path)  # another function's table under the same name
    second = ns.act.eval(x, "gelu", set=m)
    assert np.array_equal(bits(second), bits(ns.act.eval(x, "tanh")))
    assert not np.array_equal(bits(first), bits(second))
