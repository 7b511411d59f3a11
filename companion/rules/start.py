"""Starting a game from any position (a study, an endgame, a game from a book, a position set
up on the board): whether a position is a legal start for a variant, and the position of a set
of pieces.

A legal start (VARIANTS.md is silent; the project's choice, docs/rules.md):

- the placement fits the board and no soldier stands on a corner or the throne (as for every
  position, :class:`~companion.rules.Board`);
- there is exactly one king (a game without one is over: the attackers have won);
- neither side has more pieces than the variant starts with (pieces are only ever removed);
- the game is not decided already: the king does not stand on an escape square, the defenders
  are not encircled (with the encirclement rule) and have no exit fort (with that rule);
- the side to move has a legal move.
"""

from __future__ import annotations

from collections.abc import Mapping

from . import core
from .board import Board, Position
from .otn import PositionError, format_otn
from .ruleset import ATTACKERS, DEFENDERS, RuleSet

_SIDE_WORDS = {ATTACKERS: "attackers", DEFENDERS: "defenders"}


def placement(size: int, pieces: Mapping[int, str]) -> str:
    """The OTN placement of ``pieces`` (square -> ``t``/``T``/``K``) on a ``size`` board;
    PositionError for a square off the board, an unknown letter or a second king.

    >>> placement(7, {24: "K", 3: "t"})
    '/3t3/7/7/3K3/7/7/7/'
    """
    att = dfn = 0
    king = -1
    for square, piece in pieces.items():
        if not 0 <= square < size * size:
            raise PositionError(f"square {square} is off the {size}x{size} board")
        if piece == "t":
            att |= 1 << square
        elif piece == "T":
            dfn |= 1 << square
        elif piece == "K":
            if king >= 0:
                raise PositionError("two kings")
            king = square
        else:
            raise PositionError(f"unknown piece {piece!r} (t, T or K)")
    return format_otn(att, dfn, king, size)


def check_start(rules: RuleSet, position: Position) -> Board:
    """A board at ``position`` when it is a legal start for ``rules`` (see the module
    docstring); PositionError saying what is wrong otherwise.

    >>> from companion.rules import PRESETS
    >>> check_start(PRESETS["brandubh"], Position("/3t3/7/7/3K3/7/7/7/", "attackers")).otn()
    '/3t3/7/7/3K3/7/7/7/'
    >>> check_start(PRESETS["brandubh"], Position("/3t3/7/7/7/7/7/7/", "attackers"))
    Traceback (most recent call last):
    ...
    companion.rules.otn.PositionError: there is no king on the board
    """
    board = Board(rules, position.otn, position.turn)  # the placement, soldiers on corners
    if board.king < 0:
        raise PositionError("there is no king on the board")
    start = Board(rules)
    for side, have, most in ((ATTACKERS, board.att, start.att), (DEFENDERS, board.dfn, start.dfn)):
        n, limit = have.bit_count(), most.bit_count()
        if n > limit:
            raise PositionError(f"{n} {_SIDE_WORDS[side]} (not counting the king): "
                                f"{rules.name} has {limit} at most")
    geo = board.geo
    goal = geo.corner if rules.escape == "corners" else geo.edge
    if goal >> board.king & 1:
        raise PositionError(f"the king on {board.name(board.king)} has already escaped")
    if rules.encirclement and core.encircled(geo, board.att, board.dfn, board.king):
        raise PositionError("the defenders are already encircled")
    if rules.exit_fort and core.exit_fort(geo, rules, board.att, board.dfn, board.king,
                                          board.king_left):
        raise PositionError("the king already has an exit fort")
    if not board.has_legal_move():
        raise PositionError(f"the {board.turn} (to move) have no legal move")
    return board


def start_from_pieces(rules: RuleSet, pieces: Mapping[int, str], turn: str) -> Position:
    """The position of ``pieces`` (square -> ``t``/``T``/``K``) with ``turn`` to move, checked
    as a legal start for ``rules`` (PositionError saying what is wrong).

    >>> from companion.rules import PRESETS
    >>> start_from_pieces(PRESETS["brandubh"], {24: "K", 3: "t"}, "defenders")
    Position(otn='/3t3/7/7/3K3/7/7/7/', turn='defenders')
    """
    if turn not in (ATTACKERS, DEFENDERS):
        raise PositionError(f"turn must be attackers or defenders, not {turn!r}")
    position = Position(placement(rules.size, pieces), turn)
    check_start(rules, position)
    return position

