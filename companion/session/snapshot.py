"""What the loop thread publishes for every other thread: an immutable snapshot of the session.

Web threads read the page state (as data and as its JSON text), the legal moves and what a
player link needs (the game, the match and its game number) from the latest :class:`Snapshot`
without taking any lock the loop holds while it works: the loop builds a new snapshot and swaps
the reference (an atomic assignment), and nothing in a published snapshot changes afterwards.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TypedDict

from companion.rules.game import Game


class LegalTarget(TypedDict):
    to: str
    captures: list[str]


class LegalMoves(TypedDict):
    """``GET /api/legal``: the side to move and its legal moves by origin square."""

    game: int
    turn: str
    ply: int
    moves: dict[str, list[LegalTarget]]


def legal_moves(game: Game, gid: int) -> LegalMoves:
    """The legal moves of ``game``'s side to move, with the captures of each (none once the
    game is over)."""
    board = game.board
    names = board.geo.names
    moves: dict[str, list[LegalTarget]] = {}
    if not game.is_over():
        for m in board.legal_moves():
            caps, _ = board.preview(m)
            captured = sorted(names[s] for s in caps)
            moves.setdefault(names[m.frm], []).append({"to": names[m.to], "captures": captured})
    return {"game": gid, "turn": game.turn, "ply": len(game.played), "moves": moves}


@dataclass(frozen=True)
class Snapshot:
    """The session as last published. ``state`` is the ``/api/state`` document (never changed
    after publication); ``text`` its JSON, made once on first use."""

    state: Mapping[str, object]
    legal: LegalMoves
    gid: int = 0
    match_id: int | None = None
    match_number: int = 0
    version: int = 0

    @cached_property
    def text(self) -> str:
        return json.dumps(self.state, separators=(",", ":"), ensure_ascii=False)


EMPTY = Snapshot({}, {"game": 0, "turn": "attackers", "ply": 0, "moves": {}})
