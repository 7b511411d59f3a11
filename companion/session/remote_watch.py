"""A game the board only watches (:attr:`~companion.session.remote.RemoteTerms.watched`): the
other end's moves, both sides', followed one by one at the board.

:class:`Following` belongs to the binding of a watched game
(:class:`~companion.session.remote_play.RemoteGames`, loop thread only). The other end's moves
that the board has not made yet wait in turn (``ahead``, from ply ``base``); the first of them
is the move to make, and the next one becomes it once the board made it. The game's end waits
until the board made the last of them, so that the person follows the game to its end.

It reads the game from the record; what it does to the session goes through the
:class:`FollowHost` it is handed with each call that acts, and with each command it posts.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from companion.rules.board import Move
from companion.rules.game import Game
from companion.session.game_moves import played_moves
from companion.session.remote import RemoteMove

log = logging.getLogger("companion.session")


class GameHolder(Protocol):
    """Where the game in play is read (the session's record)."""

    @property
    def game(self) -> Game: ...


class FollowHost(Protocol):
    """What following a watched game needs of the session (a part of ``RemoteHost``)."""

    def remote_move_to_make(self, move: Move, by: str) -> str | None: ...

    def remote_end(self, result: str, reason: str, by: str) -> None: ...

    def remote_changed(self) -> None: ...


class Following:
    """The other end's moves that the board has not made yet (see the module docstring)."""

    def __init__(self, record: GameHolder,
                 post: Callable[[Callable[[FollowHost], None], str], object],
                 by: str, current: Callable[[], bool], resync: Callable[[str], None]) -> None:
        self._record = record
        self._post = post          # enqueue a command for the loop thread (given the host)
        self._by = by              # the player's kind: move_to_make.by
        self._current = current    # whether this is still the bound game
        self._resync = resync      # ask the other end for its record again
        self.ahead: list[Move] = []
        self.base = 0              # the ply of ahead[0]
        self.end_waiting: tuple[str, str] | None = None
        self._showing = False

    @property
    def queued(self) -> int:
        """The moves waiting behind the move to make."""
        return max(0, len(self.ahead) - 1)

    def caught_up(self, last: Move, ply: int) -> None:
        """The game was caught up to ``ply`` moves; ``last`` is its move to make."""
        self.ahead, self.base = [last], ply

    def resume(self, host: FollowHost, theirs: tuple[Move, ...]) -> bool:
        """The other end's record again (a reconnect, a restart, a resync): the moves the board
        has not made wait in turn. False when the board's record is not a start of it."""
        ours = played_moves(self._record.game)
        if theirs[:len(ours)] != ours:
            return False
        self.ahead, self.base = list(theirs[len(ours):]), len(ours)
        self._show_next()
        host.remote_changed()
        return True

    def advance(self) -> bool:
        """Drop the moves the board made (and show the next one); True while moves of the
        other end wait to be made."""
        played = played_moves(self._record.game)
        while self.ahead and self.base < len(played):
            if played[self.base] != self.ahead[0]:
                log.warning("a watched game: the board's ply %d differs", self.base + 1)
                self.ahead = []
                break
            self.ahead.pop(0)
            self.base += 1
        if not self.ahead:
            self.base = len(played)
        self._show_next()
        return bool(self.ahead)

    def follow(self, host: FollowHost, event: RemoteMove) -> None:
        """A move of the watched game: the move to make, or waiting behind it."""
        self.advance()
        ours = played_moves(self._record.game)
        if event.ply < len(ours):
            if ours[event.ply] != event.move:
                self._resync(f"ply {event.ply + 1} differs")
            return  # a duplicate
        i = event.ply - self.base
        if i < len(self.ahead):
            if self.ahead[i] != event.move:
                self._resync(f"ply {event.ply + 1} differs")
            return  # a duplicate
        if i > len(self.ahead):
            self._resync(f"a gap before ply {event.ply + 1}")
            return
        self.ahead.append(event.move)
        self._show_next()
        host.remote_changed()

    def end(self, host: FollowHost, result: str, reason: str) -> bool:
        """The game ended at the other end: True when the end waits for the board's moves."""
        if not self.advance():
            return False
        self.end_waiting = (result, reason)
        host.remote_changed()
        return True

    def _show_next(self) -> None:
        """Post the next waiting move as the move to make (or the waiting end) to the loop: it
        is shown at the next step, not in the middle of the write that made the last one."""
        if self._showing or (not self.ahead and self.end_waiting is None):
            return
        self._showing = True
        self._post(self._next, "remote_next")

    def _next(self, host: FollowHost) -> None:
        self._showing = False
        if not self._current():
            return
        played = played_moves(self._record.game)
        if self.ahead and self.base == len(played):
            problem = host.remote_move_to_make(self.ahead[0], self._by)
            if problem is not None:
                log.warning("a watched game: move %d refused: %s", self.base + 1, problem)
                self.ahead = []
                self._resync(problem)
        elif not self.ahead and self.end_waiting is not None:
            (result, reason), self.end_waiting = self.end_waiting, None
            host.remote_end(result, reason, self._by)
