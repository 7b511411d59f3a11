"""Escape threats, as tafl players announce them: *raichi* and *tuichi*.

Players of tafl games warn each other when the king has a free line to an escape square: "raichi"
(the king can reach an escape square with his next move) and "tuichi" (he can reach two of them,
which one blocking move cannot stop); the words come from Linnaeus's account of Tablut. Here:

- the escape squares are the rule set's: the restricted corner squares (one per corner, or the
  2×2 blocks) with ``escape = corners``, every edge square with ``escape = edge``;
- a *free line* is a legal king move to such a square, by the rules core's own move generation
  (so the throne, the restricted squares and every other rule are respected), whichever side is
  to move; after the defenders' move it is a threat, on their own turn it is a win in one;
- none once the game has ended or when the king is off the board.

Pure and fast: one call to :meth:`Board.destinations` for the king.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from ..squares import square_name
from .board import Board

RAICHI = "raichi"
TUICHI = "tuichi"


class ThreatJSON(TypedDict):
    """An escape threat as JSON: its kind, the king's square and the escape squares."""

    kind: str
    king: str
    squares: list[str]


@dataclass(frozen=True)
class EscapeThreat:
    """The king (his square) and the escape squares he can reach in one move (by file, then
    rank)."""

    king: int
    squares: tuple[int, ...]

    @property
    def kind(self) -> str:
        """``"raichi"`` for one escape square, ``"tuichi"`` for two or more."""
        return RAICHI if len(self.squares) == 1 else TUICHI

    def to_json(self, size: int) -> ThreatJSON:
        """``{"kind": "raichi", "king": "a4", "squares": ["a7"]}`` on a ``size`` board."""
        return {"kind": self.kind, "king": square_name(self.king, size),
                "squares": [square_name(s, size) for s in self.squares]}


def escape_squares(board: Board) -> int:
    """Bitboard of the squares where the king wins by arriving."""
    geo = board.geo
    return geo.corner if board.rules.escape == "corners" else geo.edge


def escape_threat(board: Board) -> EscapeThreat | None:
    """The king's free lines to escape squares, or None when he has none (or the game is over)."""
    if board.king < 0 or board.outcome() is not None:
        return None
    goal = escape_squares(board)
    geo = board.geo
    reach = sorted((s for s in board.destinations(board.king) if goal >> s & 1),
                   key=lambda s: (s % geo.n, s // geo.n))
    if not reach:
        return None
    return EscapeThreat(board.king, tuple(reach))


def threat_json(board: Board) -> ThreatJSON | None:
    """:func:`escape_threat` as JSON (what ``/api/state`` carries as ``threat``)."""
    threat = escape_threat(board)
    return threat.to_json(board.size) if threat else None
