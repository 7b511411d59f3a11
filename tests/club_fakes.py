"""A small stand-in for the session's side of the remote-player seam (club tests).

:class:`FakeBoardSession` drains a club player's events like the session's loop thread would:
a start sets up the game, a move of the other board becomes the move to make, which the
"person at the board" carries out (at once, or when the test says), a takeback goes back.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable

from test_daemon_support import PATIENCE

from companion.rules import Move
from companion.rules.game import Game
from companion.session.remote import (
    GameSettings,
    RemoteClock,
    RemoteDraw,
    RemoteEvent,
    RemoteMove,
    RemoteResign,
    RemoteStart,
    RemoteStatus,
    RemoteTakeback,
    RemoteTerms,
    TimeControl,
)


def terms(variant: str = "brandubh", side: str = "attackers", tc: str = "none",
          ref: str = "", **options: object) -> RemoteTerms:
    return RemoteTerms(GameSettings.make(variant, options), TimeControl.parse(tc), side,
                       "other", ref)


class FakeBoardSession:
    def __init__(self, player: object, carry_out: bool = True) -> None:
        self.player = player
        self.events: queue.Queue[RemoteEvent] = queue.Queue()
        player.connect(self.events.put)  # type: ignore[attr-defined]
        self.carry_out = carry_out
        self.game: Game | None = None
        self.terms: RemoteTerms | None = None
        self.move_to_make: Move | None = None
        self.log: list[RemoteEvent] = []
        self.statuses: list[RemoteStatus] = []

    def pump(self) -> None:
        while True:
            try:
                ev = self.events.get_nowait()
            except queue.Empty:
                return
            self.log.append(ev)
            self.apply(ev)

    def apply(self, ev: RemoteEvent) -> None:
        if isinstance(ev, RemoteStart):
            self.terms = ev.terms
            self.game = Game(ev.terms.settings.rules())
        elif isinstance(ev, RemoteMove):
            assert self.game is not None
            if ev.ply < len(self.game.played):
                return  # a duplicate
            assert ev.ply == len(self.game.played), (ev, self.game.moves)
            assert self.game.board.is_legal(ev.move)
            self.move_to_make = ev.move
            if self.carry_out:
                self.make_move_to_make()
        elif isinstance(ev, RemoteTakeback):
            assert self.game is not None
            while len(self.game.played) > ev.ply:
                self.game.undo()
            self.move_to_make = None
        elif isinstance(ev, RemoteStatus):
            self.statuses.append(ev)
        elif isinstance(ev, RemoteResign | RemoteDraw | RemoteClock):
            pass

    def make_move_to_make(self) -> None:
        assert self.game is not None and self.move_to_make is not None
        self.game.play(self.move_to_make)
        self.move_to_make = None

    def play(self, text: str) -> None:
        """The person at this board makes a move (stored, then sent)."""
        assert self.game is not None
        ply = len(self.game.played)
        move, _ = self.game.board.parse_move(text)
        self.game.play(move)
        self.player.send_move(ply, move)  # type: ignore[attr-defined]

    def started(self, t: RemoteTerms) -> None:
        moves = tuple(p.move for p in self.game.played) if self.game else ()
        self.player.started(t, moves)  # type: ignore[attr-defined]

    def of(self, kind: type) -> list[RemoteEvent]:
        return [e for e in self.log if isinstance(e, kind)]


def wait_for(cond: Callable[[], object], timeout: float = PATIENCE,
             pumps: tuple[FakeBoardSession, ...] = ()) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for p in pumps:
            p.pump()
        if cond():
            return
        time.sleep(0.02)
    raise AssertionError("timed out waiting")
