import json
import os
import subprocess

import numpy as np
import pytest

import neuronsim as ns
from conftest import TRACES


def test_a_trace_runs_as_the_cli_runs_it(cli, tmp_path):
    trace = os.path.join(TRACES, "gelu.trace")
    r = ns.run(trace, gen="cayman", out=tmp_path / "py")
    subprocess.run([cli, "run", trace, "--gen", "cayman", "--no-progress", "--out", str(tmp_path / "cli")], check=True, capture_output=True)
    with open(tmp_path / "cli" / "stats.json") as f:
        expected = json.load(f)
    assert r.stats["core"] == expected["core"]  # the same device, the same times
    assert r.generation == "CAYMAN" and r.stats.generation == "CAYMAN"
    assert np.array_equal(r.dump("gelu_row0.bin"), np.fromfile(tmp_path / "cli" / "gelu_row0.bin", dtype=np.uint8))
    assert len(r.instructions) == r.stats.core.instructions
    assert not (tmp_path / "py" / "RUN_INCOMPLETE").exists()


def test_inputs_as_arrays_and_trace_text():
    x = np.float32([-1.0, 0.5, 2.0, 3.0])
    text = ".data sbuf:0:0x0 file=x.bin\n" \
           "act load_act_func_set set=exp_and_others\n" \
           "act activate func=exp in_bias_dtype=fp32:fp32 out_dtype=fp32 num_active_channels=1 scale=1.0 bias=0 bias_src_n=immediate src=sbuf:0:0x0 src.step=1,0,0 src.num=4,1,1 dst=sbuf:0:0x100 dst.step=1,0,0 dst.num=4,1,1\n" \
           ".dump sbuf:0:0x100 bytes=16 file=y.bin\n"
    r = ns.run(text, inputs={"x.bin": x})
    assert np.array_equal(r.dump("y.bin", np.uint32), ns.act.eval(x, "exp").view(np.uint32))


def test_a_bad_trace_names_its_line_and_the_directory_says_failed(tmp_path):
    text = "act activate fnc=7\n"
    with pytest.raises(ns.Error, match=r"trace.trace:1: 'activate' has no field 'fnc'"):
        ns.run(text, out=tmp_path / "bad")
    assert (tmp_path / "bad" / "RUN_INCOMPLETE").read_text().startswith("failed: ")


def test_an_earlier_run_is_replaced_only_when_forced(tmp_path):
    trace = os.path.join(TRACES, "gelu.trace")
    ns.run(trace, out=tmp_path / "o")
    with pytest.raises(ns.Error, match="give --force"):
        ns.run(trace, out=tmp_path / "o")
    ns.run(trace, out=tmp_path / "o", force=True)


def test_overrides_and_config_dicts_move_the_time():
    trace = os.path.join(TRACES, "demo_dma.trace")
    base = ns.run(trace, gen="trn2").simulated_ns
    slower = ns.run(trace, gen="trn2", overrides={"dma.fixed_overhead_ns": 10000}).simulated_ns
    same = ns.run(trace, gen="trn2", config={"dma": {"fixed_overhead_ns": 10000}}).simulated_ns
    assert slower > base + 8000 and same == slower


def test_timing_only_writes_no_dumps():
    r = ns.run(os.path.join(TRACES, "gelu.trace"), numerics="none")
    assert r.dumps == {}
    with pytest.raises(KeyError, match="numerics='none'"):
        r.dump("gelu_row0.bin")
    assert r.stats.run.numerics == "none"


def test_the_table_without_pandas_is_a_record_array(monkeypatch):
    import sys
    r = ns.run(os.path.join(TRACES, "gelu.trace"))
    with_pandas = r.instructions
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    plain = ns.runs._read_table(r._csv)
    assert isinstance(plain, np.recarray) and len(plain) == len(with_pandas)
    assert list(plain.dtype.names) == list(with_pandas.columns)
    assert np.array_equal(plain["end_ns"], with_pandas["end_ns"].to_numpy())
    assert list(plain["mnemonic"]) == list(with_pandas["mnemonic"])


def test_never_written_sbuf_is_nan_when_asked():
    # A kernel that forgot its load: the activation reads SBUF nothing wrote.
    k = ns.Kernel("forgot")
    t = k.sbuf((128, 8), name="t")
    o = k.sbuf((128, 8), name="o")
    raw = k.dram_output("raw", (128, 8))
    y = k.dram_output("y", (128, 8))
    k.dma_copy(raw, t)
    k.activation(o, t, "gelu")
    k.dma_copy(y, o)
    with pytest.warns(ns.HazardWarning, match="read of unwritten bytes"):
        zero = ns.run(k)
    # docs/hazards.md: the DMA and the activation read SBUF nothing wrote
    assert [h["kind"] for h in zero.hazards] == ["read of unwritten bytes"] * 2
    engines = {h["second"]["engine"] for h in zero.hazards}
    assert "act" in engines and len(engines) == 2
    assert all(h["first"] is None for h in zero.hazards)
    assert np.all(zero["raw"].view(np.uint32) == 0)
    assert np.all(zero["y"] == 0)  # gelu(0) = 0: plausible, and wrong
    nan = ns.run(k, uninitialised="nan", hazards="off")
    assert nan.hazards == [] and nan.stats.core.hazards.checked is False
    assert np.all(nan["raw"].view(np.uint32) == 0xFFFFFFFF)
    assert nan.stats.run.uninitialised == "nan" and zero.stats.run.uninitialised == "zero"
    # what the tables make of the NaN is the ACT engine's business (no NaN branch), but it is
    # the same as evaluating that bit pattern directly
    want = ns.act.eval(np.full((128, 8), 0xFFFFFFFF, dtype=np.uint32), "gelu")
    assert np.array_equal(nan["y"].view(np.uint32), want)


def test_inputs_stay_inside_the_run_directory(tmp_path):
    text = ".data dram:0x0 file=../../x.bin\n"
    with pytest.raises(ns.Error, match="relative and without '..'"):
        ns.run(text, inputs={"../../x.bin": np.zeros(4, np.float32)})
    with pytest.raises(ns.Error, match="relative"):
        ns.run(".data dram:0x0 file=/tmp/x.bin\n", inputs={"/tmp/x.bin": np.zeros(4, np.float32)})


def test_a_trace_that_is_not_a_regular_file_is_refused(tmp_path):
    fifo = tmp_path / "f.trace"
    os.mkfifo(fifo)
    with pytest.raises(ns.Error, match="not a regular trace file"):
        ns.run(str(fifo))


def test_a_trace_file_runs_where_it_is_and_errors_name_it(tmp_path):
    bad = tmp_path / "bad.trace"
    bad.write_text("act sync\nact activate fnc=7\n")
    with pytest.raises(ns.Error, match=str(bad) + ":2:"):
        ns.run(str(bad))
    r = ns.run(os.path.join(TRACES, "gelu.trace"))
    assert r.stats.trace.path == os.path.join(TRACES, "gelu.trace")
