"""Square-name geometry the tracker needs (names like ``e3``; ``a1`` is bottom-left)."""

from __future__ import annotations

from ..rules import ATTACKERS
from ..rules.game import PlayedMove


def _coords(sq: str) -> tuple[int, int]:
    return ord(sq[0]) - 97, int(sq[1:]) - 1


def same_line(a: str, b: str) -> bool:
    """Whether two squares share a rank or a file."""
    (fa, ra), (fb, rb) = _coords(a), _coords(b)
    return fa == fb or ra == rb


def touching(a: str, b: str) -> bool:
    """Whether two different squares touch (orthogonally or diagonally)."""
    (fa, ra), (fb, rb) = _coords(a), _coords(b)
    return a != b and abs(fa - fb) <= 1 and abs(ra - rb) <= 1


def path(frm: str, to: str, size: int) -> list[str]:
    """The squares of a straight move from ``frm`` to ``to`` extended by one square at each end
    (those on the board)."""
    (f0, r0), (f1, r1) = _coords(frm), _coords(to)
    df, dr = (f1 > f0) - (f1 < f0), (r1 > r0) - (r1 < r0)
    n = max(abs(f1 - f0), abs(r1 - r0))
    out = []
    for i in range(-1, n + 2):
        f, r = f0 + i * df, r0 + i * dr
        if 0 <= f < size and 0 <= r < size:
            out.append(f"{chr(97 + f)}{r + 1}")
    return out


def captured_letters(played: PlayedMove) -> dict[str, str]:
    """Piece letter of each square a move captured (the king is not listed in the text)."""
    soldier = "T" if played.side == ATTACKERS else "t"
    listed = set(played.text.split("x")[1:])
    return {s: (soldier if s in listed else "K") for s in played.captured}
