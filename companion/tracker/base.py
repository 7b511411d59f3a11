"""The state the tracker's parts share: the fault, candidate and move-to-make records, and
:class:`TrackerBase`, which declares every attribute and the methods one part calls on another
(the parts are mixins of :class:`~companion.tracker.core.Tracker`; this keeps them typed)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .. import messages
from ..rules import ATTACKERS
from ..rules.game import Game, PlayedMove
from ..rules.outcome import Outcome
from . import events as ev
from .events import Event, EventKind, Guidance, TrackerState

NEVER = -math.inf

#: The sensor colour (polarity boards) of each piece letter.
COLOUR_OF = {"t": "a", "T": "d", "K": "d"}


def side_colour(side: str) -> str:
    """The sensor colour (``"a"``/``"d"``) of a side's pieces."""
    return "a" if side == ATTACKERS else "d"


def _pairs(pieces: dict[str, str]) -> dict[str, list[str]]:
    """``{"squares": [...], "pieces": [...]}`` (sorted by square) of square -> piece letter."""
    squares = sorted(pieces)
    return {"squares": squares, "pieces": [pieces[s] for s in squares]}


@dataclass(frozen=True, slots=True)
class Fault:
    """A board state that needs the players' attention: ``kind`` is ``illegal`` or
    ``warning``, ``code`` a stable id (docs/events.md), ``data`` its squares and pieces."""

    kind: ev.EventKind
    code: str
    data: dict[str, Any] = field(default_factory=dict)
    illegal: tuple[str, ...] = ()
    setup: tuple[str, ...] = ()
    key: tuple = ()
    # the board's difference from the game when it was flagged (a smaller one that is a part of
    # it is the fault being put right)
    gone: frozenset[str] = frozenset()
    new: frozenset[str] = frozenset()

    @property
    def reason(self) -> str:
        """What happened, in English."""
        return messages.fault_reason(self.code, self.data)

    @property
    def message(self) -> str:
        """What to do about it, in English."""
        return messages.fault_message(self.kind, self.code, self.data)


@dataclass(frozen=True, slots=True)
class Candidate:
    """One explanation of the diff as a legal move."""

    frm: str
    to: str
    captured: tuple[str, ...]
    removed: tuple[str, ...]  # captured pieces already lifted off (settled)


@dataclass(frozen=True, slots=True)
class Expected:
    """The move to make (see :meth:`Tracker.expect`)."""

    text: str  # record text, captures listed: g3-e3xe2
    frm: str
    to: str
    piece: str
    side: str
    captured: tuple[str, ...]

    @property
    def move(self) -> str:
        """``g3-e3``."""
        return f"{self.frm}-{self.to}"


class TrackerBase:
    """Attributes and cross-part methods of the tracker (implemented in its parts)."""

    settle: float
    hold: float
    knock_window: float
    revise_window: float
    lift_hold: float
    _game: Game  # the tracker's private model of the game
    _cur: frozenset[str]  # the squares the last scan reads occupied
    _colours: dict[str, str]  # the colours the last scan reads (polarity sensors)
    _lc: dict[str, float]  # last change time per square
    _last_change: float
    _now: float
    _seen: bool
    _deadline: float | None
    _frame: dict[str, str]
    _guidance: Guidance
    _message: str
    _state: TrackerState
    _out: list[Event]
    _preview: dict[tuple, tuple[str, ...]]
    _expected: Expected | None
    _suspended: str | None
    _away: frozenset[str]  # squares whose piece is off the board now
    _arrived: frozenset[str]  # squares holding a piece the game does not have there
    _mode: str  # "setup" or "play"
    _announced: bool
    _pending: dict[str, str]  # captured pieces still standing: square -> piece
    _removed: dict[str, float]  # the last move's captured pieces lifted off, and when
    _revisable: bool
    _prev_settle: float  # when the last move's piece came to rest
    _carried: tuple[float, float]  # when the last move's piece left its square, came to rest
    _placed_at: float  # when the last move's piece first came to rest (kept by revisions)
    _fault: Fault | None
    _new_fault: Fault | None
    _lifted: str | None
    _guide: dict[str, str]
    _setup: tuple[dict[str, str], list[str], dict[str, str]]
    _stack: list[frozenset[str]]
    _pos: frozenset[str]
    _ended: tuple[Outcome | None] | None

    @property
    def _outcome(self) -> Outcome | None:
        raise NotImplementedError

    def _piece(self, sq: str) -> str:
        """The piece letter on an occupied square of the model."""
        piece = self._game.board.piece_at(sq)
        if piece is None:
            raise ValueError(f"no piece on {sq} in the tracker's model")
        return piece

    def _emit(self, kind: EventKind, **data: Any) -> None:
        raise NotImplementedError

    def _want(self, t: float) -> None:
        raise NotImplementedError

    def _letter(self, sq: str) -> str | None:
        raise NotImplementedError

    def _view(self, lifted: str | None = None, guide: dict[str, str] | None = None) -> None:
        raise NotImplementedError

    def _position_changed(self) -> None:
        raise NotImplementedError

    def _candidates(self, gone: frozenset[str], new: frozenset[str]) -> list[Candidate]:
        raise NotImplementedError

    def _colour_ok(self, sq: str, side: str) -> bool:
        raise NotImplementedError

    def _after_move(self, played: PlayedMove, removed: tuple[str, ...]) -> None:
        raise NotImplementedError

    def _move_data(self, played: PlayedMove) -> dict[str, Any]:
        raise NotImplementedError

    def _revision_open(self) -> bool:
        raise NotImplementedError

    def _is_knock(self, frm: str, to: str) -> bool:
        raise NotImplementedError

    def _knocks_explain(self, gone: set[str], new: set[str], turn: str) -> bool:
        raise NotImplementedError

    def _set_fault(self, fault: Fault | None) -> None:
        raise NotImplementedError
