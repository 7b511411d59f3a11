"""What the tracker shows: the LED frame, the guidance and the state, rebuilt after every run
(a mixin of :class:`~companion.tracker.core.Tracker`, which holds the state read here)."""

from __future__ import annotations

from typing import Any

from .. import messages
from ..feedback import FrameSpec, build_frame
from . import events as ev
from .base import TrackerBase, _pairs
from .events import Guidance, GuidanceKind, TrackerState


class DisplayMixin(TrackerBase):
    """Builds ``_frame``, ``_guidance``, ``_message`` and ``_state`` and emits the ``illegal``,
    ``warning`` and ``leds`` events of a run."""

    def _refresh(self) -> None:
        game, board, pend = self._game, self._game.board, self._pending
        spec = FrameSpec()
        last = game.played[-1] if game.played else None
        G = GuidanceKind
        data: dict[str, Any] = {}
        if self._mode == "setup":
            fill, clear, recolour = self._setup
            spec.setup = [*fill, *clear, *recolour]
            if fill or clear or recolour:
                kind = G.SETUP
                data = {"fill": dict(sorted(fill.items())), "clear": list(clear),
                        "recolour": dict(sorted(recolour.items()))}
            else:
                kind = G.SETUP_COMPLETE
            state = TrackerState.SETUP
        else:
            if last is not None:
                spec.last_from, spec.last_to = last.frm, last.to
            spec.capture = list(pend)
            fault = self._fault
            outcome = self._outcome
            exp = self._expected
            if outcome is not None:
                winner = outcome.winner
                spec.win = [s for s in self._pos if winner is None or board.side_of(s) == winner]
                kind, state = G.GAME_OVER, TrackerState.OVER
                data = {**outcome.to_json(), "winner": winner, **_pairs(pend)}
            elif self._suspended is not None:
                kind, state = G.SUSPENDED, TrackerState.SUSPENDED
                data = {"reason": self._suspended}
            elif fault is not None:
                spec.illegal, spec.setup = fault.illegal, fault.setup
                kind = G.ILLEGAL if fault.kind == ev.ILLEGAL else G.WARNING
                state = TrackerState(fault.kind)
                data = {"code": fault.code, **fault.data}
                if exp is not None:
                    spec.make_from, spec.make_to = (exp.frm,), (exp.to,)
            elif self._guide:
                spec.setup = list(self._guide)
                kind, state, data = G.TAKEBACK, TrackerState.TAKEBACK, _pairs(self._guide)
            elif pend:
                kind, state, data = G.LIFT_CAPTURED, TrackerState.CAPTURE_PENDING, _pairs(pend)
            elif exp is not None:
                kind = G.MAKE_MOVE
                data = {"move": exp.text, "from": exp.frm, "to": exp.to, "piece": exp.piece,
                        "side": exp.side, "captured": list(exp.captured), "lifted": False}
                s = self._lifted
                state = TrackerState.READY if s is None else TrackerState.LIFTED
                spec.make_to = (exp.to,)
                if s == exp.frm:
                    data["lifted"] = True
                else:
                    spec.make_from = (exp.frm,)
                    if s is not None:
                        spec.setup = (s,)
                        data["wrong"], data["wrong_piece"] = s, board.piece_at(s)
            elif self._lifted is not None:
                s = self._lifted
                if last is not None and s == last.to and board.side_of(s) != game.turn:
                    kind, data = G.MOVING_AGAIN, {"square": s, "piece": board.piece_at(s)}
                else:
                    spec.target = [board.name(i) for i in board.destinations(s)]
                    kind = G.LIFTED
                    data = {"side": game.turn, "square": s, "piece": board.piece_at(s)}
                state = TrackerState.LIFTED
            else:
                kind, state, data = G.TO_MOVE, TrackerState.READY, {"side": game.turn}
        frame = build_frame(spec)
        guidance = Guidance(kind, data)
        if guidance != self._guidance:
            self._guidance = guidance
            self._message = messages.guidance_text(guidance)
        self._state = state
        fault, self._new_fault = self._new_fault, None
        if fault is not None:
            if fault.kind == ev.ILLEGAL:
                self._emit(ev.ILLEGAL, code=fault.code, reason=fault.reason, **fault.data,
                           leds=frame)
            else:
                self._emit(ev.WARNING, code=fault.code, reason=fault.reason, **fault.data)
        if frame != self._frame:
            self._frame = frame
            self._emit(ev.LEDS, leds=dict(frame))
