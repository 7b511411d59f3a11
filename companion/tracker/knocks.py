"""Knocked pieces: a piece that leaves its square and lands on a touching one within the knock
window while a hand was busy with another piece (see :mod:`companion.tracker.core`)."""

from __future__ import annotations

from collections.abc import Set

from .model import PieceModel
from .readings import NEVER, Readings, Timing
from .square_relations import Grid


class Knocks:
    """Judges whether pieces were knocked, from the readings, the model and when the hand
    carried the last move's piece (``carried``: when it left its square, when it came to
    rest). ``away`` and ``arrived`` are the board's difference from the model now (squares
    whose piece is off the board, squares holding a piece the model does not have there); the
    tracker sets them at every step."""

    def __init__(self, timing: Timing, grid: Grid, readings: Readings,
                 model: PieceModel) -> None:
        self._timing, self._grid = timing, grid
        self._readings, self._model = readings, model
        self.away: frozenset[int] = frozenset()
        self.arrived: frozenset[int] = frozenset()
        self.carried = (NEVER, NEVER)

    def moved(self, frm: int, to: int) -> None:
        """The hand carried a piece from ``frm`` to ``to`` (a move or a revision)."""
        changed_at = self._readings.changed_at
        self.carried = (changed_at(frm), changed_at(to))

    def forget(self) -> None:
        """No move's piece is being carried (a new model, a takeback)."""
        self.carried = (NEVER, NEVER)

    def is_knock(self, frm: int, to: int) -> bool:
        """Whether the piece that left ``frm`` may have been knocked onto ``to``: a touching
        square, filled at about the same time, while the hand was busy with another piece."""
        changed_at = self._readings.changed_at
        t = changed_at(frm)
        return (self._grid.touching(frm, to)
                and abs(t - changed_at(to)) <= self._timing.knock_window
                and self.busy(t, frm, to))

    def busy(self, t: float, *exclude: int) -> bool:
        """Whether a hand was busy with another piece (not on ``exclude``) at time ``t``, give
        or take the knock window: a piece is off its square since before then (in the air), a
        piece was put down on a new square then, the last move's piece was being carried then
        (from leaving its square to coming to rest), or a captured piece was lifted off then."""
        kw = self._timing.knock_window
        changed_at = self._readings.changed_at
        for s in self.away:
            if s not in exclude and changed_at(s) <= t + kw:
                return True
        for s in self.arrived:
            if s not in exclude and abs(changed_at(s) - t) <= kw:
                return True
        last = self._model.last
        if last is not None:
            lifted, rested = self.carried
            if last.move.frm not in exclude and last.move.to not in exclude and \
                    lifted - kw <= t <= rested + kw:
                return True
        return any(s not in exclude and abs(tr - t) <= kw
                   for s, tr in self._model.removed.items())

    def explain(self, gone: Set[int], new: Set[int], turn: str) -> bool:
        """Whether the leftover squares are knocked pieces: every new square matched to a gone
        neighbour that emptied at about the same time, no unmatched piece of the mover."""
        if len(new) > 3:
            return False
        if not new:
            return all(self._model.side_of(s) != turn for s in gone)
        sq = next(iter(new))
        for g in gone:
            if self.is_knock(g, sq) and self.explain(gone - {g}, new - {sq}, turn):
                return True
        return False

    def pairs(self, gone: Set[int], new: Set[int]) -> list[tuple[int, int]]:
        """Pieces that look knocked: a new square touching a gone one that emptied at about the
        same time (greedy in name order, each square used once)."""
        pairs: list[tuple[int, int]] = []
        used: set[int] = set()
        grid = self._grid
        for n in grid.sort(new):
            for g in grid.sort(gone):
                if g in used or not self.is_knock(g, n):
                    continue
                pairs.append((g, n))
                used.add(g)
                break
        return pairs

