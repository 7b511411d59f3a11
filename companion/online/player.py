"""The online opponent as the session sees it: a :class:`~companion.session.remote.RemotePlayer`
whose moves come from the hnefatafl.org server (:class:`~companion.online.service.OnlineService`).

Every method runs on the session's loop thread and only enqueues work for the network thread.
"""

from __future__ import annotations

from companion.rules import Move
from companion.session.remote import Inbox, RemoteKind, RemotePlayer, RemoteTerms

from .service import OnlineService


class OnlinePlayer:
    """The opponent of the board's game on the server."""

    def __init__(self, service: OnlineService) -> None:
        self.service = service

    @property
    def kind(self) -> RemoteKind:
        return RemoteKind.ONLINE

    @property
    def takebacks(self) -> bool:
        return False  # the server has no takeback: one at this board is refused

    def connect(self, inbox: Inbox) -> None:
        self.service.connect_inbox(inbox)

    def started(self, terms: RemoteTerms, moves: tuple[Move, ...]) -> None:
        table = self.service.table
        if terms.watched is not None:   # a watched game: the server's record again
            self.service.call(lambda: table.watch.again(terms))
        else:
            self.service.call(lambda: table.play.started(terms, moves))

    def send_move(self, ply: int, move: Move) -> None:
        play = self.service.table.play
        self.service.call(lambda: play.send_move(ply, move))

    def send_draw(self, side: str, action: str) -> None:
        play = self.service.table.play
        self.service.call(lambda: play.send_draw(action))

    def send_resign(self, side: str) -> None:
        self.service.call(self.service.table.play.send_resign)

    def send_takeback(self, ply: int) -> None:
        """Never called (``takebacks`` is False): the server cannot take a move back."""

    def stopped(self) -> None:
        self.service.call(self.service.table.play.stopped)

    def close(self) -> None:
        """The service outlives a game (the lobby stays): the daemon closes it."""


def _is_a_remote_player(player: OnlinePlayer) -> RemotePlayer:
    return player  # mypy checks that OnlinePlayer implements the session's protocol
