"""The judge: during play, one round of inference over the settled board — what its difference
from the game means: captured pieces lifted off or put back, a move, a revision, a takeback, a
piece in the air, or a fault (the rules are in :mod:`companion.tracker.core`'s docstring).

It decides over the tracker's parts and changes only them; the
:class:`~companion.tracker.core.Tracker` runs it until the position stops changing.
"""

from __future__ import annotations

from ..rules.game import PlayedMove
from .events import Event, PieceRemoved, PieceRestored
from .faults import Faults
from .knocks import Knocks
from .model import PieceModel
from .moves import MoveFinder, Proposer
from .readings import Deadline, Readings, Timing
from .revisions import RevisionWindow
from .shown import Display
from .square_relations import Grid


class Judge:
    """One round of inference (:meth:`step`) over the tracker's parts."""

    def __init__(self, timing: Timing, grid: Grid, readings: Readings, model: PieceModel,
                 deadline: Deadline, window: RevisionWindow, knocks: Knocks, faults: Faults,
                 display: Display, finder: MoveFinder, proposer: Proposer) -> None:
        self.timing = timing
        self._grid = grid
        self._readings = readings
        self._model = model
        self._deadline = deadline
        self._window = window
        self._knocks = knocks
        self._faults = faults
        self._display = display
        self._finder = finder
        self._proposer = proposer

    def _settled(self, sq: int) -> bool:
        return self._readings.settled(sq, self.timing.settle)

    def step(self, now: float, suspended: str | None, out: list[Event]) -> bool:
        """One round of inference at ``now``, its events added to ``out``; True when the
        position changed and it should run again. While ``suspended`` the board is watched,
        not judged."""
        model, readings, knocks = self._model, self._readings, self._knocks
        cur = readings.occupied
        base = model.base
        gone, new = base - cur, cur - base
        knocks.away, knocks.arrived = gone, new
        if not gone and not new:  # the board shows the game (most scans)
            self._display.view()
            faults = self._faults
            faults.set(faults.colour_fault(now))
            return False
        timing, display, faults, window = self.timing, self._display, self._faults, self._window
        deadline = self._deadline
        board, pend = model.board, model.pending
        turn = board.turn
        changed_at = readings.changed_at
        done = self._grid.sort(s for s in gone if s in pend and self._settled(s))
        if done:
            size = self._grid.size
            for s in done:
                model.lifted_off(s, changed_at(s))
                out.append(PieceRemoved(now, s, round(changed_at(s), 4), size))
            window.close()
            display.view()
            return True
        for s in gone & pend.keys():
            deadline.want(changed_at(s) + timing.settle)
        gone_x = gone - pend.keys()
        if not gone_x and not new:
            return False
        if suspended is not None:
            display.view()  # watched, not judged: a standing fault stays (not flagged twice)
            return False
        ts_all = max(changed_at(s) for s in gone_x | new)
        stable = now >= ts_all + timing.settle
        over = model.outcome is not None
        if stable and window.revisable:
            if any(board.side_of(s) == turn and changed_at(s) >= window.rested_at
                   for s in gone_x):
                window.close()  # the opponent has started
            elif window.is_open() and (revised := self._proposer.revise(gone_x, new)):
                out += revised
                return True
        if new and not over and not pend:
            own = [s for s in gone_x if board.side_of(s) == turn]
            # wait for the mover's squares to settle, not for pieces knocked meanwhile
            landed = [n for n in new if not any(knocks.is_knock(g, n) for g in gone_x)] or new
            ts_move = max(changed_at(s) for s in (*own, *landed))
            if now >= ts_move + timing.settle:
                cands = self._finder.candidates(gone_x, new)
                exp = self._proposer.expected
                if len(cands) == 1 and (exp is None or (cands[0].frm, cands[0].to)
                                        == (exp.move.frm, exp.move.to)):
                    calm = self._finder.calm_since(cands[0]) + timing.settle
                    if now >= calm:
                        out += self._proposer.accept(cands[0])
                        return True
                    deadline.want(calm)
            else:
                deadline.want(ts_move + timing.settle)
        if not stable:
            deadline.want(ts_all + timing.settle)
            return False
        taken_back = self._proposer.take_back(ts_all)
        if taken_back:
            out += taken_back
            return True
        if over:
            display.view()
            faults.set(None)
            return False
        last = model.last
        if last is not None:
            caps = model.captured_pieces(last)
            if not gone_x and new <= caps.keys() - pend.keys():
                size = self._grid.size
                for s in self._grid.sort(new):
                    model.put_back(s, caps[s])
                    out.append(PieceRestored(now, s, size))
                window.close()
                return True
            prev = model.before[-1]
            missing = prev - cur
            if cur <= prev and missing <= caps.keys():
                display.view(guide={s: caps[s] for s in self._grid.sort(missing)})
                faults.set(None)
                return False
        return self._judge_fault(now, gone_x, new, ts_all, last)

    def _judge_fault(self, now: float, gone_x: frozenset[int], new: frozenset[int],
                     ts_all: float, last: PlayedMove | None) -> bool:
        """The board is settled and shows no move: a piece in the air, or a fault once nobody
        has touched the board for ``hold``."""
        model, faults = self._model, self._faults
        board, turn, pend = model.board, model.turn, model.pending
        pairs = self._knocks.pairs(gone_x, new)
        rest_gone = gone_x - {g for g, _ in pairs}
        rest_new = new - {n for _, n in pairs}
        lifted = None
        if not rest_new and len(rest_gone) == 1:
            (s,) = rest_gone
            if (not pend and board.side_of(s) == turn) or (
                last is not None and s == last.move.to and self._window.is_open()
            ):
                lifted = s
        self._display.view(lifted=lifted)
        if lifted is not None and not pairs:
            faults.set(None)
        else:
            faults.judge(now, gone_x, new, ts_all, pairs, lifted, self._finder.candidates,
                         self._proposer.expected, self._window.is_open())
        return False
