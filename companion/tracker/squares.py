"""Square relations the tracker needs, on top of the one vocabulary in :mod:`companion.squares`."""

from __future__ import annotations

from ..rules import ATTACKERS
from ..rules.game import PlayedMove
from ..squares import line, parse_coords, same_line, touching

__all__ = ["captured_letters", "line", "on_line", "path", "same_line", "touching"]


def on_line(a: str, b: str, c: str) -> bool:
    """Whether ``c`` lies on the straight line through the different squares ``a`` and ``b``
    (a rank or file)."""
    (fa, ra), (fb, rb), (fc, rc) = parse_coords(a), parse_coords(b), parse_coords(c)
    return (fa == fb == fc) or (ra == rb == rc)


def path(frm: str, to: str, size: int) -> list[str]:
    """The squares of a straight move from ``frm`` to ``to`` extended by one square at each end
    (those on the board)."""
    return line(frm, to, size, extend=1)


def captured_letters(played: PlayedMove) -> dict[str, str]:
    """Piece letter of each square a move captured (the king is not listed in the text)."""
    soldier = "T" if played.side == ATTACKERS else "t"
    listed = set(played.text.split("x")[1:])
    return {s: (soldier if s in listed else "K") for s in played.captured}
