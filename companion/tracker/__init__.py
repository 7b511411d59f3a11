"""Move inference and feedback: raw sensor scans in, exact moves, events and LED frames out.

``Tracker`` is pure (no I/O, no wall clock); see :mod:`companion.tracker.core` for how it decides.
"""

from .core import Tracker
from .events import Event

__all__ = ["Event", "Tracker"]
