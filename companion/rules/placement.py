"""The pieces on a board: a rule set's geometry and the placement of its pieces, and what can be
read off it (the Board adds the side to move, the moves and the history).

>>> from companion.rules import Board
>>> board = Board("brandubh")
>>> board.piece_at(24), board.name(24), len(board.pieces("attackers"))
('K', 'd4', 8)
"""

from __future__ import annotations

from ..squares import file_letter
from .geometry import Geometry, geometry_for
from .otn import PositionError, format_otn, parse_otn
from .ruleset import ATTACKERS, DEFENDERS, RuleSet, Side, get_variant


class Placement:
    """The pieces of a position on a board of ``rules`` (a RuleSet or a preset's id):
    ``position`` is OTN, the variant's start by default. No soldier may stand on a corner or
    the throne (PositionError). ``att`` and ``dfn`` are the attackers' and the defender
    soldiers' bitboards, ``king`` the king's square (-1 once he is captured).

    >>> from companion.rules import Board
    >>> Board("brandubh").king
    24
    """

    def __init__(self, rules: RuleSet | str, position: str | None = None) -> None:
        if isinstance(rules, str):
            rules = get_variant(rules)
        self.rules = rules
        self.geo: Geometry = geometry_for(rules)
        self.att, self.dfn, self.king = parse_otn(position or rules.start, rules.size)
        geo = self.geo
        for bb, what in ((self.att, "an attacker"), (self.dfn, "a defender")):
            for s in geo.iter_bits(bb & (geo.corner | geo.throne_bit)):
                place = "throne" if s == geo.throne else "corner"
                raise PositionError(
                    f"{what} stands on the {place} {geo.names[s]}: only the king may stop there"
                )

    @property
    def size(self) -> int:
        """Board size (squares per side).

        >>> from companion.rules import Board
        >>> Board("copenhagen").size
        11
        """
        return self.rules.size

    @property
    def occupied(self) -> int:
        """Bitboard of every occupied square (bit ``i`` for square ``i``).

        >>> from companion.rules import Board
        >>> Board("brandubh", "/7/7/7/3K3/7/7/7/").occupied == 1 << 24
        True
        """
        return self.att | self.dfn | (self.geo.bit[self.king] if self.king >= 0 else 0)

    def occupied_names(self) -> frozenset[str]:
        """The occupied squares by name: what a perfect sensor scan of this position reads.

        >>> from companion.rules import Board
        >>> sorted(Board("brandubh", "/7/7/7/2TK3/7/7/7/").occupied_names())
        ['c4', 'd4']
        """
        return frozenset(self.geo.names[i] for i in self.geo.iter_bits(self.occupied))

    def otn(self) -> str:
        """The position as OTN (without the side to move).

        >>> from companion.rules import Board
        >>> Board("brandubh").otn()
        '/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/'
        """
        return format_otn(self.att, self.dfn, self.king, self.size)

    def name(self, square: int) -> str:
        """The name of a square index (printing, for the edges).

        >>> from companion.rules import Board
        >>> Board("copenhagen").name(120)
        'k11'
        """
        return self.geo.names[square]

    def occupied_squares(self) -> frozenset[int]:
        """The occupied squares.

        >>> from companion.rules import Board
        >>> sorted(Board("brandubh", "/7/7/7/2TK3/7/7/7/").occupied_squares())
        [23, 24]
        """
        return frozenset(self.geo.iter_bits(self.occupied))

    def piece_at(self, square: int) -> str | None:
        """``"t"`` (attacker), ``"T"`` (defender), ``"K"`` (king) or None.

        >>> from companion.rules import Board
        >>> board = Board("brandubh")
        >>> board.piece_at(3), board.piece_at(17), board.piece_at(24), board.piece_at(0)
        ('t', 'T', 'K', None)
        """
        if square == self.king:
            return "K"
        if self.att >> square & 1:
            return "t"
        if self.dfn >> square & 1:
            return "T"
        return None

    def side_of(self, square: int) -> Side | None:
        """The side of the piece on a square (the king's is the defenders), None if it is empty.

        >>> from companion.rules import Board
        >>> board = Board("brandubh")
        >>> board.side_of(3), board.side_of(24), board.side_of(0)
        (<Side.ATTACKERS: 'attackers'>, <Side.DEFENDERS: 'defenders'>, None)
        """
        piece = self.piece_at(square)
        if piece is None:
            return None
        return ATTACKERS if piece == "t" else DEFENDERS

    def pieces(self, side: str) -> list[int]:
        """Squares of every piece of ``side`` (the king included for the defenders), ascending.

        >>> from companion.rules import Board
        >>> Board("brandubh").pieces("defenders")
        [17, 23, 24, 25, 31]
        """
        if side == ATTACKERS:
            return list(self.geo.iter_bits(self.att))
        squares = list(self.geo.iter_bits(self.dfn))
        if self.king >= 0:
            squares.append(self.king)
        return sorted(squares)

    def __str__(self) -> str:
        """The board as text, rank by rank from the top (``+`` marks the corners and the
        empty throne).

        >>> from companion.rules import Board
        >>> print(Board("brandubh"))
         7 + . . t . . +
         6 . . . t . . .
         5 . . . T . . .
         4 t t T K T t t
         3 . . . T . . .
         2 . . . t . . .
         1 + . . t . . +
           a b c d e f g
        """
        rows = []
        for r in range(self.size - 1, -1, -1):
            cells = []
            for f in range(self.size):
                s = r * self.size + f
                p = self.piece_at(s)
                if p is None:
                    p = "+" if (self.geo.corner >> s & 1 or s == self.geo.throne) else "."
                cells.append(p)
            rows.append(f"{r + 1:>2} " + " ".join(cells))
        rows.append("   " + " ".join(file_letter(f) for f in range(self.size)))
        return "\n".join(rows)
