"""What the tracker tells the session, the page, the store and the replay: typed events, states
and guidance (see docs/events.md for every kind, code and field).

Every event is a frozen dataclass with the time ``t`` and a class-level :class:`EventKind`.
Squares are ints (``rank * size + file``) and a move is a :class:`~companion.rules.Move`; the
events that name squares carry the board ``size`` so that :meth:`Event.to_json` (one line of
``replay --events``) and :attr:`Event.data` (the same without ``t`` and ``event``: what the
session stores and logs) can name them. Those two are derived views, made at the edge.

The proposals (:class:`MoveProposed`, :class:`MoveRevised`, :class:`MoveTakenBack`;
:class:`GameOver` follows from them) describe what the tracker concluded about its own private
model of the game; the session applies them to the real game with :func:`apply_proposal` (or
refuses them and calls ``tracker.reset``).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar

from ..rules import Move, Outcome
from ..rules.game import Game
from ..squares import square_name
from .event_json import (
    EventData,
    FaultData,
    FaultDetails,
    GuidanceData,
    GuidanceJSON,
    LedsData,
    MoveData,
    OutcomeData,
    ReadyData,
    RemovedData,
    RevisedData,
    SetupData,
    SquareData,
    TakebackData,
)


class EventKind(StrEnum):
    """Event kinds. The first five are fixed by the replay interface (``replay --events``)."""

    MOVE = "move"            #: :class:`MoveProposed`
    LEDS = "leds"            #: :class:`LedsChanged`
    REMOVED = "removed"      #: :class:`PieceRemoved`
    ILLEGAL = "illegal"      #: :class:`FaultFlagged` of an illegal move or state
    GAME_OVER = "game_over"  #: :class:`GameOver`
    WARNING = "warning"      #: :class:`FaultFlagged` of a fault that is not an illegal move
    REVISED = "revised"      #: :class:`MoveRevised`
    TAKEBACK = "takeback"    #: :class:`MoveTakenBack`
    RESTORED = "restored"    #: :class:`PieceRestored`
    SETUP = "setup"          #: :class:`SetupNeeded`
    READY = "ready"          #: :class:`Ready`


class TrackerState(StrEnum):
    """What the tracker is waiting for (``tracker.state``)."""

    SETUP = "setup"                      #: the board does not match the game yet
    READY = "ready"                      #: waiting for the side to move
    LIFTED = "lifted"                    #: a piece is in the air
    CAPTURE_PENDING = "capture_pending"  #: captured pieces still stand on the board
    TAKEBACK = "takeback"                #: captured pieces are being put back
    WARNING = "warning"                  #: a warning is shown
    ILLEGAL = "illegal"                  #: an illegal move is shown
    OVER = "over"                        #: the game has ended
    SUSPENDED = "suspended"              #: the session suspended judging (see Tracker.suspend)
    READING = "reading"                  #: the board defines a new position (Tracker.read_board)


class GuidanceKind(StrEnum):
    """What the guidance for the players is about (``tracker.guidance.kind``)."""

    WAITING = "waiting"                  #: no scan seen yet
    SETUP = "setup"                      #: fill, clear, recolour: make the board match
    SETUP_COMPLETE = "setup_complete"    #: the board matches; play starts once it is still
    TO_MOVE = "to_move"                  #: side: that side is to move
    LIFTED = "lifted"                    #: side, square, piece: a piece of the side to move is up
    MOVING_AGAIN = "moving_again"        #: square, piece: the piece just moved is up again
    MAKE_MOVE = "make_move"              #: the move to make (see Tracker.expect)
    LIFT_CAPTURED = "lift_captured"      #: squares, pieces: captured pieces to lift off
    TAKEBACK = "takeback"                #: squares, pieces: captured pieces to put back
    ILLEGAL = "illegal"                  #: code and its data: an illegal move to undo
    WARNING = "warning"                  #: code and its data: a fault to fix
    GAME_OVER = "game_over"              #: result, reason, winner, squares/pieces still to lift
    SUSPENDED = "suspended"              #: reason: no move is accepted until resumed
    CHECK_PIECES = "check_pieces"        #: reason, squares, pieces (defenders and the king):
    #                                       check the pieces' kinds (Tracker(check_pieces=True))
    READING = "reading"                  #: squares (occupied), colours: set up any position


@dataclass(frozen=True, slots=True)
class Guidance:
    """What the players should do now, as the page's data (squares named: this is made for
    the page and ``companion.messages``, which makes sentences of it)."""

    kind: GuidanceKind
    data: GuidanceData = field(default_factory=lambda: GuidanceData())

    def to_json(self) -> GuidanceJSON:
        """``{"kind": ..., **data}``."""
        return {"kind": str(self.kind), **self.data}


def _names(squares: tuple[int, ...] | list[int], size: int) -> list[str]:
    return [square_name(s, size) for s in squares]


# -- faults ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Knock:
    """A piece knocked from ``frm`` onto the touching square ``to``."""

    frm: int
    to: int
    piece: str | None


@dataclass(frozen=True, slots=True)
class Fault:
    """A board state that needs the players' attention: ``kind`` is ``illegal`` or ``warning``,
    ``code`` a stable id (docs/events.md). The fields after it are what the code's wording names
    (None: not part of this code); :meth:`details` is their JSON, in the documented order.
    ``squares`` are in name order, ``pieces`` (when given) parallel to them."""

    kind: EventKind
    code: str
    frm: int | None = None
    to: int | None = None
    square: int | None = None     #: the one piece lifted (the lifting codes)
    piece: str | None = None
    turn: str | None = None
    side: str | None = None       #: ``not_your_turn``: whose piece it is
    at: int | None = None         #: the square the rules name (a piece jumped, a corner...)
    colour: str | None = None     #: ``wrong_piece_placed``: the colour the sensor read
    expected: Move | None = None  #: ``not_the_move_to_make``: the move to make ...
    expected_text: str = ""       #: ... and its record text
    knocks: tuple[Knock, ...] | None = None
    squares: tuple[int, ...] | None = None
    pieces: tuple[str, ...] | None = None
    placed: tuple[int, ...] | None = None  #: ``several_pieces``: where pieces were put
    # what the LEDs show, and the tracker's own bookkeeping (not part of the data)
    illegal: tuple[int, ...] = ()
    setup: tuple[int, ...] = ()
    key: Hashable = ()
    # the board's difference from the game when it was flagged (a smaller one that is a part of
    # it is the fault being put right)
    gone: frozenset[int] = frozenset()
    new: frozenset[int] = frozenset()

    def details(self, size: int) -> FaultDetails:
        """The code's data as JSON (squares named on a ``size`` board)."""
        out: FaultDetails = {}
        self.add_details(out, size)
        return out

    def add_details(self, out: FaultDetails, size: int) -> None:
        """Put :meth:`details` into ``out`` (an event's or a guidance's data)."""
        if self.frm is not None:
            out["from"] = square_name(self.frm, size)
        if self.to is not None:
            out["to"] = square_name(self.to, size)
        if self.square is not None:
            out["square"] = square_name(self.square, size)
        if self.piece is not None:
            out["piece"] = self.piece
        if self.turn is not None:
            out["turn"] = self.turn
        if self.side is not None:
            out["side"] = self.side
        if self.at is not None:
            out["square"] = square_name(self.at, size)
        if self.colour is not None:
            out["colour"] = self.colour
        if self.expected is not None:
            out["expected"] = self.expected_text
            out["expected_from"] = square_name(self.expected.frm, size)
            out["expected_to"] = square_name(self.expected.to, size)
        if self.knocks is not None:
            out["knocks"] = [{"from": square_name(k.frm, size), "to": square_name(k.to, size),
                              "piece": k.piece} for k in self.knocks]
        if self.squares is not None:
            out["squares"] = _names(self.squares, size)
        if self.pieces is not None:
            out["pieces"] = list(self.pieces)
        if self.placed is not None:
            out["new"] = _names(self.placed, size)


# -- events ------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Event:
    """One tracker event at trace/clock time ``t`` (a subclass says what happened)."""

    KIND: ClassVar[EventKind]
    t: float

    @property
    def kind(self) -> EventKind:
        """What happened (the ``event`` of the JSON line)."""
        return self.KIND

    def payload(self) -> EventData:
        """The event's fields as JSON (squares named), in the documented order."""
        raise NotImplementedError

    @property
    def data(self) -> EventData:
        """:meth:`payload`: the JSON view the session stores and logs."""
        return self.payload()

    def to_json(self) -> dict[str, object]:
        """The event as one INTERFACES.md event line: ``{"t": .., "event": kind, **data}``
        (what ``replay --events`` writes out; :meth:`payload` is the typed part)."""
        out: dict[str, object] = {"t": round(self.t, 3), "event": str(self.kind)}
        out.update(self.payload())
        return out


@dataclass(frozen=True, slots=True)
class MoveEvent(Event):
    """What :class:`MoveProposed` and :class:`MoveRevised` say of the move: ``captures`` are
    every captured square (ascending, the king included); ``text`` the record text
    (``g3-e3xe2``, the king never listed); ``ply`` its 1-based number; ``placed_at`` when the
    piece came to rest on its square."""

    move: Move
    side: str
    captures: tuple[int, ...]
    ply: int
    placed_at: float
    text: str
    size: int

    def payload(self) -> MoveData:
        n = self.size
        return {"move": self.text, "side": self.side,
                "captured": sorted(square_name(s, n) for s in self.captures),
                "from": square_name(self.move.frm, n), "to": square_name(self.move.to, n),
                "ply": self.ply, "placed_at": self.placed_at}


@dataclass(frozen=True, slots=True)
class MoveProposed(MoveEvent):
    """**Proposal**: a move was made (see :class:`MoveEvent` for the fields)."""

    KIND: ClassVar[EventKind] = EventKind.MOVE


@dataclass(frozen=True, slots=True, kw_only=True)
class MoveRevised(MoveEvent):
    """**Proposal**: replaces the last move (``replaces``, record text ``replaces_text``): the
    piece moved on along its line while the hand was still on it. ``placed_at`` is the first
    placement time of the move it replaces."""

    KIND: ClassVar[EventKind] = EventKind.REVISED
    replaces: Move
    replaces_text: str

    def payload(self) -> RevisedData:
        return {"replaces": self.replaces_text, **MoveEvent.payload(self)}


@dataclass(frozen=True, slots=True)
class MoveTakenBack(Event):
    """**Proposal**: the board shows the position before the last move: take ``move`` (ply
    ``ply``, record text ``text``) back."""

    KIND: ClassVar[EventKind] = EventKind.TAKEBACK
    move: Move
    text: str
    side: str
    ply: int

    def payload(self) -> TakebackData:
        return {"move": self.text, "side": self.side, "ply": self.ply}


#: The events that propose a change of the game.
Proposal = MoveProposed | MoveRevised | MoveTakenBack


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    """The model's game ended by a proposal; ``outcome`` None: a revision un-ended it."""

    KIND: ClassVar[EventKind] = EventKind.GAME_OVER
    outcome: Outcome | None

    def payload(self) -> OutcomeData:
        if self.outcome is None:
            return {"result": "ongoing", "reason": "revised"}
        return {"result": self.outcome.result, "reason": str(self.outcome.termination)}


@dataclass(frozen=True, slots=True)
class PieceRemoved(Event):
    """A captured piece was lifted off (reported once its square has settled; ``lifted_at`` is
    when it left the square)."""

    KIND: ClassVar[EventKind] = EventKind.REMOVED
    square: int
    lifted_at: float
    size: int

    def payload(self) -> RemovedData:
        return {"square": square_name(self.square, self.size), "lifted_at": self.lifted_at}


@dataclass(frozen=True, slots=True)
class PieceRestored(Event):
    """A captured piece was put back (a takeback by hand in progress)."""

    KIND: ClassVar[EventKind] = EventKind.RESTORED
    square: int
    size: int

    def payload(self) -> SquareData:
        return {"square": square_name(self.square, self.size)}


@dataclass(frozen=True, slots=True)
class FaultFlagged(Event):
    """An illegal move or state (``fault.kind`` ``illegal``, with the LED frame) or a warning,
    flagged once; ``reason`` says what happened in English."""

    fault: Fault
    reason: str
    leds: Mapping[str, str] | None
    size: int

    @property
    def kind(self) -> EventKind:
        """``illegal`` or ``warning``: the fault's kind."""
        return self.fault.kind

    def payload(self) -> FaultData:
        out: FaultData = {"code": self.fault.code, "reason": self.reason}
        self.fault.add_details(out, self.size)
        if self.leds is not None:
            out["leds"] = dict(self.leds)
        return out


@dataclass(frozen=True, slots=True)
class SetupNeeded(Event):
    """The board does not match the game: squares to fill (with the piece that belongs there),
    to clear, and holding the wrong kind of piece (polarity boards; the piece that belongs);
    each in name order. ``message`` is the English guidance."""

    KIND: ClassVar[EventKind] = EventKind.SETUP
    message: str
    fill: tuple[tuple[int, str], ...]
    clear: tuple[int, ...]
    recolour: tuple[tuple[int, str], ...]
    size: int

    def payload(self) -> SetupData:
        n = self.size
        pieces = sorted((square_name(s, n), p) for s, p in (*self.fill, *self.recolour))
        return {"message": self.message, "fill": [square_name(s, n) for s, _ in self.fill],
                "clear": _names(self.clear, n),
                "recolour": [square_name(s, n) for s, _ in self.recolour],
                "pieces": dict(pieces)}


@dataclass(frozen=True, slots=True)
class Ready(Event):
    """The board matches the game; play (or judging) starts, ``turn`` to move."""

    KIND: ClassVar[EventKind] = EventKind.READY
    turn: str

    def payload(self) -> ReadyData:
        return {"turn": self.turn}


@dataclass(frozen=True, slots=True)
class LedsChanged(Event):
    """The whole new LED frame (square name -> role: the frame is what LEDs and the page
    show)."""

    KIND: ClassVar[EventKind] = EventKind.LEDS
    leds: Mapping[str, str]

    def payload(self) -> LedsData:
        return {"leds": dict(self.leds)}


# Module-level names for the kinds (older code imports these).
MOVE = EventKind.MOVE
LEDS = EventKind.LEDS
REMOVED = EventKind.REMOVED
ILLEGAL = EventKind.ILLEGAL
GAME_OVER = EventKind.GAME_OVER
WARNING = EventKind.WARNING
REVISED = EventKind.REVISED
TAKEBACK = EventKind.TAKEBACK
RESTORED = EventKind.RESTORED
SETUP = EventKind.SETUP
READY = EventKind.READY

#: The kinds that propose a change of the game.
PROPOSALS = frozenset({MOVE, REVISED, TAKEBACK})


class ProposalError(ValueError):
    """A proposal that does not fit the game it was applied to (the game and the tracker's
    model differ: reset the tracker)."""


def apply_proposal(game: Game, event: Event) -> bool:
    """Apply a proposal (:class:`MoveProposed`, :class:`MoveRevised`, :class:`MoveTakenBack`)
    to ``game`` (what the session does once it has decided to accept it). Returns False for any
    other event (nothing to apply); ProposalError if the game does not fit the proposal (it is
    left unchanged then)."""
    played = game.played
    last = played[-1].text if played else "none"
    match event:
        case MoveTakenBack():
            if not played or played[-1].text != event.text:
                raise ProposalError(f"cannot take back {event.text}: the game's last move is "
                                    f"{last}")
            game.undo()
            return True
        case MoveRevised() | MoveProposed():
            _check_ply(event, len(played))
        case _:
            return False
    size = game.rules.size
    if isinstance(event, MoveRevised):
        if not played or played[-1].text != event.replaces_text:
            raise ProposalError(f"cannot revise {event.replaces_text}: the game's last move is "
                                f"{last}")
        undone = game.undo()
        try:
            game.play(event.move)
        except ValueError as exc:
            game.play(undone.move)
            raise ProposalError(f"cannot revise {undone.text} to {event.move.text(size)}: "
                                f"{exc}") from None
        return True
    try:
        game.play(event.move)
    except ValueError as exc:
        raise ProposalError(f"cannot play {event.move.text(size)}: {exc}") from None
    return True


def _check_ply(event: MoveEvent, plies: int) -> None:
    """ProposalError unless ``event`` is the next ply (a revision: the last) of a game of
    ``plies`` moves."""
    if event.ply != plies + (not isinstance(event, MoveRevised)):
        raise ProposalError(f"{event.kind} {event.text} is ply {event.ply}, but the game has "
                            f"{plies} moves")
