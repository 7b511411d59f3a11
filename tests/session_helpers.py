"""A GameSession on a virtual clock with the REAL tracker, a simulated board and a real SQLite
store: tests drive the board like hands and advance time explicitly (no threads, no sleeps;
only :func:`wait` lets real time pass, for the engines' own processes)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.drivers.sim import SimBoard
from companion.rules import get_variant
from companion.rules.game import Game
from companion.scan import Scan
from companion.session import OWNER, GameSession, SessionDefaults
from companion.session.clock import TimeControl
from companion.session.players import PlayerSpec
from companion.session.settings import GameSettings
from companion.store import Store

STEP = 0.01  # the loop's period: 100 Hz


class HandBoard:
    """A real board (not the clickable simulator: a restart does not put its pieces back),
    whose squares the test's hands toggle."""

    kind = "gpio"

    def __init__(self, size: int, occupied) -> None:
        self.size = size
        self.occupied = frozenset(occupied)

    def toggle(self, square: str) -> bool:
        on = square not in self.occupied
        self.occupied = self.occupied ^ {square}
        return on

    def set_occupied(self, occupied) -> None:
        self.occupied = frozenset(occupied)

    def scan(self, now: float) -> Scan:
        return Scan(now, self.occupied)

    def status(self) -> dict:
        return {"kind": self.kind, "connected": True, "detail": "test board"}

    def close(self) -> None:
        pass


class Harness:
    """``h.session`` with a SimBoard at virtual time ``h.t`` (seconds)."""

    def __init__(self, tmp_path: Path, *, variant: str = "copenhagen", tc: str = "none",
                 attackers: str = "board", defenders: str = "board",
                 names: tuple[str, str] = ("Ann", "Bo"), match: bool = False,
                 options: dict | None = None, store: Store | None = None,
                 board: SimBoard | HandBoard | None = None, t0: float = 100.0) -> None:
        self.path = tmp_path / "games.sqlite3"
        self.t = t0
        self.store = store or Store(self.path)
        rules = get_variant(variant)
        self.board = board or SimBoard(rules.size, Game(rules).board.occupied_names())
        self.states: list[dict] = []
        defaults = SessionDefaults(
            GameSettings.make(variant, options or {}), TimeControl.parse(tc),
            {"attackers": PlayerSpec.parse(attackers, names[0]),
             "defenders": PlayerSpec.parse(defenders, names[1])}, match=match)
        self.session = GameSession(self.store, self.board, defaults=defaults,
                                   announce=self.states.append, monotonic=lambda: self.t,
                                   wall=lambda: 1.7e9 + self.t)
        self.session.open()
        self.run(0.5)

    @property
    def state(self) -> dict:
        return self.session.state()

    def run(self, seconds: float) -> None:
        """Let ``seconds`` pass, the loop stepping at 100 Hz."""
        end = self.t + seconds
        while self.t < end - 1e-9:
            self.t = round(self.t + STEP, 6)
            self.session.step(self.t)

    def click(self, square: str, wait: float = 0.05) -> None:
        if isinstance(self.board, HandBoard):
            self.board.toggle(square)
        else:
            self.session.click(OWNER, square)
            self.session.step(self.t)  # the loop applies it and scans in the same iteration
        self.run(wait)

    def move(self, frm: str, to: str, think: float = 0.0) -> None:
        """A tidy hand: (think), lift, place, let it settle; captured pieces lifted off."""
        if think:
            self.run(think)
        n = len(self.session.game.played)
        self.click(frm, 0.1)
        self.click(to, 0.4)
        assert len(self.session.game.played) == n + 1, (frm, to, self.state["message"])
        game = self.session.game
        for sq in sorted(game.board.name(c) for c in game.played[-1].captures):
            if sq in self.board.occupied:
                self.click(sq, 0.3)

    def reopen(self) -> Harness:
        """A new session on the same store file and board (a restart)."""
        self.session.close()
        self.store.close()
        return Harness.__new__(Harness)._reinit(self)

    def _reinit(self, old: Harness) -> Harness:
        self.__dict__.update(old.__dict__)
        self.store = Store(old.path)
        defaults = old.session.defaults
        self.states = []
        self.session = GameSession(self.store, self.board, defaults=defaults,
                                   announce=self.states.append, monotonic=lambda: self.t,
                                   wall=lambda: 1.7e9 + self.t)
        self.session.open()
        self.run(0.5)
        return self


def wait(h: Harness, pred: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    """Step the session (virtual board time) while real time passes for the engines (their own
    processes), until ``pred()`` gives something: that."""
    end = time.monotonic() + timeout
    while True:
        got = pred()
        if got:
            return got
        assert time.monotonic() < end, f"timed out waiting for {what}: {h.state['message']}"
        h.run(0.05)
        time.sleep(0.02)
