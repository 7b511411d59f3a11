"""Move inference and feedback: raw sensor scans in; proposed moves, events, guidance and LED
frames out.

``Tracker`` is pure (no I/O, no wall clock); see :mod:`companion.tracker.core` for how it decides
and docs/events.md for everything it says.
"""

from .core import Tracker
from .event_json import EventData, GuidanceJSON
from .events import (
    Event,
    EventKind,
    Fault,
    FaultFlagged,
    GameOver,
    Guidance,
    GuidanceKind,
    LedsChanged,
    MoveEvent,
    MoveProposed,
    MoveRevised,
    MoveTakenBack,
    PieceRemoved,
    PieceRestored,
    Proposal,
    ProposalError,
    Ready,
    SetupNeeded,
    TrackerState,
    apply_proposal,
)

__all__ = ["Event", "EventData", "EventKind", "Fault", "FaultFlagged", "GameOver", "Guidance",
           "GuidanceJSON", "GuidanceKind", "LedsChanged", "MoveEvent", "MoveProposed",
           "MoveRevised", "MoveTakenBack", "PieceRemoved", "PieceRestored", "Proposal",
           "ProposalError", "Ready", "SetupNeeded", "Tracker", "TrackerState", "apply_proposal"]
