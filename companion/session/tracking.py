"""The tracker as the session sees it: a *proposer* with a private model of the game.

The session is the only writer of its :class:`~companion.rules.game.Game`. The tracker keeps a
private copy and proposes what it concludes (``move``, ``revised``, ``takeback``); the session
decides, applies the proposal to the real game (:func:`companion.tracker.apply_proposal`),
stores it, and on a refusal re-synchronises the tracker with ``reset``.
:class:`ProposingTracker` is the interface the session uses (``expect``, ``suspend``,
``guidance``, ``placed_at`` in move data); :class:`TrackerAdapter` puts the project's tracker
behind it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from companion.rules import Move
from companion.rules.game import Game
from companion.scan import Scan
from companion.tracker import Event, Tracker


def copy_game(game: Game, *, manual: bool = True) -> Game:
    """An independent copy of ``game`` (same rules, start, moves; the manual ending too unless
    ``manual=False``, which reopens a draw agreement, resignation or loss on time)."""
    return game.copy(manual=manual)


class ProposingTracker(Protocol):
    """What the session needs of a tracker (TEAM contract 3; :class:`Tracker` implements it)."""

    @property
    def leds(self) -> dict[str, str]: ...

    @property
    def message(self) -> str: ...

    @property
    def state(self) -> str: ...

    @property
    def guidance(self) -> dict: ...

    def feed(self, scan: Scan) -> list[Event]: ...

    def tick(self, t: float) -> list[Event]: ...

    def reset(self, game: Game, t: float) -> list[Event]: ...

    def expect(self, move: Move | None, t: float | None = None) -> list[Event]: ...

    def suspend(self, reason: str | None, t: float | None = None) -> list[Event]: ...


class TrackerAdapter:
    """The project's :class:`~companion.tracker.Tracker` as the session uses it: guidance as
    JSON data."""

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
    def guidance(self) -> dict:
        return self._tracker.guidance.to_json()

    def feed(self, scan: Scan) -> list[Event]:
        return self._tracker.feed(scan)

    def tick(self, t: float) -> list[Event]:
        return self._tracker.tick(t)

    def reset(self, game: Game, t: float) -> list[Event]:
        return self._tracker.reset(game, t)

    def expect(self, move: Move | None, t: float | None = None) -> list[Event]:
        return self._tracker.expect(move, t)

    def suspend(self, reason: str | None, t: float | None = None) -> list[Event]:
        return self._tracker.suspend(reason, t)
