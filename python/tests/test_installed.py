"""The package as `cmake --install` puts it: beside the library, relocatable (the prefix is
moved after the install), finding its catalog relative to itself, not the build tree."""
import os
import shutil
import subprocess
import sys

import pytest

PROBE = r"""
import sys, numpy as np, neuronsim as ns
assert ns.__file__.startswith(sys.argv[1]), ns.__file__
assert ns._core.catalog_dir().startswith(sys.argv[1]), ns._core.catalog_dir()
x = np.linspace(-2, 2, 9, dtype=np.float32)
k = ns.Kernel("probe")
t = k.sbuf((128, 9), name="t", init=np.tile(x, (128, 1)))
o = k.sbuf((128, 9), name="o")
y = k.dram_output("y", (128, 9))
k.activation(o, t, "gelu")
k.dma_copy(y, o)
assert np.array_equal(ns.run(k, gen="sunda")["y"][5].view(np.uint32), ns.act.eval(x, "gelu").view(np.uint32))
print("ok")
"""


def test_the_installed_package_works_after_its_prefix_moves(tmp_path):
    build = os.environ.get("NEURONSIM_BUILD_DIR")
    if not build:
        pytest.fail("set NEURONSIM_BUILD_DIR to the build tree (ctest does)")
    cmake = shutil.which("cmake")
    subprocess.run([cmake, "--install", build, "--prefix", str(tmp_path / "inst")], check=True, capture_output=True)
    os.rename(tmp_path / "inst", tmp_path / "moved")
    site = tmp_path / "moved" / "lib" / "python3" / "dist-packages"
    assert (site / "neuronsim" / "__init__.py").exists()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NEURONSIM_CATALOG")}
    env["PYTHONPATH"] = str(site)
    r = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path / "moved")], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == "ok\n", r.stderr
    assert r.stderr == "", "the package printed: " + r.stderr
