"""The tracker as the session sees it: a *proposer* with a private model of the game.

The session is the only writer of its :class:`~companion.rules.game.Game`. The tracker gets a
private copy (:func:`copy_game`) and proposes what it concludes (``move``, ``revised``,
``takeback``); the session decides, applies the proposal to the real game, stores it, and on a
refusal re-synchronises the tracker with ``reset``.

:class:`ProposingTracker` is the interface the session uses (TEAM contract 3: ``expect``,
``suspend``, ``guidance``, ``placed_at`` in move data). :class:`TrackerAdapter` gives the
project's tracker that interface: it hands it a private copy of the game on every ``reset``,
shows the move to make on the LEDs (``make_from``/``make_to``) while one is expected, and keeps
``expect``/``suspend`` for the session, which refuses any other proposal itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from companion.rules import other
from companion.rules.game import Game
from companion.scan import Scan
from companion.tracker import Event, Tracker


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
    """What the session needs of a tracker."""

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

    def expect(self, move: str | None) -> None: ...

    def suspend(self, reason: str | None) -> None: ...


class TrackerAdapter:
    """The project's :class:`~companion.tracker.Tracker` behind :class:`ProposingTracker`."""

    def __init__(self, game: Game, factory: Callable[[Game], Tracker] = Tracker) -> None:
        self._tracker = factory(copy_game(game))
        self._expected: str | None = None
        self._suspended: str | None = None

    @property
    def inner(self) -> Tracker:
        return self._tracker

    @property
    def settle(self) -> float:
        return float(getattr(self._tracker, "settle", 0.0))

    @property
    def leds(self) -> dict[str, str]:
        frame = self._tracker.leds
        if self._expected and self._tracker.state in ("ready", "lifted"):
            frm, _, to = self._expected.partition("-")
            to = to.split("x")[0]
            frame = {**{s: r for s, r in frame.items() if r not in ("from", "to")},
                     frm: "make_from", to: "make_to"}
        return frame

    @property
    def message(self) -> str:
        return self._tracker.message

    @property
    def state(self) -> str:
        return str(self._tracker.state)

    @property
    def guidance(self) -> dict:
        out: dict = {"kind": self.state}
        if self._expected:
            out["move_to_make"] = self._expected
        if self._suspended:
            out = {"kind": "suspended", "reason": self._suspended}
        return out

    def feed(self, scan: Scan) -> list[Event]:
        return self._with_placed(self._tracker.feed(scan))

    def tick(self, t: float) -> list[Event]:
        return self._with_placed(self._tracker.tick(t))

    def reset(self, game: Game, t: float) -> list[Event]:
        return self._with_placed(self._tracker.reset(copy_game(game), t))

    def expect(self, move: str | None) -> None:
        self._expected = move

    def suspend(self, reason: str | None) -> None:
        self._suspended = reason

    def _with_placed(self, events: list[Event]) -> list[Event]:
        """Move events carry ``placed_at``: the moment the piece came to rest (the tracker
        accepts a move ``settle`` after that); ``removed`` events ``lifted_at``."""
        out = []
        for e in events:
            if e.kind in ("move", "revised") and "placed_at" not in e.data:
                e = Event(e.t, e.kind, {**e.data, "placed_at": e.t - self.settle})
            elif e.kind == "removed" and "lifted_at" not in e.data:
                e = Event(e.t, e.kind, {**e.data, "lifted_at": e.t - self.settle})
            out.append(e)
        return out
