"""The revision window: while the mover's hand is still on the piece just moved, moving it on
along its line replaces the move (see :mod:`companion.tracker.core`)."""

from __future__ import annotations

from .knocks import Knocks
from .model import PieceModel
from .readings import NEVER, Readings, Timing
from .square_relations import Grid


class RevisionWindow:
    """When the last move's piece came to rest, and whether the move may still be revised
    (``revisable``: the opponent has not started)."""

    def __init__(self, timing: Timing, grid: Grid, readings: Readings,
                 model: PieceModel) -> None:
        self._timing, self._grid, self._readings, self._model = timing, grid, readings, model
        self.revisable = False
        self.rested_at = NEVER  #: when the last move's piece came to rest
        self.placed_at = NEVER  #: when it first came to rest (kept by revisions)

    def reset(self) -> None:
        """A new model: no last move to revise."""
        self.revisable = False
        self.rested_at = NEVER
        self.placed_at = NEVER

    def moved(self, to: int, *, revision: bool = False) -> None:
        """A move (or a ``revision``, which keeps the first placement time) to ``to`` was made:
        it may be revised."""
        self.revisable = True
        self.rested_at = self._readings.changed_at(to)
        if not revision:
            self.placed_at = self.rested_at

    def close(self) -> None:
        """The last move may no longer be revised (the opponent started, a capture was lifted
        off or put back, it was the move to make)."""
        self.revisable = False

    def taken_back(self, at: float) -> None:
        """The last move was taken back by hand at ``at`` (the board settled then)."""
        self.revisable = False
        self.rested_at = at

    def is_open(self) -> bool:
        """Whether the last move may still be revised: the opponent has not started, and its
        piece has rested on its square for at most ``revise_window`` (it is still there, or it
        left within that time: the mover's hand was still on it)."""
        last = self._model.last
        if not self.revisable or last is None:
            return False
        to = last.move.to
        readings = self._readings
        left = readings.now if to in readings.occupied else readings.changed_at(to)
        return left <= self.rested_at + self._timing.revise_window

    def target(self, gone: frozenset[int], new: frozenset[int], knocks: Knocks) -> int | None:
        """The square the last move's piece moved on to along its line, if the diff shows
        exactly that (pieces knocked meanwhile aside) and the hand kept moving (no pause longer
        than ``revise_window`` after it left); None otherwise."""
        last = self._model.last
        if last is None or last.move.to not in gone:
            return None
        frm, to = last.move.frm, last.move.to
        grid = self._grid
        rest_gone = set(gone) - {to}
        turn = self._model.turn
        found = [
            t for t in new
            if t != frm and grid.on_line(frm, to, t)
            and not any(knocks.is_knock(g, t) for g in rest_gone)  # a knocked piece landed on t?
            and knocks.explain(rest_gone, set(new) - {t}, turn)
        ]
        if len(found) != 1:
            return None
        target = found[0]
        changed_at = self._readings.changed_at
        left = changed_at(to)
        times = sorted(t for t in (changed_at(s) for s in grid.line(to, target)[1:])
                       if t >= left)
        if any(b - a > self._timing.revise_window for a, b in zip([left, *times], times)):
            return None  # put down long after it was lifted: not the same movement
        return target
