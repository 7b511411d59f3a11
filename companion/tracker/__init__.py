"""Move inference and feedback: raw sensor scans in; proposed moves, events, guidance and LED
frames out.

``Tracker`` is pure (no I/O, no wall clock); see :mod:`companion.tracker.core` for how it decides
and docs/events.md for everything it says.
"""

from .core import Tracker
from .events import (
    Event,
    EventKind,
    Guidance,
    GuidanceKind,
    ProposalError,
    TrackerState,
    apply_proposal,
)

__all__ = ["Event", "EventKind", "Guidance", "GuidanceKind", "ProposalError", "Tracker",
           "TrackerState", "apply_proposal"]
