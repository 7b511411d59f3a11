"""Faults: board states that need the players' attention (illegal moves and warnings) as data
(a stable code plus squares and pieces; ``companion.messages`` words them), and the
knocked-piece rules.
"""

from __future__ import annotations

from typing import Any

from ..rules import Move
from . import events as ev
from .base import COLOUR_OF, NEVER, Fault, TrackerBase, _pairs
from .squares import on_line, touching


class FaultsMixin(TrackerBase):
    """Fault detection and wording for :class:`~companion.tracker.core.Tracker` (which holds
    the state these methods read: ``_game``, ``_lc``, ``_pending``, ``_colours``, ...)."""

    def _is_knock(self, frm: str, to: str) -> bool:
        """Whether the piece that left ``frm`` may have been knocked onto ``to``: a touching
        square, filled at about the same time, while the hand was busy with another piece."""
        lc = self._lc
        t = lc.get(frm, NEVER)
        return (touching(frm, to) and abs(t - lc.get(to, NEVER)) <= self.knock_window
                and self._busy(t, frm, to))

    def _busy(self, t: float, *exclude: str) -> bool:
        """Whether a hand was busy with another piece (not on ``exclude``) at time ``t``, give
        or take the knock window: a piece is off its square since before then (in the air), a
        piece was put down on a new square then, the last move's piece was being carried then
        (from leaving its square to coming to rest), or a captured piece was lifted off then."""
        kw = self.knock_window
        lc = self._lc
        for s in self._away:
            if s not in exclude and lc.get(s, NEVER) <= t + kw:
                return True
        for s in self._arrived:
            if s not in exclude and abs(lc.get(s, NEVER) - t) <= kw:
                return True
        played = self._game.played
        if played:
            last = played[-1]
            lifted, rested = self._carried
            if last.frm not in exclude and last.to not in exclude and \
                    lifted - kw <= t <= rested + kw:
                return True
        return any(s not in exclude and abs(tr - t) <= kw for s, tr in self._removed.items())

    def _knocks_explain(self, gone: set[str], new: set[str], turn: str) -> bool:
        """Whether the leftover squares are knocked pieces: every new square matched to a gone
        neighbour that emptied at about the same time, no unmatched piece of the mover."""
        if len(new) > 3:
            return False
        if not new:
            return all(self._game.board.side_of(s) != turn for s in gone)
        sq = next(iter(new))
        for g in gone:
            if self._is_knock(g, sq) and self._knocks_explain(gone - {g}, new - {sq}, turn):
                return True
        return False

    # -- faults -------------------------------------------------------------------------
    def _set_fault(self, fault: Fault | None) -> None:
        if fault is None:
            self._fault = None
        elif self._fault is None or fault.key != self._fault.key:
            self._fault = fault
            self._new_fault = fault

    def _colour_fault(self, now: float) -> Fault | None:
        if not self._colours:
            return None
        wrong = {
            s: letter for s, c in self._colours.items()
            if (letter := self._letter(s)) and c != COLOUR_OF[letter]
        }
        if not wrong:
            return None
        if now < self._last_change + self.hold:
            self._want(self._last_change + self.hold)
            return self._fault
        return Fault(ev.WARNING, "wrong_colour", _pairs(wrong), setup=tuple(sorted(wrong)),
                     key=("colour", frozenset(wrong)))

    def _knock_pairs(self, gone: frozenset[str], new: frozenset[str]) -> list[tuple[str, str]]:
        """Pieces that look knocked: a new square touching a gone one that emptied at about the
        same time (greedy, each square used once)."""
        pairs: list[tuple[str, str]] = []
        used: set[str] = set()
        for n in sorted(new):
            for g in sorted(gone):
                if g in used or not self._is_knock(g, n):
                    continue
                pairs.append((g, n))
                used.add(g)
                break
        return pairs

    def _knock_fault(self, knocks: list[tuple[str, str]]) -> Fault:
        board = self._game.board
        squares = tuple(sorted({s for g, n in knocks for s in (g, n)}))
        data = {"knocks": [{"from": g, "to": n, "piece": board.piece_at(g)} for g, n in knocks],
                "squares": list(squares)}
        return Fault(ev.WARNING, "knocked", data, setup=squares,
                     key=("knock", frozenset(knocks)))

    def _classify(self, gone: frozenset[str], new: frozenset[str]) -> Fault:
        """Name the fault the settled diff shows, with the data to fix it."""
        game, board, pend = self._game, self._game.board, self._pending
        turn = game.turn
        key = (frozenset(gone), frozenset(new))
        if pend:
            captured = _pairs(pend)
            cands = self._candidates(gone, new) if new else []
            if cands:
                c = cands[0]
                return Fault(
                    ev.ILLEGAL, "capture_pending",
                    {"from": c.frm, "to": c.to, "piece": board.piece_at(c.frm), "turn": turn,
                     **captured},
                    illegal=(c.to,), setup=(c.frm,), key=("pending-move", *key))
            if not new and len(gone) == 1:
                (s,) = gone
                if board.side_of(s) == turn:
                    return Fault(
                        ev.WARNING, "lifted_before_captures_removed",
                        {"square": s, "piece": board.piece_at(s), "turn": turn, **captured},
                        setup=(s,), key=("pending-lift", *key))
                return Fault(
                    ev.WARNING, "wrong_piece_lifted",
                    {"square": s, "piece": board.piece_at(s), **captured},
                    setup=(s,), key=("wrong-piece", *key))
        if not new and len(gone) == 1:
            (s,) = gone
            return Fault(ev.WARNING, "lifted_out_of_turn",
                         {"square": s, "piece": board.piece_at(s), "turn": turn},
                         setup=(s,), key=("lifted", *key))
        if len(gone) == 1 and len(new) == 1:
            (f,), (t,) = gone, new
            code, data = self._move_fault(f, t)
            return Fault(ev.ILLEGAL, code, {"from": f, "to": t, "piece": board.piece_at(f),
                                            **data},
                         illegal=(t,), setup=(f,), key=("move", *key))
        if not gone:
            squares = sorted(new)
            return Fault(ev.WARNING, "unexpected_piece", {"squares": squares},
                         setup=tuple(squares), key=("extra", *key))
        missing = _pairs({s: self._piece(s) for s in gone})
        if not new:
            return Fault(ev.WARNING, "pieces_missing", missing,
                         setup=tuple(missing["squares"]), key=("missing", *key))
        return Fault(ev.ILLEGAL, "several_pieces", {**missing, "new": sorted(new)},
                     illegal=tuple(sorted(new)), setup=tuple(missing["squares"]),
                     key=("many", *key))

    def _move_fault(self, f: str, t: str) -> tuple[str, dict[str, Any]]:
        """Why the piece that left ``f`` may not stand on ``t``: a code and its data."""
        game = self._game
        board = game.board
        letter = board.piece_at(f)
        colour = self._colours.get(t)
        if colour and letter and colour != COLOUR_OF[letter]:
            return "wrong_piece_placed", {"colour": colour}
        expected = self._expected
        if expected is not None:
            return "not_the_move_to_make", {
                "expected": expected.text, "expected_from": expected.frm,
                "expected_to": expected.to}
        last = game.played[-1] if game.played else None
        if (last is not None and f == last.to and on_line(last.frm, last.to, t)
                and t != last.frm and self._revision_open()
                and set(self._pending) == set(last.captured) and self._outcome is None):
            game.undo()
            why = game.board.illegal_code(
                Move(game.board.square(last.frm), game.board.square(t)))
            game.play(Move(game.board.square(last.frm), game.board.square(last.to)))
            self._position_changed()
            if why:
                return why
        why = board.illegal_code(Move(board.square(f), board.square(t)))
        if why is None:
            return "moved_too_early", {}
        return why
