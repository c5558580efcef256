"""neuronsim: a cycle-approximate simulator of an AWS NeuronCore's engines, from Python.

- ``neuronsim.act``: activation functions evaluated bit-exactly over numpy arrays (the
  hardware path on the built-in sets, a profile, a profile directory or the closed forms),
  the catalog's tables as Python values, accuracy against the closed form.
- ``neuronsim.run``: a trace or a :class:`Kernel` on one generation, in this process; the
  result holds the stats, the per-instruction table, the dumps as arrays.
- ``neuronsim.Kernel``: writes the trace for you: tiles in SBUF/PSUM by shape and dtype, DMA
  copies, activations; the semaphores follow from the data dependencies. ``neuronsim.kernels``
  has kernels written on it (softmax, an activation layer).

docs/python.md has a worked example. Errors are :class:`neuronsim.Error` (a ValueError) whose
message names the file, line or element; the library prints nothing: its warnings arrive as
Python warnings (category :class:`NeuronsimWarning`), other messages as ``logging`` records of
the logger "neuronsim".
"""
from . import _core
from ._core import Error
from ._messages import HazardError, HazardWarning, NeuronsimWarning
from . import act
from .runs import Result, run, generations, config_yaml
from .kernel import CptcWeights, DramTensor, Kernel, Tile
from . import kernels

__version__ = _core.__version__

__all__ = ["act", "run", "Result", "Kernel", "Tile", "DramTensor", "CptcWeights", "Error", "HazardError", "NeuronsimWarning", "HazardWarning", "generations", "config_yaml", "kernels", "__version__"]
