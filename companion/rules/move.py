"""Moves, sets of squares and why a move is illegal: the values that cross the library's edge.

A square is an int, ``rank * size + file`` (``a1`` is 0); names are read and written at the
edges through :mod:`companion.squares`.

>>> move = Move.parse("d1-d4", 7)
>>> move.frm, move.to
(3, 24)
>>> str(move)
'd1-d4'
>>> captured = SquareSet.from_squares([24, 10], 7)
>>> list(captured), str(captured)
([10, 24], 'd2 d4')
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

from ..squares import parse_square, square_name


class MoveError(ValueError):
    """A move that is malformed or not legal in the position; the message says why."""


class _Judge(Protocol):
    """What :meth:`Move.parse` needs of a board: its size and the legality check."""

    @property
    def size(self) -> int: ...

    def illegal_code(self, move: Move) -> Illegal | None: ...


@dataclass(frozen=True, slots=True)
class Move:
    """A move from square index ``frm`` to square index ``to``. ``size`` (the board's, when the
    move was made by a board or parsed) is only for printing: moves are equal, and hash alike,
    by their two squares.

    >>> Move(3, 24) == Move.parse("d1-d4", 7)
    True
    >>> Move.parse("d1-d4", 7)
    Move.parse('d1-d4', 7)
    >>> Move(3, 24)                        # no size: the squares stay indices
    Move(3, 24)
    """

    frm: int
    to: int
    size: int = field(default=0, compare=False)

    @classmethod
    def parse(cls, text: str, where: int | _Judge) -> Move:
        """Read ``"FROM-TO"`` (``"g3-e3"``) on a board of ``where`` squares a side, or on the
        board ``where``, where it must also be legal. MoveError says what is wrong; the text is
        strict, square names as :mod:`companion.squares` reads them, no spaces.

        >>> Move.parse("a4-a2", 7).to
        7
        >>> Move.parse("a4 a2", 7)
        Traceback (most recent call last):
        ...
        companion.rules.move.MoveError: malformed move 'a4 a2': expected FROM-TO like g3-e3
        >>> from companion.rules import Board
        >>> Move.parse("a4-b4", Board("brandubh"))
        Traceback (most recent call last):
        ...
        companion.rules.move.MoveError: illegal move a4-b4: b4 is occupied

        A record's captures (``"g3-e3xe2"``) are for :meth:`Board.parse_move
        <companion.rules.board.Board.parse_move>`."""
        size = where if isinstance(where, int) else where.size
        if isinstance(text, str) and "x" in text:
            raise MoveError(f"malformed move {text!r}: expected FROM-TO like g3-e3 (a record's "
                            "captures are read by Board.parse_move)")
        move = _parse(text, size, "")
        if not isinstance(where, int):
            why = where.illegal_code(move)
            if why is not None:
                raise MoveError(f"illegal move {move}: {why.text(size)}")
        return move

    def text(self, size: int) -> str:
        """``"g3-e3"``: the move's squares named on a ``size`` board (for the edges).

        >>> Move(3, 24).text(7)
        'd1-d4'
        """
        return f"{square_name(self.frm, size)}-{square_name(self.to, size)}"

    def __str__(self) -> str:
        """The move's text when its board size is known (``'d1-d4'``), else ``'Move(3, 24)'``."""
        return self.text(self.size) if self.size else f"Move({self.frm}, {self.to})"

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r}, {self.size})" if self.size else str(self)


def _parse(text: object, size: int, caps: str) -> Move:
    """The ``FROM-TO`` part of a move text, ``caps`` the rest (MoveError if malformed)."""
    if not isinstance(text, str):
        raise MoveError(f"a move must be text like g3-e3, not {type(text).__name__}")
    squares = text.split("-")
    if len(squares) != 2:
        raise MoveError(f"malformed move {text + caps!r}: expected FROM-TO like g3-e3")
    try:
        return Move(parse_square(squares[0], size), parse_square(squares[1], size), size)
    except ValueError as exc:
        raise MoveError(f"malformed move {text + caps!r}: {exc}") from None


def parse_move_text(text: object, size: int) -> tuple[Move, list[int] | None]:
    """``"g3-e3"`` or a record's ``"g3-e3xe2"``: the move and the listed captures (None without
    an ``x`` part); MoveError for malformed text.

    >>> parse_move_text("b4-b2xb1", 7)
    (Move.parse('b4-b2', 7), [1])
    """
    if not isinstance(text, str):
        raise MoveError(f"a move must be text like g3-e3, not {type(text).__name__}")
    parts = text.split("x")
    move = _parse(parts[0], size, text[len(parts[0]):])
    try:
        caps = [parse_square(c, size) for c in parts[1:]] if len(parts) > 1 else None
    except ValueError as exc:
        raise MoveError(f"malformed move {text!r}: {exc}") from None
    return move, caps


class SquareSet:
    """A set of squares of one board, such as the pieces a move captured (python-chess's
    ``SquareSet``): iterating gives the square indices in ascending order; ``int(squares)`` is
    the bitboard (bit ``i`` set for square ``i``), and a set equals the int of its bitboard, so
    code written against the bitboards keeps working.

    >>> taken = SquareSet(0b1010, 7)
    >>> list(taken), len(taken), 3 in taken, bool(SquareSet(0))
    ([1, 3], 2, True, False)
    >>> taken.names(), taken == 0b1010
    (['b1', 'd1'], True)
    >>> taken
    SquareSet.from_squares([1, 3], 7)
    """

    __slots__ = ("mask", "size")

    def __init__(self, mask: int = 0, size: int = 0) -> None:
        self.mask = mask  #: the bitboard
        self.size = size  #: the board's size, for names (0: unknown)

    @classmethod
    def from_squares(cls, squares: Iterable[int], size: int = 0) -> SquareSet:
        """The set of ``squares`` (indices) on a ``size`` board.

        >>> SquareSet.from_squares([5, 0]).mask
        33
        """
        mask = 0
        for s in squares:
            mask |= 1 << s
        return cls(mask, size)

    def __iter__(self) -> Iterator[int]:
        bb = self.mask
        while bb:
            low = bb & -bb
            yield low.bit_length() - 1
            bb ^= low

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __contains__(self, square: object) -> bool:
        return isinstance(square, int) and square >= 0 and bool(self.mask >> square & 1)

    def __bool__(self) -> bool:
        return bool(self.mask)

    def __int__(self) -> int:
        return self.mask

    def __index__(self) -> int:
        return self.mask

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SquareSet):
            return self.mask == other.mask
        if isinstance(other, int) and not isinstance(other, bool):
            return self.mask == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.mask)

    def names(self) -> list[str]:
        """The squares' names in ascending index order (the set needs its board size).

        >>> SquareSet.from_squares([8, 1], 7).names()
        ['b1', 'b2']
        """
        if not self.size:
            raise ValueError("this square set does not know its board size")
        return [square_name(s, self.size) for s in self]

    def __str__(self) -> str:
        return " ".join(self.names()) if self.size else repr(self)

    def __repr__(self) -> str:
        size = f", {self.size}" if self.size else ""
        return f"SquareSet.from_squares({list(self)}{size})"


@dataclass(frozen=True, slots=True)
class Illegal:
    """Why a move is not legal, as data: a stable ``code`` (a key of :data:`ILLEGAL_TEXT`) and
    what its wording names: the square at fault, or (``not_your_turn``) the side to move and
    the side of the piece.

    >>> why = Illegal("occupied", 24)
    >>> why.details(7), why.text(7)
    ({'square': 'd4'}, 'd4 is occupied')
    """

    code: str
    square: int | None = None
    turn: str | None = None
    side: str | None = None

    def details(self, size: int) -> dict[str, str]:
        """The wording's data, squares named: ``{"square": "d4"}``, ``{"turn": ..., "side":
        ...}`` or ``{}``.

        >>> Illegal("not_your_turn", turn="attackers", side="defenders").details(7)
        {'turn': 'attackers', 'side': 'defenders'}
        """
        out: dict[str, str] = {}
        if self.square is not None:
            out["square"] = square_name(self.square, size)
        if self.turn is not None and self.side is not None:
            out["turn"], out["side"] = self.turn, self.side
        return out

    def text(self, size: int) -> str:
        """The reason in English.

        >>> Illegal("diagonal").text(7)
        'pieces move in straight lines along a rank or file, never diagonally'
        """
        return ILLEGAL_TEXT[self.code].format(**self.details(size))


#: Why a move is illegal (:meth:`Board.illegal_code`): code -> English wording of its data.
ILLEGAL_TEXT: dict[str, str] = {
    "game_over": "the game is over",
    "no_piece": "there is no piece on {square}",
    "not_your_turn": "it is the {turn}' turn, not the {side}'",
    "did_not_move": "the piece did not move",
    "occupied": "{square} is occupied",
    "diagonal": "pieces move in straight lines along a rank or file, never diagonally",
    "jump": "the piece cannot jump over the piece on {square}",
    "corner_pass": "nobody may pass through the corner {square}",
    "throne_pass": "this piece may not pass through the throne ({square})",
    "corner_stop": "only the king may stop on the corner {square}",
    "throne_return": "the king may not return to the throne",
    "throne_stop": "only the king may stop on the throne ({square})",
    "not_legal": "that move is not legal",
    "off_board": "the move leaves the board",
}
