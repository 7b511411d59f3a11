"""What the tracker shows: the LED frame, the guidance (with its English sentence) and the
state, rebuilt after every run from the other parts; the ``illegal``, ``warning`` and ``leds``
events of a run come from here. Squares are named here: the frame and the guidance are made
for the LEDs, the page and ``companion.messages``."""

from __future__ import annotations

from typing import Any

from .. import messages
from ..feedback import FrameSpec, build_frame
from .events import ILLEGAL, Event, FaultFlagged, Guidance, GuidanceKind, LedsChanged, TrackerState
from .faults import Faults
from .model import Expected, PieceModel
from .setup import Setup
from .squares import Grid


class Display:
    """The LED frame (square name -> role), the guidance and the tracker's state. Besides
    faults and the game, it shows what :meth:`view` was last told: a lifted piece's targets or
    the captured pieces to put back during a takeback."""

    def __init__(self, grid: Grid, model: PieceModel, setup: Setup, faults: Faults) -> None:
        self._grid, self._model, self._setup, self._faults = grid, model, setup, faults
        self.frame: dict[str, str] = {}
        self.guidance = Guidance(GuidanceKind.WAITING)
        self.message = messages.guidance_text(self.guidance)
        self.state = TrackerState.SETUP
        self._lifted: int | None = None
        self._guide: dict[int, str] = {}

    def view(self, lifted: int | None = None, guide: dict[int, str] | None = None) -> None:
        """Set what the non-fault display shows: a lifted piece's targets, or the captured
        pieces to put back (takeback guidance)."""
        self._lifted = lifted
        self._guide = guide or {}

    def _pairs(self, pieces: dict[int, str]) -> dict[str, list[str]]:
        """``{"squares": [...], "pieces": [...]}`` (by square name) of square -> piece."""
        squares = self._grid.sort(pieces)
        return {"squares": [self._grid.name(s) for s in squares],
                "pieces": [pieces[s] for s in squares]}

    def refresh(self, t: float, expected: Expected | None, suspended: str | None
                ) -> list[Event]:
        """Rebuild the frame, guidance and state; the events that announce a new fault and a
        changed frame."""
        grid, model = self._grid, self._model
        name = grid.name
        game, board, pend = model.game, model.board, model.pending
        spec = FrameSpec()
        last = model.last
        G = GuidanceKind
        data: dict[str, Any] = {}
        setup = self._setup
        if not setup.playing:
            spec.setup = [name(s) for s in (*(s for s, _ in setup.fill), *setup.clear,
                                            *(s for s, _ in setup.recolour))]
            if not setup.complete:
                kind = G.SETUP
                data = {"fill": {name(s): p for s, p in setup.fill},
                        "clear": [name(s) for s in setup.clear],
                        "recolour": {name(s): p for s, p in setup.recolour}}
            else:
                kind = G.SETUP_COMPLETE
            state = TrackerState.SETUP
        else:
            if last is not None:
                spec.last_from, spec.last_to = name(last.move.frm), name(last.move.to)
            spec.capture = [name(s) for s in pend]
            fault = self._faults.current
            outcome = model.outcome
            if outcome is not None:
                winner = outcome.winner
                spec.win = [name(s) for s in model.position
                            if winner is None or board.side_of(s) == winner]
                kind, state = G.GAME_OVER, TrackerState.OVER
                data = {**outcome.to_json(), "winner": winner, **self._pairs(pend)}
            elif suspended is not None:
                kind, state = G.SUSPENDED, TrackerState.SUSPENDED
                data = {"reason": suspended}
            elif fault is not None:
                spec.illegal = [name(s) for s in fault.illegal]
                spec.setup = [name(s) for s in fault.setup]
                kind = G.ILLEGAL if fault.kind == ILLEGAL else G.WARNING
                state = TrackerState(fault.kind)
                data = {"code": fault.code, **fault.details(grid.size)}
                if expected is not None:
                    spec.make_from = (name(expected.move.frm),)
                    spec.make_to = (name(expected.move.to),)
            elif self._guide:
                spec.setup = [name(s) for s in self._guide]
                kind, state, data = G.TAKEBACK, TrackerState.TAKEBACK, self._pairs(self._guide)
            elif pend:
                kind, state = G.LIFT_CAPTURED, TrackerState.CAPTURE_PENDING
                data = self._pairs(pend)
            elif expected is not None:
                kind, state, data = self._make_move(spec, expected)
            elif self._lifted is not None:
                s = self._lifted
                if last is not None and s == last.move.to and board.side_of(s) != game.turn:
                    kind, data = G.MOVING_AGAIN, {"square": name(s), "piece": board.piece_at(s)}
                else:
                    spec.target = [name(i) for i in board.destinations(s)]
                    kind = G.LIFTED
                    data = {"side": game.turn, "square": name(s), "piece": board.piece_at(s)}
                state = TrackerState.LIFTED
            else:
                kind, state, data = G.TO_MOVE, TrackerState.READY, {"side": game.turn}
        return self._show(t, build_frame(spec), Guidance(kind, data), state)

    def _make_move(self, spec: FrameSpec, exp: Expected
                   ) -> tuple[GuidanceKind, TrackerState, dict[str, Any]]:
        """The guidance and LEDs for the move to make."""
        grid, board = self._grid, self._model.board
        frm, to = grid.name(exp.move.frm), grid.name(exp.move.to)
        data: dict[str, Any] = {
            "move": exp.text, "from": frm, "to": to, "piece": exp.piece, "side": exp.side,
            "captured": grid.name_list(exp.captures), "lifted": False}
        s = self._lifted
        state = TrackerState.READY if s is None else TrackerState.LIFTED
        spec.make_to = (to,)
        if s == exp.move.frm:
            data["lifted"] = True
        else:
            spec.make_from = (frm,)
            if s is not None:
                spec.setup = (grid.name(s),)
                data["wrong"], data["wrong_piece"] = grid.name(s), board.piece_at(s)
        return GuidanceKind.MAKE_MOVE, state, data

    def _show(self, t: float, frame: dict[str, str], guidance: Guidance,
              state: TrackerState) -> list[Event]:
        out: list[Event] = []
        if guidance != self.guidance:
            self.guidance = guidance
            self.message = messages.guidance_text(guidance)
        self.state = state
        fault = self._faults.take_new()
        if fault is not None:
            size = self._grid.size
            reason = messages.fault_reason(fault.code, fault.details(size))
            leds = frame if fault.kind == ILLEGAL else None
            out.append(FaultFlagged(t, fault, reason, leds, size))
        if frame != self.frame:
            self.frame = frame
            out.append(LedsChanged(t, dict(frame)))
        return out
