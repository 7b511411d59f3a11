"""What the tracker knows of the sensors and of time: its timings, the last scan (occupied
squares and colours, as indices), when each square last changed, and the next deadline."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..scan import Scan
from .squares import Grid

NEVER = -math.inf


@dataclass(frozen=True, slots=True)
class Timing:
    """The tracker's timings in seconds (see :mod:`companion.tracker.core`)."""

    settle: float = 0.2
    hold: float = 0.5
    knock_window: float = 0.2
    revise_window: float = 1.2
    lift_hold: float = 0.75

    def __post_init__(self) -> None:
        if not 0 < self.settle <= self.hold:
            raise ValueError("need 0 < settle <= hold")


class Readings:
    """The sensors as last scanned, on the caller's clock: ``occupied`` squares, their
    ``colours`` (polarity boards), when each square last changed, when anything last changed,
    and ``now`` (the latest time seen)."""

    def __init__(self, grid: Grid) -> None:
        self._grid = grid
        self.occupied: frozenset[int] = frozenset()
        self.colours: dict[int, str] = {}
        self._changed: dict[int, float] = {}
        self.last_change = NEVER
        self.now = NEVER
        self.seen = False

    def changed_at(self, square: int) -> float:
        """When ``square`` last changed (NEVER if it has not since the first scan)."""
        return self._changed.get(square, NEVER)

    def settled(self, square: int, settle: float) -> bool:
        """Whether ``square`` has not changed for ``settle`` seconds."""
        return self._changed.get(square, NEVER) + settle <= self.now

    def take(self, scan: Scan, t: float) -> bool:
        """Take a scan read at ``t``; False if it shows nothing new (after the first)."""
        grid = self._grid
        occupied = grid.parse_all(scan.occupied)
        colours = {grid.parse(s): c for s, c in (scan.colours or {}).items()
                   if s in scan.occupied}
        if not self.seen:
            self.seen = True
        else:
            changed = set(occupied ^ self.occupied)
            changed.update(s for s, c in colours.items() if self.colours.get(s, c) != c)
            if not changed:
                return False
            for s in changed:
                self._changed[s] = t
            self.last_change = t
        self.occupied = occupied
        self.colours = colours
        return True


class Deadline:
    """The next time at which time alone may change something (None: only a scan can)."""

    def __init__(self, readings: Readings) -> None:
        self._readings = readings
        self.at: float | None = None

    def want(self, t: float) -> None:
        """Ask to be run again at ``t`` (if that is later than now and sooner than asked)."""
        if t > self._readings.now and (self.at is None or t < self.at):
            self.at = t

    def clear(self) -> None:
        """Forget every request (a run starts afresh)."""
        self.at = None
