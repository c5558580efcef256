"""pytest set-up: the package under test is the build tree's (PYTHONPATH=BUILD/python, set by
ctest); NEURONSIM_EXE is the CLI of the same build, the other way to run the same thing."""
import os
import shutil

import pytest

TRACES = os.path.join(os.path.dirname(__file__), "..", "..", "traces")


@pytest.fixture
def cli():
    exe = os.environ.get("NEURONSIM_EXE") or shutil.which("neuronsim")
    if not exe:
        pytest.fail("set NEURONSIM_EXE to the neuronsim CLI of the build under test")
    return exe
