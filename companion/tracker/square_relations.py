"""Square relations the tracker needs, on square indices of one board size.

Inside the tracker a square is an int (``rank * size + file``, as in the rules core); names are
made only for what it shows (the LED frame, guidance, the events' JSON). Where the tracker has
to pick among several squares it goes in *name order* (``a10`` before ``a2``), so that its
choices and every list it shows are the same whatever the representation.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from ..squares import SquareError, parse_square, square_names


class Grid:
    """The squares of a ``size`` x ``size`` board: names, name order, neighbourhood, lines."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.names: tuple[str, ...] = square_names(size)
        self._index = {name: i for i, name in enumerate(self.names)}
        order = sorted(range(size * size), key=self.names.__getitem__)
        self._rank = [0] * (size * size)
        for position, square in enumerate(order):
            self._rank[square] = position

    # -- names (the edges) --------------------------------------------------------------
    def parse(self, name: str) -> int:
        """The index of a square name (a scan's); SquareError if it is not one of this board."""
        i = self._index.get(name)
        return parse_square(name, self.size) if i is None else i

    def index_of(self, name: str) -> int | None:
        """The index of a square name of this board, None if it is not one."""
        return self._index.get(name)

    def on_board(self, names: Iterable[str]) -> list[str]:
        """The names of ``names`` that are squares of this board (SquareError for one that is
        no square name at all)."""
        out = []
        for n in names:
            if n in self._index:
                out.append(n)
            else:
                parse_square(n, 26)  # SquareError if it is not a square name
        return out

    def parse_all(self, names: Iterable[str]) -> frozenset[int]:
        """The indices of square names (SquareError for one that is not of this board)."""
        return frozenset(self.parse(n) for n in names)

    def name(self, square: int) -> str:
        """The name of a square."""
        return self.names[square]

    def sort(self, squares: Iterable[int]) -> list[int]:
        """``squares`` in name order."""
        return sorted(squares, key=self._rank.__getitem__)

    def name_list(self, squares: Iterable[int]) -> list[str]:
        """The names of ``squares``, sorted."""
        return sorted(self.names[s] for s in squares)

    # -- relations ----------------------------------------------------------------------
    def touching(self, a: int, b: int) -> bool:
        """Whether two different squares touch (orthogonally or diagonally)."""
        n = self.size
        return a != b and abs(a % n - b % n) <= 1 and abs(a // n - b // n) <= 1

    def on_line(self, a: int, b: int, c: int) -> bool:
        """Whether ``c`` lies on the rank or file through the different squares ``a``, ``b``."""
        n = self.size
        return (a % n == b % n == c % n) or (a // n == b // n == c // n)

    def line(self, frm: int, to: int, extend: int = 0) -> list[int]:
        """The squares of the straight line from ``frm`` to ``to`` (both included), extended by
        ``extend`` squares beyond each end where the board goes on (``frm == to``: just the
        square). SquareError if the two are not on one rank or file."""
        n = self.size
        f0, r0, f1, r1 = frm % n, frm // n, to % n, to // n
        if f0 != f1 and r0 != r1:
            raise SquareError(f"{self.names[frm]} and {self.names[to]} are not on one rank or "
                              "file")
        df, dr = (f1 > f0) - (f1 < f0), (r1 > r0) - (r1 < r0)
        steps = max(abs(f1 - f0), abs(r1 - r0))
        if not steps:
            return [frm]
        out = []
        for i in range(-extend, steps + extend + 1):
            f, r = f0 + i * df, r0 + i * dr
            if 0 <= f < n and 0 <= r < n:
                out.append(r * n + f)
        return out

    def path(self, frm: int, to: int) -> list[int]:
        """The squares of a straight move from ``frm`` to ``to`` extended by one square at each
        end (those on the board)."""
        return self.line(frm, to, extend=1)


@lru_cache(maxsize=32)
def grid_for(size: int) -> Grid:
    """The (cached) grid of a board size."""
    return Grid(size)
