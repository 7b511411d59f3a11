"""What the tracker knows of the sensors and of time: its timings, the last scan (occupied
squares and colours, as indices), when each square last changed, and the next deadline."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..scan import Scan
from .square_relations import Grid

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
        self._names: frozenset[str] = frozenset()  # the last scan's names (all of them)
        self.colours: dict[int, str] = {}
        self._changed: dict[int, float] = {}
        self.last_change = NEVER
        self.now = NEVER
        self.seen = False

    def regrid(self, grid: Grid) -> None:
        """Read the squares on a board of ``grid``'s size from now on (a game of another
        variant): what was read is kept, by name, for the squares on the new board."""
        if grid is self._grid:
            return
        old = self._grid.names
        self._grid = grid
        self.occupied = grid.parse_all(grid.on_board(self._names))
        self.colours = {i: c for s, c in self.colours.items()
                        if (i := grid.index_of(old[s])) is not None}
        self._changed = {i: t for s, t in self._changed.items()
                         if (i := grid.index_of(old[s])) is not None}

    def changed_at(self, square: int) -> float:
        """When ``square`` last changed (NEVER if it has not since the first scan)."""
        return self._changed.get(square, NEVER)

    def settled(self, square: int, settle: float) -> bool:
        """Whether ``square`` has not changed for ``settle`` seconds."""
        return self._changed.get(square, NEVER) + settle <= self.now

    def take(self, scan: Scan, t: float) -> bool:
        """Take a scan read at ``t``; False if it shows nothing new (after the first). Squares
        beyond the game's board (a bigger board playing a smaller variant) are not read."""
        grid = self._grid
        names = scan.occupied
        if self.seen and names == self._names:
            occupied = self.occupied
        elif self.seen:  # name only what changed: a scan changes a square or two at a time
            off, on = self._names - names, names - self._names
            occupied = ((self.occupied - grid.parse_all(grid.on_board(off)))
                        | grid.parse_all(grid.on_board(on)))
        else:
            occupied = grid.parse_all(grid.on_board(names))
        colours = {i: c for s, c in scan.colours.items()
                   if s in names and (i := grid.index_of(s)) is not None} if scan.colours else {}
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
        self._names = names
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
