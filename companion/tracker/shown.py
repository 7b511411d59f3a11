"""What the tracker shows: the LED frame, the guidance (with its English sentence) and the
state, rebuilt after every run from the other parts; the ``illegal``, ``warning`` and ``leds``
events of a run come from here. Squares are named here: the frame and the guidance are made
for the LEDs, the page and ``companion.messages``."""

from __future__ import annotations

from .. import messages
from ..feedback import FrameSpec, build_frame
from .event_json import GuidanceData
from .events import (
    ILLEGAL,
    Event,
    FaultFlagged,
    Guidance,
    GuidanceKind,
    LedsChanged,
    TrackerState,
)
from .faults import Faults
from .model import Expected, PieceModel
from .readings import Readings
from .setup import PieceCheck, Setup
from .square_relations import Grid

#: A guidance's kind and data and the tracker's state.
View = tuple[GuidanceKind, TrackerState, GuidanceData]


class Display:
    """The LED frame (square name -> role), the guidance and the tracker's state. Besides
    faults and the game, it shows what :meth:`view` was last told: a lifted piece's targets or
    the captured pieces to put back during a takeback."""

    def __init__(self, grid: Grid, readings: Readings, model: PieceModel, setup: Setup,
                 check: PieceCheck, faults: Faults) -> None:
        self._grid, self._readings, self._model = grid, readings, model
        self._setup, self._check, self._faults = setup, check, faults
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

    def _pairs(self, pieces: dict[int, str]) -> GuidanceData:
        """``{"squares": [...], "pieces": [...]}`` (by square name) of square -> piece."""
        squares = self._grid.sort(pieces)
        return {"squares": [self._grid.name(s) for s in squares],
                "pieces": [pieces[s] for s in squares]}

    def refresh(self, t: float, expected: Expected | None, suspended: str | None,
                reading: bool = False) -> list[Event]:
        """Rebuild the frame, guidance and state (``reading``: the board is being read as a
        new position); the events that announce a new fault and a changed frame."""
        spec = FrameSpec()
        view: View
        if reading:
            view = self._reading_view()
        elif not self._setup.playing:
            view = self._setup_view(spec)
        else:
            view = self._play_view(spec, expected, suspended)
        kind, state, data = view
        return self._show(t, build_frame(spec), Guidance(kind, data), state)

    def _reading_view(self) -> View:
        """Any position may be set up: the board's reading, nothing lit."""
        names, readings = self._grid.names, self._readings
        squares = self._grid.sort(readings.occupied)
        data: GuidanceData = {"squares": [names[s] for s in squares],
                              "colours": {names[s]: readings.colours[s] for s in squares
                                          if s in readings.colours}}
        return GuidanceKind.READING, TrackerState.READING, data

    def _setup_view(self, spec: FrameSpec) -> View:
        """The board does not match the game yet (or has just come to match it)."""
        name = self._grid.names.__getitem__
        setup = self._setup
        # a piece a takeback carries home shows as a move to make: its square and its home
        spec.make_from = [name(f) for f, _, _ in setup.back if f in setup.clear]
        spec.make_to = [name(t) for _, t, _ in setup.back]
        spec.setup = [name(s) for s in (*(s for s, _ in setup.fill), *setup.clear,
                                        *(s for s, _ in setup.recolour))]
        if setup.complete:
            return GuidanceKind.SETUP_COMPLETE, TrackerState.SETUP, {}
        return GuidanceKind.SETUP, TrackerState.SETUP, {
            "fill": {name(s): p for s, p in setup.fill},
            "clear": [name(s) for s in setup.clear],
            "recolour": {name(s): p for s, p in setup.recolour},
            "back": [{"piece": p, "from": name(f), "to": name(t)} for f, t, p in setup.back]}

    def _play_view(self, spec: FrameSpec, expected: Expected | None, suspended: str | None
                   ) -> View:
        """The game is on (or over): in priority, its end, a suspension, a fault, a takeback,
        captured pieces to lift, the move to make, a lifted piece, a check, whose turn."""
        grid, model = self._grid, self._model
        name = grid.names.__getitem__
        board, pend, last = model.board, model.pending, model.last
        turn = board.turn
        G = GuidanceKind
        if last is not None:
            spec.last_from, spec.last_to = name(last.move.frm), name(last.move.to)
        spec.capture = [name(s) for s in pend]
        fault = self._faults.current
        outcome = model.outcome
        if outcome is not None:
            winner = outcome.winner
            spec.win = [name(s) for s in model.position
                        if winner is None or board.side_of(s) == winner]
            data: GuidanceData = {"result": outcome.result, "reason": str(outcome.termination),
                                  "winner": winner}
            data.update(self._pairs(pend))
            return G.GAME_OVER, TrackerState.OVER, data
        if suspended is not None:
            return G.SUSPENDED, TrackerState.SUSPENDED, {"reason": suspended}
        if fault is not None:
            spec.illegal = [name(s) for s in fault.illegal]
            spec.setup = [name(s) for s in fault.setup]
            if expected is not None:
                spec.make_from = (name(expected.move.frm),)
                spec.make_to = (name(expected.move.to),)
            data = {"code": fault.code}
            fault.add_details(data, grid.size)
            return G.ILLEGAL if fault.kind == ILLEGAL else G.WARNING, TrackerState(fault.kind), data
        if self._guide:
            spec.setup = [name(s) for s in self._guide]
            return G.TAKEBACK, TrackerState.TAKEBACK, self._pairs(self._guide)
        if pend:
            return G.LIFT_CAPTURED, TrackerState.CAPTURE_PENDING, self._pairs(pend)
        if expected is not None:
            return self._make_move(spec, expected)
        s = self._lifted
        if s is not None:
            if last is not None and s == last.move.to and board.side_of(s) != turn:
                return G.MOVING_AGAIN, TrackerState.LIFTED, {"square": name(s),
                                                             "piece": board.piece_at(s)}
            spec.target = [name(i) for i in board.destinations(s)]
            return G.LIFTED, TrackerState.LIFTED, {"side": turn, "square": name(s),
                                                   "piece": board.piece_at(s)}
        if self._check.reason is not None:
            light = {s: p for s in model.position if (p := board.piece_at(s)) in ("T", "K")}
            spec.check = [name(s) for s in light]
            data = {"reason": self._check.reason, "side": turn}
            data.update(self._pairs(light))
            return G.CHECK_PIECES, TrackerState.READY, data
        return G.TO_MOVE, TrackerState.READY, {"side": turn}

    def _make_move(self, spec: FrameSpec, exp: Expected
                   ) -> View:
        """The guidance and LEDs for the move to make."""
        grid, board = self._grid, self._model.board
        frm, to = grid.name(exp.move.frm), grid.name(exp.move.to)
        data: GuidanceData = {
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
