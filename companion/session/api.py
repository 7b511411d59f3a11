"""The session as the web layer sees it: a small typed interface (no import of the daemon).

``companion.web`` depends on this Protocol only; :class:`~companion.session.core.GameSession`
implements it. Every control takes the :class:`~companion.session.actors.Actor` the web layer
resolved from the request's credentials and raises
:class:`~companion.session.actors.ControlError` (status, code, message) when it cannot be done;
nothing is changed then.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from companion.session.actors import Actor
from companion.store import Store


class SessionAPI(Protocol):
    """What the routes call."""

    @property
    def store(self) -> Store:
        """The game store, for reading (lists, replays, exports)."""
        ...

    def state_text(self) -> str:
        """The current ``/api/state`` JSON text."""
        ...

    def actor_for_player_token(self, token: str) -> Actor | None:
        """The player a player-link token stands for now, or None (unknown, or for a game that
        is no longer the current one)."""
        ...

    def legal_moves(self) -> dict:
        """The side to move and its legal moves, ``{"turn", "moves": {from: [to, ...]}}``, with
        the captures of each (for drawing targets on the page)."""
        ...

    # -- controls -------------------------------------------------------------------------
    def click(self, actor: Actor, square: str) -> bool: ...

    def choose_move(self, actor: Actor, move: str) -> dict: ...

    def new_game(self, actor: Actor, request: Mapping[str, object]) -> dict: ...

    def next_game(self, actor: Actor) -> dict: ...

    def takeback(self, actor: Actor) -> dict: ...

    def draw(self, actor: Actor, action: str, side: str | None) -> dict: ...

    def resign(self, actor: Actor, side: str | None) -> dict: ...

    def swap(self, actor: Actor) -> dict: ...

    def set_players(self, actor: Actor, request: Mapping[str, object]) -> dict: ...

    def player_links(self, actor: Actor) -> dict: ...

    def clock_control(self, actor: Actor, action: str) -> dict: ...

    def request_hint(self, actor: Actor, seconds: object = None) -> tuple[int, dict]:
        """(202, ``{"status": "thinking", "side"}``) or (200, the hint already shown)."""
        ...

    def start_analysis(self, actor: Actor, gid: int, seconds: object = None
                       ) -> tuple[int, dict]:
        """(202, progress) once queued, or (200, the stored analysis)."""
        ...

    def analysis(self, gid: int) -> dict:
        """``{"game", "status", "done", "total", "review", "error"?}`` (ControlError 404)."""
        ...
