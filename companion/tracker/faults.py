"""Faults: board states that need the players' attention (illegal moves and warnings), named
with plain-language guidance, and the knocked-piece rules.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..rules import Move
from . import events as ev
from .squares import same_line, touching
from .text import COLOUR_OF, COLOUR_WORD, PIECE_WORD, article, join, pieces_on, side_word

NEVER = -math.inf


@dataclass(frozen=True, slots=True)
class Fault:
    """A board state that needs the players' attention."""

    kind: str  # ev.ILLEGAL or ev.WARNING
    reason: str
    message: str
    illegal: tuple[str, ...] = ()
    setup: tuple[str, ...] = ()
    key: tuple = ()


class FaultsMixin:
    """Fault detection and wording for :class:`~companion.tracker.core.Tracker` (which holds
    the state these methods read: ``_game``, ``_lc``, ``_pending``, ``_colours``, ...)."""

    def _is_knock(self, frm: str, to: str) -> bool:
        lc = self._lc
        return touching(frm, to) and (
            abs(lc.get(frm, NEVER) - lc.get(to, NEVER)) <= self.knock_window
        )

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
            s: self._letter(s) for s, c in self._colours.items()
            if self._letter(s) and c != COLOUR_OF[self._letter(s)]
        }
        if not wrong:
            return None
        if now < self._last_change + self.hold:
            self._want(self._last_change + self.hold)
            return self._fault
        parts = [f"{s} should hold {article(PIECE_WORD[p])}" for s, p in sorted(wrong.items())]
        lead = "Swapped pieces? " if len(wrong) == 2 else "Wrong piece: "
        return Fault(ev.WARNING, f"wrong kind of piece on {join(sorted(wrong))}",
                     lead + "; ".join(parts), setup=tuple(sorted(wrong)),
                     key=("colour", frozenset(wrong)))

    def _knock_pairs(self, gone: frozenset[str], new: frozenset[str]) -> list[tuple[str, str]]:
        """Pieces that look knocked: a new square touching a gone one that emptied at about the
        same time (greedy, each square used once)."""
        board, turn = self._game.board, self._game.turn
        own = [g for g in gone if board.side_of(g) == turn]
        pairs: list[tuple[str, str]] = []
        used: set[str] = set()
        for n in sorted(new):
            for g in sorted(gone):
                if g in used or not self._is_knock(g, n):
                    continue
                if (own == [g] and self._lc.get(g, NEVER) >= self._prev_settle
                        and board.is_legal(Move(board.square(g), board.square(n)))):
                    continue  # a quick one-square move (no other piece in hand), not a knock
                pairs.append((g, n))
                used.add(g)
                break
        return pairs

    def _knock_fault(self, knocks: list[tuple[str, str]]) -> Fault:
        board = self._game.board
        words = [(PIECE_WORD[board.piece_at(g)], g, n) for g, n in knocks]
        squares = tuple(sorted({s for g, n in knocks for s in (g, n)}))
        if len(words) == 1:
            ((w, g, n),) = words
            return Fault(ev.WARNING, f"{article(w)} was knocked from {g} to {n}",
                         f"Knocked piece: put the {w} from {n} back on {g}", setup=squares,
                         key=("knock", frozenset(knocks)))
        what = join(f"the {w} from {n} back on {g}" for w, g, n in words)
        return Fault(ev.WARNING, f"pieces knocked from {join(sorted(g for g, _ in knocks))}",
                     f"Knocked pieces: put {what}", setup=squares,
                     key=("knock", frozenset(knocks)))

    def _classify(self, gone: frozenset[str], new: frozenset[str]) -> Fault:
        """Name the fault the settled diff shows, with guidance to fix it."""
        game, board, pend = self._game, self._game.board, self._pending
        turn = game.turn
        key = (frozenset(gone), frozenset(new))
        words = {s: PIECE_WORD[board.piece_at(s)] for s in gone}
        if pend:
            what = pieces_on(pend)
            cands = self._candidates(gone, new) if new else []
            if cands:
                c = cands[0]
                return Fault(
                    ev.ILLEGAL, f"the {turn} moved before the captured {what} was removed",
                    f"Illegal: remove the captured {what} first, or put the piece back on "
                    f"{c.frm}", illegal=(c.to,), setup=(c.frm,), key=("pending-move", *key))
            if not new and len(gone) == 1:
                (s,) = gone
                if board.side_of(s) == turn:
                    return Fault(
                        ev.WARNING, f"the {turn} started moving before the captured {what} "
                        "was removed", f"Remove the captured {what} first", setup=(s,),
                        key=("pending-lift", *key))
                return Fault(
                    ev.WARNING, f"wrong piece lifted: the {words[s]} on {s} was not captured",
                    f"Wrong piece: put the {words[s]} back on {s}, then lift the captured "
                    f"{what}", setup=(s,), key=("wrong-piece", *key))
        if not new and len(gone) == 1:
            (s,) = gone
            return Fault(
                ev.WARNING, f"the {words[s]} on {s} was lifted out of turn",
                f"Put the {words[s]} back on {s} — {side_word(turn)} to move", setup=(s,),
                key=("lifted", *key))
        if len(gone) == 1 and len(new) == 1:
            (f,), (t,) = gone, new
            reason = self._move_reason(f, t)
            return Fault(ev.ILLEGAL, reason, f"Illegal: {reason} — put the piece back on {f}",
                         illegal=(t,), setup=(f,), key=("move", *key))
        if not gone:
            return Fault(ev.WARNING, f"unexpected piece on {join(sorted(new))}",
                         f"Clear {join(sorted(new))}: no piece belongs there",
                         setup=tuple(sorted(new)), key=("extra", *key))
        back = join(f"the {words[s]} on {s}" for s in sorted(gone))
        if not new:
            return Fault(ev.WARNING, f"pieces missing from {join(sorted(gone))}",
                         f"Put back {back}", setup=tuple(sorted(gone)), key=("missing", *key))
        return Fault(ev.ILLEGAL, "several pieces moved at once",
                     f"Illegal: several pieces moved — put back {back}; clear "
                     f"{join(sorted(new))}", illegal=tuple(sorted(new)),
                     setup=tuple(sorted(gone)), key=("many", *key))

    def _move_reason(self, f: str, t: str) -> str:
        """Why the piece that left ``f`` may not stand on ``t``."""
        game = self._game
        board = game.board
        letter = board.piece_at(f)
        colour = self._colours.get(t)
        if colour and letter and colour != COLOUR_OF[letter]:
            return (f"the piece put on {t} is {COLOUR_WORD[colour]}, but "
                    f"{article(PIECE_WORD[letter])} left {f}")
        last = game.played[-1] if game.played else None
        if (last is not None and f == last.to and same_line(last.frm, t) and t != last.frm
                and set(self._pending) == set(last.captured) and self._outcome is None):
            game.undo()
            reason = game.board.illegal_reason(
                Move(game.board.square(last.frm), game.board.square(t)))
            game.play(Move(game.board.square(last.frm), game.board.square(last.to)))
            self._position_changed()
            if reason:
                return reason
        reason = board.illegal_reason(Move(board.square(f), board.square(t)))
        if reason and reason.startswith("it is the "):
            side = board.side_of(f)
            return f"it is the {game.turn}' turn, and that piece belongs to the {side}"
        return reason or "the piece was moved before the other side's move was finished"
