"""Revisions (the last move's piece moved on while the mover's hand was still on it) and
takebacks by hand (the board restored to the position before the last move): a mixin of
:class:`~companion.tracker.core.Tracker`, which holds the state read here."""

from __future__ import annotations

from ..rules import Move
from . import events as ev
from .base import NEVER, TrackerBase
from .squares import line, on_line


class RevisionsMixin(TrackerBase):
    """Replacing or taking back the last move."""

    def _revision_open(self) -> bool:
        """Whether the last move may still be revised: the opponent has not started, and its
        piece has rested on its square for at most ``revise_window`` (it is still there, or it
        left within that time: the mover's hand was still on it)."""
        played = self._game.played
        if not self._revisable or not played:
            return False
        to = played[-1].to
        left = self._now if to in self._cur else self._lc.get(to, NEVER)
        return left <= self._prev_settle + self.revise_window

    def _revise_target(self, gone: frozenset[str], new: frozenset[str]) -> str | None:
        """The square the last move's piece moved on to along its line, if the diff shows
        exactly that (pieces knocked meanwhile aside) and the hand kept moving (no pause longer
        than ``revise_window`` after it left); None otherwise."""
        played = self._game.played
        if not played or played[-1].to not in gone:
            return None
        last = played[-1]
        rest_gone = set(gone) - {last.to}
        found = [
            t for t in new
            if t != last.frm and on_line(last.frm, last.to, t)
            and not any(self._is_knock(g, t) for g in rest_gone)  # a knocked piece landed on t?
            and self._knocks_explain(rest_gone, set(new) - {t}, self._game.turn)
        ]
        if len(found) != 1:
            return None
        to = found[0]
        lc, size = self._lc, self._game.rules.size
        left = lc.get(last.to, NEVER)
        times = sorted(t for t in (lc.get(s, NEVER) for s in line(last.to, to, size)[1:])
                       if t >= left)
        if any(b - a > self.revise_window for a, b in zip([left, *times], times)):
            return None  # put down long after it was lifted: not the same movement
        return to

    def _try_revise(self, gone: frozenset[str], new: frozenset[str]) -> bool:
        """The last move's piece moved on along its line: replace the move."""
        game = self._game
        to = self._revise_target(gone, new)
        if to is None:
            return False
        last = game.played[-1]
        if set(self._pending) != set(last.captured) or not self._colour_ok(to, last.side):
            return False
        was_over = self._outcome is not None
        game.undo()
        board = game.board
        move = Move(board.square(last.frm), board.square(to))
        if not board.is_legal(move):
            game.play(Move(board.square(last.frm), board.square(last.to)))
            return False
        self._preview.clear()
        played = game.play(move)
        self._after_move(played, ())
        self._emit(ev.REVISED, replaces=last.text, **self._move_data(played))
        outcome = self._outcome
        if outcome is not None:
            self._emit(ev.GAME_OVER, **outcome.to_json())
        elif was_over:
            self._emit(ev.GAME_OVER, result="ongoing", reason="revised")
        return True

    def _try_takeback(self, ts: float) -> bool:
        """The board shows the position before the last move: take it back. (One move at a
        time: occupancy alone cannot tell two moves taken back from some illegal moves.)"""
        stack = self._stack
        if stack and self._cur == stack[-1]:
            played = self._game.undo()
            stack.pop()
            self._emit(ev.TAKEBACK, move=played.text, side=played.side,
                       ply=len(self._game.played) + 1)
            self._expected = None
            self._preview.clear()
            self._position_changed()
            self._pending = {}
            self._revisable = False
            self._prev_settle = ts
            self._carried = (NEVER, NEVER)
            self._fault = None
            self._view()
            return True
        return False
