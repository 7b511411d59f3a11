"""Moves on the board: explaining the board's difference as legal moves (:class:`MoveFinder`)
and making the tracker's conclusions — a move accepted, revised or taken back — with their
proposal events (:class:`Proposer`, which also holds the move to make)."""

from __future__ import annotations

from ..rules import Move
from .events import (
    Event,
    GameOver,
    MoveProposed,
    MoveRevised,
    MoveTakenBack,
    PieceRemoved,
)
from .faults import Faults
from .knocks import Knocks
from .model import Candidate, Expected, PieceModel, side_colour
from .readings import NEVER, Readings, Timing
from .revisions import RevisionWindow
from .setup import PieceCheck
from .shown import Display
from .square_relations import Grid


class MoveFinder:
    """Which legal moves of the side to move explain the board's difference from the model."""

    def __init__(self, timing: Timing, grid: Grid, readings: Readings, model: PieceModel,
                 window: RevisionWindow, knocks: Knocks) -> None:
        self._timing, self._grid, self._readings = timing, grid, readings
        self._model, self._window, self._knocks = model, window, knocks

    def colour_ok(self, sq: int, side: str) -> bool:
        """Whether the piece on ``sq`` may be ``side``'s (always, without polarity sensors)."""
        c = self._readings.colours.get(sq)
        return c is None or c == side_colour(side)

    def candidates(self, gone: frozenset[int], new: frozenset[int]) -> list[Candidate]:
        """Every explanation of the diff as one legal move of the side to move (name order)."""
        model, grid, knocks, readings = self._model, self._grid, self._knocks, self._readings
        board, turn, changed_at = model.board, model.turn, readings.changed_at
        settle = self._timing.settle
        since = self._window.rested_at + self._timing.knock_window
        out = []
        for t in grid.sort(new):
            if not self.colour_ok(t, turn):
                continue
            for f in grid.sort(gone):
                if board.side_of(f) != turn or changed_at(f) < since:
                    continue  # not lifted clearly after the last move's piece came to rest
                move = Move(f, t)
                if not board.is_legal(move):
                    continue
                caps = model.captures_of(move)
                rest_gone = set(gone) - {f} - set(caps)
                if any(knocks.is_knock(g, t) for g in rest_gone):
                    continue  # a neighbour may have been knocked onto t
                rest_new = set(new) - {t}
                if not knocks.explain(rest_gone, rest_new, turn):
                    continue
                removed = tuple(s for s in caps if s in gone and readings.settled(s, settle))
                out.append(Candidate(f, t, caps, removed))
        return out

    def calm_since(self, c: Candidate) -> float:
        """When the squares of the move's path (from one before ``frm`` to one past ``to``)
        last changed: a piece still sliding or bouncing along it means it is not down yet."""
        changed_at = self._readings.changed_at
        return max((changed_at(s) for s in self._grid.path(c.frm, c.to)), default=NEVER)


class Proposer:
    """Makes the tracker's conclusions and says them as proposals: each changes the model,
    the revision window and the knock times together. ``expected`` is the move to make (the
    only move accepted while it is set)."""

    def __init__(self, grid: Grid, readings: Readings, model: PieceModel,
                 window: RevisionWindow, knocks: Knocks, faults: Faults, display: Display,
                 finder: MoveFinder, check: PieceCheck) -> None:
        self._grid, self._readings, self._model = grid, readings, model
        self._window, self._knocks, self._faults, self._display = window, knocks, faults, display
        self._finder, self._check = finder, check
        self.expected: Expected | None = None

    def expect(self, move: Move | None) -> None:
        """Set the move to make (None: clear it); MoveError (a ValueError) if it is not legal
        in the model (ValueError once the game is over)."""
        if move is None:
            self.expected = None
            return
        game = self._model.game
        if game.is_over():
            raise ValueError(f"cannot expect {move.text(game.rules.size)}: the game is over")
        played = game.play(move)  # checks legality
        game.undo()
        self.expected = Expected(move, played.text, game.board.piece_at(move.frm) or "",
                                 played.side, tuple(self._grid.sort(played.captures)))

    def accept(self, c: Candidate) -> list[Event]:
        """Play the move ``c``: a ``move`` proposal (and ``removed``/``game_over``)."""
        model, window, now = self._model, self._window, self._readings.now
        changed_at = self._readings.changed_at
        removed = {s: changed_at(s) for s in c.removed}
        played = model.play(Move(c.frm, c.to), removed)
        window.moved(c.to)
        self._knocks.moved(c.frm, c.to)
        self._display.view()
        self._check.done()  # play went on: the pieces were as believed
        if self.expected is not None:  # it was the move to make: done, and not revisable
            self.expected = None
            window.close()
        size = self._grid.size
        out: list[Event] = [MoveProposed(
            now, played.move, played.side, played.captures, len(model.game.played),
            round(window.placed_at, 4), played.text, size)]
        out += [PieceRemoved(now, s, round(removed[s], 4), size) for s in c.removed]
        outcome = model.outcome
        if outcome is not None:
            out.append(GameOver(now, outcome))
        return out

    def revise(self, gone: frozenset[int], new: frozenset[int]) -> list[Event] | None:
        """The last move's piece moved on along its line: replace the move (a ``revised``
        proposal); None when the board does not show that."""
        model, window, now = self._model, self._window, self._readings.now
        to = window.target(gone, new, self._knocks)
        last = model.last
        if to is None or last is None:
            return None
        if set(model.pending) != set(last.captures) or not self._finder.colour_ok(to, last.side):
            return None
        was_over = model.outcome is not None
        played = model.revise(to)
        if played is None:
            return None
        window.moved(played.move.to, revision=True)
        self._knocks.moved(played.move.frm, played.move.to)
        self._display.view()
        out: list[Event] = [MoveRevised(
            now, played.move, played.side, played.captures, len(model.game.played),
            round(window.placed_at, 4), played.text, self._grid.size,
            replaces=last.move, replaces_text=last.text)]
        outcome = model.outcome
        if outcome is not None or was_over:
            out.append(GameOver(now, outcome))
        return out

    def take_back(self, settled_at: float) -> list[Event] | None:
        """The board shows the position before the last move: take it back (a ``takeback``
        proposal); None when it does not. One move at a time: occupancy alone cannot tell two
        moves taken back from some illegal moves."""
        model = self._model
        if not model.before or self._readings.occupied != model.before[-1]:
            return None
        played = model.take_back()
        self.expected = None
        self._window.taken_back(settled_at)
        self._knocks.forget()
        self._faults.set(None)
        self._display.view()
        self._check.ask("takeback")
        return [MoveTakenBack(self._readings.now, played.move, played.text, played.side,
                              len(model.game.played) + 1)]
