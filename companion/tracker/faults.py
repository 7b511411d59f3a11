"""Faults: board states that need the players' attention (illegal moves and warnings) as data
(:class:`~companion.tracker.events.Fault`: a stable code plus squares and pieces;
``companion.messages`` words them), flagged once each."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ..rules import Move
from .event_json import FaultFields
from .events import ILLEGAL, WARNING, Fault, Knock
from .model import COLOUR_OF, Candidate, Expected, PieceModel
from .readings import Deadline, Readings, Timing
from .square_relations import Grid


class Faults:
    """The fault shown now (``current``) and one flagged but not yet announced; the judgement
    of what is wrong with a settled board."""

    def __init__(self, timing: Timing, grid: Grid, readings: Readings, model: PieceModel,
                 deadline: Deadline) -> None:
        self._timing, self._grid, self._readings = timing, grid, readings
        self._model, self._deadline = model, deadline
        self.current: Fault | None = None
        self._new: Fault | None = None

    def reset(self) -> None:
        """A new model: nothing flagged."""
        self.current = None
        self._new = None

    def set(self, fault: Fault | None) -> None:
        """Show ``fault`` (flag it, unless it is the one shown already), or clear it."""
        if fault is None:
            self.current = None
        elif self.current is None or fault.key != self.current.key:
            self.current = fault
            self._new = fault

    def take_new(self) -> Fault | None:
        """The fault flagged since the last call, to announce (once)."""
        fault, self._new = self._new, None
        return fault

    # -- judging ------------------------------------------------------------------------
    def judge(self, now: float, gone: frozenset[int], new: frozenset[int], changed_at: float,
              knocks: list[tuple[int, int]], lifted: int | None,
              candidates: Callable[[frozenset[int], frozenset[int]], list[Candidate]],
              expected: Expected | None, revision_open: bool) -> None:
        """The settled board differs from the game (``gone``, ``new``; last changed at
        ``changed_at``) and shows no move: flag what is wrong once nobody has touched the board
        for ``hold`` (``lift_hold`` for a piece of the other side only lifted), unless it is
        the standing fault being put right. ``knocks``: pieces that look knocked; ``lifted``:
        a piece of the side to move in the air."""
        fault, pend, timing = self.current, self._model.pending, self._timing
        if fault is not None and gone <= fault.gone and new <= fault.new:
            return  # being put right: the fault stands (flagged once), nothing new
        quiet = max(changed_at, self._readings.last_change)  # wait until nobody touches
        hold = timing.hold
        if not new and not pend and len(gone) == 1 and lifted is None:
            hold = max(hold, timing.lift_hold)  # a piece of the other side, only lifted
        if now < quiet + hold:
            self._deadline.want(quiet + hold)
            return
        rest_gone = gone - {g for g, _ in knocks}
        rest_new = new - {n for _, n in knocks}
        if knocks and (lifted is not None or not (rest_gone or rest_new)):
            fault = self.knock_fault(knocks)
        else:
            fault = self.classify(rest_gone, rest_new, candidates, expected, revision_open)
        self.set(replace(fault, gone=gone, new=new))

    def colour_fault(self, now: float) -> Fault | None:
        """Pieces of the wrong colour where the model has one (polarity boards), once nobody
        has touched the board for ``hold``."""
        readings = self._readings
        if not readings.colours:
            return None
        wrong = {
            s: letter for s, c in readings.colours.items()
            if (letter := self._model.letter(s)) and c != COLOUR_OF[letter]
        }
        if not wrong:
            return None
        if now < readings.last_change + self._timing.hold:
            self._deadline.want(readings.last_change + self._timing.hold)
            return self.current
        squares = tuple(self._grid.sort(wrong))
        return Fault(WARNING, "wrong_colour", squares=squares,
                     pieces=tuple(wrong[s] for s in squares), setup=squares,
                     key=("colour", frozenset(wrong)))

    def knock_fault(self, knocks: list[tuple[int, int]]) -> Fault:
        """The warning for knocked pieces."""
        board = self._model.board
        squares = tuple(self._grid.sort({s for g, n in knocks for s in (g, n)}))
        return Fault(WARNING, "knocked",
                     knocks=tuple(Knock(g, n, board.piece_at(g)) for g, n in knocks),
                     squares=squares, setup=squares, key=("knock", frozenset(knocks)))

    def classify(self, gone: frozenset[int], new: frozenset[int],
                 candidates: Callable[[frozenset[int], frozenset[int]], list[Candidate]],
                 expected: Expected | None, revision_open: bool) -> Fault:
        """Name the fault the settled difference shows (``gone``: pieces missing, ``new``:
        pieces where none belongs), with the data to fix it."""
        model, grid = self._model, self._grid
        board, pend, turn = model.board, model.pending, model.turn
        key = (frozenset(gone), frozenset(new))
        if pend:
            pending = tuple(grid.sort(pend))
            pieces = tuple(pend[s] for s in pending)
            cands = candidates(gone, new) if new else []
            if cands:
                c = cands[0]
                return Fault(ILLEGAL, "capture_pending", frm=c.frm, to=c.to,
                             piece=board.piece_at(c.frm), turn=turn, squares=pending,
                             pieces=pieces, illegal=(c.to,), setup=(c.frm,),
                             key=("pending-move", *key))
            if not new and len(gone) == 1:
                (s,) = gone
                if board.side_of(s) == turn:
                    return Fault(WARNING, "lifted_before_captures_removed", square=s,
                                 piece=board.piece_at(s), turn=turn, squares=pending,
                                 pieces=pieces, setup=(s,), key=("pending-lift", *key))
                return Fault(WARNING, "wrong_piece_lifted", square=s, piece=board.piece_at(s),
                             squares=pending, pieces=pieces, setup=(s,),
                             key=("wrong-piece", *key))
        if not new and len(gone) == 1:
            (s,) = gone
            return Fault(WARNING, "lifted_out_of_turn", square=s, piece=board.piece_at(s),
                         turn=turn, setup=(s,), key=("lifted", *key))
        if len(gone) == 1 and len(new) == 1:
            (f,), (t,) = gone, new
            code, fields = self._move_fault(f, t, expected, revision_open)
            return Fault(ILLEGAL, code, frm=f, to=t, piece=board.piece_at(f), illegal=(t,),
                         setup=(f,), key=("move", *key), **fields)
        if not gone:
            squares = tuple(grid.sort(new))
            return Fault(WARNING, "unexpected_piece", squares=squares, setup=squares,
                         key=("extra", *key))
        missing = tuple(grid.sort(gone))
        pieces = tuple(model.piece(s) for s in missing)
        if not new:
            return Fault(WARNING, "pieces_missing", squares=missing, pieces=pieces,
                         setup=missing, key=("missing", *key))
        return Fault(ILLEGAL, "several_pieces", squares=missing, pieces=pieces,
                     placed=tuple(grid.sort(new)), illegal=tuple(grid.sort(new)),
                     setup=missing, key=("many", *key))

    def _move_fault(self, f: int, t: int, expected: Expected | None,
                    revision_open: bool) -> tuple[str, FaultFields]:
        """Why the piece that left ``f`` may not stand on ``t``: a code and the fault's fields
        its wording needs."""
        model = self._model
        letter = model.board.piece_at(f)
        colour = self._readings.colours.get(t)
        if colour and letter and colour != COLOUR_OF[letter]:
            return "wrong_piece_placed", {"colour": colour}
        if expected is not None:
            return "not_the_move_to_make", {"expected": expected.move,
                                            "expected_text": expected.text}
        last = model.last
        if (last is not None and f == last.move.to
                and self._grid.on_line(last.move.frm, last.move.to, t)
                and t != last.move.frm and revision_open
                and set(model.pending) == set(last.captures) and model.outcome is None):
            why = model.illegal_instead_of_last(Move(last.move.frm, t))
            if why:
                return why
        why = model.illegal(Move(f, t))
        if why is None:
            return "moved_too_early", {}
        return why
