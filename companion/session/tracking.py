"""The tracker as the session sees it: a *proposer* with a private model of the game.

The session is the only writer of its :class:`~companion.rules.game.Game`. The tracker keeps a
private copy and proposes what it concludes (a move, a revision of the last move, a takeback by
hand); the session decides, applies the proposal to the real game (:func:`apply`), stores it,
and on a refusal re-synchronises the tracker with ``reset``.

This module is the only place that knows the tracker's events: :class:`TrackerAdapter` turns
them into :class:`Observed` values (what the session reads and stores), so a change of the
tracker's event types lands here alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from companion.rules.board import Move
from companion.rules.game import Game
from companion.scan import Scan
from companion.store_types import RowData
from companion.tracker import (
    Event,
    GuidanceJSON,
    MoveEvent,
    MoveTakenBack,
    PieceRemoved,
    ProposalError,
    Tracker,
    apply_proposal,
)

#: What the tracker reports that is not stored (LED frames are derived data).
NOT_STORED = frozenset({"leds"})
#: The tracker's proposals: decided by the session, applied by :func:`apply`.
PROPOSALS = frozenset({"move", "revised", "takeback"})

__all__ = ["NOT_STORED", "PROPOSALS", "Observed", "ProposalError", "ProposingTracker",
           "TrackerAdapter", "apply"]


@dataclass(frozen=True)
class Observed:
    """One thing the tracker reported, at board time ``t``: its ``kind`` (``move``,
    ``revised``, ``takeback``, ``removed``, ``ready``, ``game_over``, ``illegal``, ``warning``,
    ``setup``, ...) and ``data``, the row the store keeps (without LED frames, with ``board_t``).
    Proposals carry the ``move``, its record ``text`` and when the piece came to rest
    (``placed_at``); a ``removed`` piece its ``square`` and ``lifted_at``."""

    kind: str
    t: float
    data: RowData
    event: Event = field(repr=False)
    move: Move | None = None
    text: str | None = None
    placed_at: float | None = None
    square: int | None = None
    lifted_at: float | None = None

    @property
    def board_t(self) -> float:
        """The board time of the row (``board_t``: ``t`` to the millisecond)."""
        return round(self.t, 3)


def apply(game: Game, proposal: Observed) -> None:
    """Apply a proposal to ``game``; :class:`ProposalError` if it does not fit (the game is
    left unchanged then)."""
    apply_proposal(game, proposal.event)


class ProposingTracker(Protocol):
    """What the session needs of a tracker."""

    @property
    def leds(self) -> dict[str, str]: ...

    @property
    def message(self) -> str: ...

    @property
    def state(self) -> str: ...

    @property
    def guidance(self) -> GuidanceJSON: ...

    def feed(self, scan: Scan) -> list[Observed]: ...

    def tick(self, t: float) -> list[Observed]: ...

    def reset(self, game: Game, t: float) -> list[Observed]: ...

    def expect(self, move: Move | None, t: float | None = None) -> list[Observed]: ...

    def suspend(self, reason: str | None, t: float | None = None) -> list[Observed]: ...

    def read_board(self, on: bool, t: float | None = None) -> list[Observed]: ...

    def checked(self, t: float | None = None) -> list[Observed]: ...


class TrackerAdapter:
    """The project's :class:`~companion.tracker.Tracker` as the session uses it: guidance as
    JSON data, events as :class:`Observed`."""

    def __init__(self, game: Game, factory: Callable[[Game], Tracker] = Tracker) -> None:
        self._tracker = factory(game)

    @property
    def inner(self) -> Tracker:
        return self._tracker

    @property
    def leds(self) -> dict[str, str]:
        return self._tracker.leds

    @property
    def message(self) -> str:
        return self._tracker.message

    @property
    def state(self) -> str:
        return str(self._tracker.state)

    @property
    def guidance(self) -> GuidanceJSON:
        return self._tracker.guidance.to_json()

    def feed(self, scan: Scan) -> list[Observed]:
        return self._observed(self._tracker.feed(scan))

    def tick(self, t: float) -> list[Observed]:
        return self._observed(self._tracker.tick(t))

    def reset(self, game: Game, t: float) -> list[Observed]:
        return self._observed(self._tracker.reset(game, t))

    def expect(self, move: Move | None, t: float | None = None) -> list[Observed]:
        """The move to make (ValueError if it does not fit the tracker's position)."""
        return self._observed(self._tracker.expect(move, t))

    def suspend(self, reason: str | None, t: float | None = None) -> list[Observed]:
        return self._observed(self._tracker.suspend(reason, t))

    def read_board(self, on: bool, t: float | None = None) -> list[Observed]:
        """While ``on`` the board defines a new position: neither guided nor judged (guidance
        ``reading``: the occupied squares and, on polarity boards, their colours)."""
        return self._observed(self._tracker.read_board(on, t))

    def checked(self, t: float | None = None) -> list[Observed]:
        """The players checked the pieces' kinds (``check_pieces`` guidance): it ends."""
        return self._observed(self._tracker.checked(t))

    @staticmethod
    def _observed(events: list[Event]) -> list[Observed]:
        out = []
        for e in events:
            data: dict[str, object] = {k: v for k, v in e.data.items() if k != "leds"}
            data["board_t"] = round(e.t, 3)
            kind = str(e.kind)
            match e:
                case PieceRemoved():
                    out.append(Observed(kind, e.t, data, e, square=e.square,
                                        lifted_at=e.lifted_at))
                case MoveEvent():
                    out.append(Observed(kind, e.t, data, e, move=e.move, text=e.text,
                                        placed_at=e.placed_at))
                case MoveTakenBack():
                    out.append(Observed(kind, e.t, data, e, move=e.move, text=e.text))
                case _:  # the rest carry their data alone
                    out.append(Observed(kind, e.t, data, e))
        return out
