"""The JSON documents the game store keeps and gives back, as types: what a stored game, match,
move, link and analysis look like to the session and the pages (docs/http-api.md shows them).

The store writes these as JSON and reads its own JSON back; the shapes are checked where they
are built. An event row's data (:data:`RowData`) is any of the kinds docs/events.md lists: the
store writes it whole and never reads into it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

if TYPE_CHECKING:  # the session's clock record, kept with each move (no import at run time)
    from companion.engine.analysis import ReviewJSON
    from companion.session.move_clocks import ClockRecord

#: An event row's data (see the module docstring).
RowData = Mapping[str, object]
#: An event row's data as read back (``GET /api/games/<id>``'s ``events``).
StoredEvent = dict[str, Any]  # JSON edge: the events table's data column, parsed
#: An event row: (kind, data, wall time).
EventRow = tuple[str, RowData, float]


class PlayerJSON(TypedDict):
    """A side's player (``players`` of the state, of ``POST /api/players`` and of a stored
    game)."""

    name: str
    kind: str
    level: NotRequired[int]
    command: NotRequired[str]
    seconds: NotRequired[float]
    board: NotRequired[str]  # club: the other board's name in the club
    rating: NotRequired[float]  # online: the opponent's rating on the server


class SettingsJSON(TypedDict):
    """``settings`` of the page state and of a stored game: the variant, the house rules
    changed from it, and every rule option as it is then."""

    variant: str
    options: dict[str, object]
    rules: dict[str, object]


class MatchSettings(SettingsJSON):
    """A stored match's settings: its games' and the seats (player A, player B)."""

    seats: list[PlayerJSON]


class NewMatch(TypedDict):
    """A match stored with its first game: the two players' names, its tie rules and
    settings."""

    players: tuple[str, str]
    tie_break: tuple[str, ...]
    settings: MatchSettings


class MatchResult(TypedDict):
    """A finished match: points per player name, the winner's name (None: drawn) and how it
    was decided (``score``, a tie criterion or ``tie``)."""

    score: dict[str, float]
    winner: str | None
    decided_by: str


class GameSettingsJSON(TypedDict):
    """A stored game's variant and options (house rules); ``name`` for a rule set of its own."""

    variant: str
    options: dict[str, object]
    name: NotRequired[str]


class ImportedJSON(TypedDict):
    """Where an imported game came from: the file's name and format, the day it gives."""

    name: str
    format: str
    date: str | None


class GameJSON(TypedDict):
    """A stored game in the list of games (``GET /api/games``)."""

    id: int
    variant: str
    started: float
    ended: float | None
    result: str
    reason: str | None
    players: dict[str, str]
    player_kinds: dict[str, str]
    plies: int
    finished: bool
    settings: GameSettingsJSON
    time_control: str | None
    match: int | None
    match_game: int | None
    hints: dict[str, int]
    analysed: bool
    imported: ImportedJSON | None


class MatchRowJSON(TypedDict):
    """A stored match (``GET /api/matches``)."""

    id: int
    started: float
    ended: float | None
    players: list[str]
    tie_break: list[str]
    settings: MatchSettings
    time_control: str | None
    result: MatchResult | None
    finished: bool


#: A stored move: ply, side, from, to, captured, record text, wall time, the seconds left per
#: side after it (None: no clock) and its clock record as stored.
StoredMove = TypedDict("StoredMove", {
    "ply": int, "side": str, "from": str, "to": str, "captured": list[str], "text": str,
    "t": float | None, "left": dict[str, float] | None, "clock": "ClockRecord | None"})


class Position(TypedDict):
    """A position of a stored game, for replay: OTN, side to move, the move that led to it."""

    position: str
    turn: str
    move: str | None


class LinkJSON(TypedDict):
    """A player link: its token, the game or match and the side or seat it is for."""

    token: str
    game_id: int | None
    match_id: int | None
    side: str | None
    seat: int | None


class AnalysisJSON(TypedDict):
    """A game's stored analysis: the moves analysed, the seconds per move, the engine, when,
    and the engine's review (companion.engine.analysis)."""

    moves: list[str]
    seconds: float
    engine: str
    created: float
    review: ReviewJSON
