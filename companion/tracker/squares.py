"""Square relations the tracker needs, on top of the one vocabulary in :mod:`companion.squares`."""

from __future__ import annotations

from ..rules import ATTACKERS
from ..rules.game import PlayedMove
from ..squares import line, same_line, touching

__all__ = ["captured_letters", "path", "same_line", "touching"]


def path(frm: str, to: str, size: int) -> list[str]:
    """The squares of a straight move from ``frm`` to ``to`` extended by one square at each end
    (those on the board)."""
    return line(frm, to, size, extend=1)


def captured_letters(played: PlayedMove) -> dict[str, str]:
    """Piece letter of each square a move captured (the king is not listed in the text)."""
    soldier = "T" if played.side == ATTACKERS else "t"
    listed = set(played.text.split("x")[1:])
    return {s: (soldier if s in listed else "K") for s in played.captured}
