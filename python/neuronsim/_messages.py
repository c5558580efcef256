"""The library's messages, delivered the Python way after each call that may produce them."""
import logging
import warnings

from . import _core

_log = logging.getLogger("neuronsim")


class NeuronsimWarning(UserWarning):
    """A warning of neuronsim's library (a profile's inconsistent metadata, a firmware log line)."""


class HazardWarning(NeuronsimWarning):
    """A race between engines or a read of unwritten bytes that a run found (docs/hazards.md)."""


class HazardError(_core.Error):
    """run(hazards="error") found hazards; .result is the complete run, .result.hazards lists them."""


def deliver():
    """Turns the queued library messages into warnings (level warning) and logging records."""
    for level, topic, text in _core.take_messages():
        if level == "warning":
            warnings.warn(f"neuronsim/{topic}: {text}", NeuronsimWarning, stacklevel=3)
        else:
            _log.log(logging.INFO if level == "info" else logging.DEBUG, "neuronsim/%s: %s", topic, text)
