"""What the parts of the board's game (:mod:`~companion.online.table`,
:mod:`~companion.online.play`, :mod:`~companion.online.resume`, :mod:`~companion.online.watch`)
need of the client that owns the connection (:class:`~companion.online.service.OnlineService`).
"""

from __future__ import annotations

from typing import Protocol

from companion.session.remote import RemoteEvent

from .lobby import Lobby


class Link(Protocol):
    """What the game needs of the service that owns the connection."""

    lobby: Lobby
    server: str
    state: str

    @property
    def lag(self) -> float: ...
    @property
    def logged_in(self) -> bool: ...
    @property
    def user(self) -> str | None: ...
    def send(self, line: str) -> None: ...
    def emit(self, event: RemoteEvent) -> None: ...
    def note(self, message: str, code: str | None = None) -> None: ...
    def publish(self) -> None: ...
    def logged_in_ok(self) -> None: ...
    def pong(self) -> None: ...
    def login_failed(self, code: str, message: str, retry: bool,
                     until: float | None = None) -> None: ...
