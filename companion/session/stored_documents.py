"""The stored games' documents the page reads, as types: a game's detail, a match with its
games, a game's review (``GET /api/games/<id>``, ``/api/matches``, ``/api/review/<id>``;
docs/http-api.md shows them). :class:`~companion.session.library.Library` builds them;
:class:`~companion.session.api.SessionAPI` hands them to the web layer, which sends them as
they are.
"""

from __future__ import annotations

from typing import TypedDict

from companion.rules.ruleset import RulesJSON
from companion.rules.threats import ThreatJSON
from companion.store_types import (
    GameJSON,
    GameSettingsJSON,
    MatchRowJSON,
    PlayerJSON,
    Position,
    StoredEvent,
    StoredMove,
)


class GameDetail(GameJSON):
    """``GET /api/games/<id>``: the game with its players, moves, positions and events."""

    player_details: dict[str, PlayerJSON]
    moves: list[StoredMove]
    positions: list[Position]
    events: list[StoredEvent]


class MatchDetail(MatchRowJSON):
    """A stored match with its games (``GET /api/matches``)."""

    games: list[GameJSON]


class MatchReview(MatchDetail):
    """A match in a game's review: its score (counted from its games while it is played), its
    winner and how it was decided (None until it is)."""

    score: dict[str, float]
    winner: str | None
    decided_by: str | None


class Captured(TypedDict):
    """A piece a move captured: its square and kind."""

    square: str
    piece: str | None


#: A move in the review.
ReviewMove = TypedDict("ReviewMove", {
    "ply": int, "side": str, "from": str, "to": str, "text": str, "t": float | None,
    "left": dict[str, float] | None, "captured": list[Captured]})


class Review(TypedDict):
    """``GET /api/review/<id>`` (see :meth:`Library.review`)."""

    id: int
    variant: str
    rules: RulesJSON
    size: int
    throne: str | None
    corners: list[str]
    first: str
    players: dict[str, str]
    player_kinds: dict[str, str]
    player_levels: dict[str, int]
    settings: GameSettingsJSON
    time_control: str | None
    match: MatchReview | None
    match_game: int | None
    started: float
    ended: float | None
    result: str
    reason: str | None
    imported: StoredEvent | None  # the ``imported`` event's data with its name, format, date
    moves: list[ReviewMove]
    positions: list[str]
    threats: list[ThreatJSON | None]
    events: list[StoredEvent]
