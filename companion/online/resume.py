"""Asking the server for the record of the board's game: ``resume_game_json`` (the board's own
game; the answer also attaches this connection to it) or ``watch_game_json`` (a watched one).
After every login, when the server does not answer the board's move, when a watched game goes
quiet, and for a game of this account that the board does not know; the game is given up when
the server no longer answers for it. Runs on the network thread, for
:class:`~companion.online.play.GamePlay`.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from companion.session.remote import RemoteLeave

from .link import Link
from .server_game import OnlineGame

RESUME_TIMEOUT = 15.0
#: A watched game silent this long is asked for again (the server tells watchers nothing of a
#: draw agreed by the players: the game just stops).
WATCH_QUIET = 120.0


class GameResume:
    """The requests for the board's game record (see the module's docstring)."""

    def __init__(self, link: Link, game: Callable[[], OnlineGame | None]) -> None:
        self.link = link
        self._game = game               # the board's game now
        self.sent: float | None = None  # when the request awaiting its answer went
        self.tries = 0                  # requests unanswered in a row
        self.move_sent_at = 0.0         # when the board's move in flight went
        self.recheck_at = 0.0           # a watched game is asked for again then

    def ask(self) -> None:
        """Ask for the board's game (re-attaches this connection to it): after every login,
        and whenever the board and the server may disagree."""
        game = self._game()
        if game is not None and self.link.logged_in and self.sent is None:
            self.sent = time.monotonic()
            verb = "watch_game_json" if game.watching else "resume_game_json"
            self.link.send(f"{verb} {game.id}")

    def ask_again(self) -> None:
        """Ask now, whatever was asked before."""
        self.sent = None
        self.ask()

    def adopt(self, game_id: str) -> None:
        """A game of this account that the board does not know (e.g. a tournament game, or
        one started while the board's store lost it): ask for it (the answer starts it)."""
        if game_id.isdigit() and self.sent is None and self._game() is None:
            self.sent = time.monotonic()
            self.link.send(f"resume_game_json {game_id}")

    def answered(self) -> None:
        """The server's record came."""
        self.sent = None
        self.tries = 0

    def logged_in(self) -> None:
        """A (new) connection is logged in: nothing is asked on it yet; ask."""
        self.answered()
        self.ask()

    def forget(self) -> None:
        """The answer awaited no longer matters (the link was lost, or the game let go)."""
        self.sent = None

    def move_sent(self) -> None:
        """The board's move went to the server (unanswered, the game is asked for)."""
        self.move_sent_at = time.monotonic()

    def heard(self, now: float, within: float = WATCH_QUIET) -> None:
        """A line about the game came (a watched game is asked for again ``within`` s)."""
        self.recheck_at = now + within

    def recheck_by(self, when: float) -> None:
        """Ask for a watched game by ``when`` at the latest."""
        self.recheck_at = min(self.recheck_at, when)

    def timers(self, now: float) -> None:
        game = self._game()
        if game is not None and game.pending is not None and self.sent is None and \
                now - self.move_sent_at > RESUME_TIMEOUT:
            # the server answers some malformed moves with nothing at all: ask for the game
            self.link.note("the server did not answer the board's move; asking for the game")
            self.ask()
        if self.sent is not None and now - self.sent > RESUME_TIMEOUT:
            self.sent = None
            self.tries += 1
            game = self._game()
            # the server answers nothing for a game it no longer has (one that left the lobby
            # while watched has ended: once is enough)
            tries = 1 if game and game.watching and game.id not in self.link.lobby.games else 3
            if self.tries < tries:
                self.ask()
            elif game is not None:
                game.over = True
                leave = RemoteLeave(
                    "the server no longer has this game: it ended without a result shown "
                    "here (a draw the players agreed on is not shown to watchers)"
                    if game.watching else
                    "the server no longer has this game (it ended while the board was away, "
                    "or without a result); its result is on the server", "game_gone")
                self.link.emit(leave)
                self.link.state = "lobby"
                self.link.note(leave.reason, leave.code)   # (for the page; publishes)

    def recheck_watched(self, now: float) -> None:
        """A watched game quiet since :meth:`heard`: is it still going on? (no answer: it is
        gone)."""
        game = self._game()
        if game is not None and game.watching and not game.over and self.sent is None and \
                now >= self.recheck_at:
            self.heard(now)
            self.ask()
