"""What the session's controls answer, as types (the JSON of docs/http-api.md's control table:
the web layer sends them as they are).

Each is a TypedDict, so the shape a route answers is checked where the session builds it and
where a caller reads it; the JSON is unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NotRequired, TypedDict

from companion.store_types import PlayerJSON as PlayerJSON  # the player as stored with a game

if TYPE_CHECKING:
    from companion.engine.analysis import ReviewJSON


class TakebackResult(TypedDict):
    """``POST /api/takeback``: the move undone (latest first in ``moves``), or the decision
    reopened (``agreement``, ``resignation``); ``stopped`` when a computer was thinking."""

    undone: str
    moves: NotRequired[list[str]]
    stopped: NotRequired[bool]
    reopened: NotRequired[str]


class TakeRecordResult(TypedDict):
    """``POST /api/take_record``: the game's moves now and before the other end's record
    was taken."""

    moves: int
    before: int


class DrawResult(TypedDict):
    ok: bool
    draw_offer: str | None


class ResignResult(TypedDict):
    ok: bool
    result: str


class ClockResult(TypedDict):
    ok: bool
    paused: bool


class ConfirmResult(TypedDict):
    ok: bool
    checked: bool


class EndMoveResult(TypedDict):
    ok: bool
    switched: bool


class ReadingResult(TypedDict):
    ok: bool
    reading: bool


class GameStarted(TypedDict):
    """``POST /api/new``, ``/api/match``, ``/api/next``: the new game and its match."""

    game: int
    match: int | None


class SwapResult(TypedDict):
    players: dict[str, str]  # side -> name
    applies_to: str  # this_game or next_game


class PlayersResult(TypedDict):
    players: dict[str, PlayerJSON]


class PlayerLink(TypedDict):
    token: str
    path: str
    player: str
    url: NotRequired[str]  # added by the web layer (the address the page was reached on)


class LinksResult(TypedDict):
    links: dict[str, PlayerLink]  # side -> its link
    match: int | None
    game: int


#: The hint shown (``hint`` in the page state): the move, its squares, its score, who asked.
ShownHint = TypedDict("ShownHint", {"side": str, "move": str, "from": str, "to": str,
                                    "score": float, "by": str})


class HintAnswer(TypedDict):
    """``POST /api/hint``: ``ready`` with the hint shown, or ``thinking`` for ``side``."""

    status: str
    hint: NotRequired[ShownHint | None]
    side: NotRequired[str]


class AnalysisStatus(TypedDict):
    """``GET``/``POST /api/games/ID/analysis``: ``none``, ``queued``, ``running``, ``done`` or
    ``failed``, with the progress and, when done, the review."""

    game: int
    status: str
    done: int
    total: int
    review: ReviewJSON | None
    seconds: NotRequired[float]
    engine: NotRequired[str]
    error: NotRequired[str]
