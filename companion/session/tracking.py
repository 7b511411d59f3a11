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
from typing import Any, Protocol

from companion.rules.board import Move
from companion.rules.game import Game
from companion.scan import Scan
from companion.tracker import Event, EventKind, ProposalError, Tracker, apply_proposal

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
    Proposals carry the move's squares (``frm``, ``to``, its text ``move``) and when the piece
    came to rest (``placed_at``); a ``removed`` piece its ``square`` and ``lifted_at``."""

    kind: str
    t: float
    data: dict[str, Any]
    event: Event = field(repr=False)
    move: str | None = None
    frm: str | None = None
    to: str | None = None
    placed_at: float | None = None
    square: str | None = None
    lifted_at: float | None = None

    @property
    def is_proposal(self) -> bool:
        return self.kind in PROPOSALS


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
    def guidance(self) -> dict[str, Any]: ...

    def feed(self, scan: Scan) -> list[Observed]: ...

    def tick(self, t: float) -> list[Observed]: ...

    def reset(self, game: Game, t: float) -> list[Observed]: ...

    def expect(self, move: Move | None, t: float | None = None) -> list[Observed]: ...

    def suspend(self, reason: str | None, t: float | None = None) -> list[Observed]: ...


class TrackerAdapter:
    """The project's :class:`~companion.tracker.Tracker` as the session uses it: guidance as
    JSON data, events as :class:`Observed` (a ``removed`` piece with ``lifted_at``, the moment
    it left its square: the tracker reports it once the square has settled; a move with
    ``placed_at``), so the clock can switch when the piece came to rest."""

    def __init__(self, game: Game, factory: Callable[[Game], Tracker] = Tracker) -> None:
        self._tracker = factory(game)
        self._game = game

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
    def guidance(self) -> dict[str, Any]:
        return self._tracker.guidance.to_json()

    def feed(self, scan: Scan) -> list[Observed]:
        return self._observed(self._tracker.feed(scan))

    def tick(self, t: float) -> list[Observed]:
        return self._observed(self._tracker.tick(t))

    def reset(self, game: Game, t: float) -> list[Observed]:
        self._game = game
        return self._observed(self._tracker.reset(game, t))

    def expect(self, move: Move | None, t: float | None = None) -> list[Observed]:
        """The move to make (ValueError if it does not fit the tracker's position)."""
        names = self._game.board.geo.names
        text = f"{names[move.frm]}-{names[move.to]}" if move is not None else None
        return self._observed(self._tracker.expect(text, t))

    def suspend(self, reason: str | None, t: float | None = None) -> list[Observed]:
        return self._observed(self._tracker.suspend(reason, t))

    def _observed(self, events: list[Event]) -> list[Observed]:
        settle = self._tracker.settle
        out = []
        for e in events:
            kind = str(e.kind)
            data = {k: v for k, v in e.data.items() if k != "leds"}
            data["board_t"] = round(e.t, 3)
            if e.kind == EventKind.REMOVED:
                lifted = float(data.get("lifted_at", e.t - settle))
                data.setdefault("lifted_at", lifted)
                out.append(Observed(kind, e.t, data, e, square=str(data.get("square")),
                                    lifted_at=lifted))
            elif e.kind in (EventKind.MOVE, EventKind.REVISED, EventKind.TAKEBACK):
                placed = None
                if e.kind != EventKind.TAKEBACK:
                    placed = float(data.get("placed_at", e.t - settle))
                    data.setdefault("placed_at", placed)
                out.append(Observed(kind, e.t, data, e, move=_text(data.get("move")),
                                    frm=_text(data.get("from")), to=_text(data.get("to")),
                                    placed_at=placed))
            else:
                out.append(Observed(kind, e.t, data, e))
        return out


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
