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

from companion.rules import other
from companion.rules.game import Game
from companion.scan import Scan
from companion.tracker import Event, EventKind, Tracker


def copy_game(game: Game, *, manual: bool = True) -> Game:
    """An independent copy of ``game`` (same rules, start, moves; the manual ending too unless
    ``manual=False``, which reopens a draw agreement, resignation or loss on time)."""
    copy = Game(game.rules, game.start_position, game.start_turn)
    for p in game.played:
        copy.play(f"{p.frm}-{p.to}")
    outcome = game.outcome()
    if manual and outcome is not None and not copy.is_over():
        if outcome.reason == "agreement":
            copy.agree_draw()
        elif outcome.reason == "resignation" and outcome.winner:
            copy.resign(other(outcome.winner))
        elif outcome.reason == "time" and outcome.winner:
            copy.lose_on_time(other(outcome.winner))
    return copy


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

    def expect(self, move: str | None, t: float | None = None) -> list[Event]: ...

    def suspend(self, reason: str | None, t: float | None = None) -> list[Event]: ...


class TrackerAdapter:
    """The project's :class:`~companion.tracker.Tracker` as the session uses it: guidance as
    JSON data, and ``removed`` events carrying ``lifted_at`` (the moment the captured piece
    left its square: the tracker reports it once the square has settled), so the clock can
    switch when the mover's captures were lifted."""

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
        return self._timed(self._tracker.feed(scan))

    def tick(self, t: float) -> list[Event]:
        return self._timed(self._tracker.tick(t))

    def reset(self, game: Game, t: float) -> list[Event]:
        return self._timed(self._tracker.reset(game, t))

    def expect(self, move: str | None, t: float | None = None) -> list[Event]:
        return self._timed(self._tracker.expect(move, t))

    def suspend(self, reason: str | None, t: float | None = None) -> list[Event]:
        return self._timed(self._tracker.suspend(reason, t))

    def _timed(self, events: list[Event]) -> list[Event]:
        settle = self._tracker.settle
        out = []
        for e in events:
            if e.kind == EventKind.REMOVED and "lifted_at" not in e.data:
                e = Event(e.t, e.kind, {**e.data, "lifted_at": e.t - settle})
            elif e.kind in (EventKind.MOVE, EventKind.REVISED) and "placed_at" not in e.data:
                e = Event(e.t, e.kind, {**e.data, "placed_at": e.t - settle})
            out.append(e)
        return out
