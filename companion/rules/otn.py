"""OpenTafl notation (OTN) for positions: parse and write, with precise errors.

Row records are separated by ``/``; the first record is rank 1. Inside a row a run of digits
counts empty squares, ``t`` is an attacker, ``T`` a defender and ``K`` the king.
"""

from __future__ import annotations

from ..squares import a_board

_DIGITS = "0123456789"


class PositionError(ValueError):
    """A malformed position; the message names the row and character at fault."""


def parse_otn(text: str, size: int) -> tuple[int, int, int]:
    """Parse an OTN position for a ``size``×``size`` board into ``(att, dfn, king)`` (bitboards
    and the king's square, -1 if there is none).

    >>> parse_otn("/3t3/7/7/3K3/7/7/3T3/", 7) == (1 << 3, 1 << 45, 24)  # d1, d7, the king d4
    True
    >>> parse_otn("/3t3/7/7/3K3/7/7/", 7)
    Traceback (most recent call last):
    ...
    companion.rules.otn.PositionError: position has 6 rows, a 7x7 board needs 7
    """
    if not isinstance(text, str) or not text.strip():
        raise PositionError("empty position")
    body = text.strip()
    if body.startswith("/"):
        body = body[1:]
    if body.endswith("/"):
        body = body[:-1]
    rows = body.split("/")
    if len(rows) != size:
        raise PositionError(f"position has {len(rows)} rows, {a_board(size)} needs {size}")
    att = dfn = 0
    king = -1
    king_at = ""
    for r, row in enumerate(rows):
        rank = r + 1
        f = 0
        i = 0
        while i < len(row):
            ch = row[i]
            if ch in _DIGITS:
                j = i
                while j < len(row) and row[j] in _DIGITS:
                    j += 1
                if row[i] == "0":
                    raise PositionError(
                        f"row {rank}: a run of empty squares cannot start with 0 "
                        f"(character {i + 1}, {row[i:j][:8]!r})"
                    )
                f += int(row[i:j]) if j - i <= 3 else size + 1  # (a long run: too long)
                if f > size:
                    raise PositionError(
                        f"row {rank} is longer than {size} squares at character {i + 1} "
                        f"({row[i:j][:8]!r})"
                    )
                i = j
            elif ch in "tTK":
                if f >= size:
                    raise PositionError(
                        f"row {rank} is longer than {size} squares at character "
                        f"{i + 1} ({ch!r})"
                    )
                sq = r * size + f
                if ch == "t":
                    att |= 1 << sq
                elif ch == "T":
                    dfn |= 1 << sq
                else:
                    if king >= 0:
                        raise PositionError(
                            f"two kings: row {rank} character {i + 1}, and {king_at}"
                        )
                    king = sq
                    king_at = f"row {rank} character {i + 1}"
                f += 1
                i += 1
            else:
                raise PositionError(
                    f"row {rank}: unexpected character {ch!r} at character {i + 1} "
                    "(expected a digit, t, T or K)"
                )
        if f != size:
            where = f" (ends after character {len(row)})" if row else " (empty)"
            raise PositionError(
                f"row {rank} is too short: {f} squares{where}, {a_board(size)} needs {size}"
            )
    return att, dfn, king


def format_otn(att: int, dfn: int, king: int, size: int) -> str:
    """Write a position as OTN (leading and trailing ``/``, first record rank 1).

    >>> format_otn(8, 1 << 45, 24, 7)
    '/3t3/7/7/3K3/7/7/3T3/'
    """
    out = []
    for r in range(size):
        row = []
        empty = 0
        for f in range(size):
            sq = r * size + f
            ch = ""
            if sq == king:
                ch = "K"
            elif att >> sq & 1:
                ch = "t"
            elif dfn >> sq & 1:
                ch = "T"
            if ch:
                if empty:
                    row.append(str(empty))
                    empty = 0
                row.append(ch)
            else:
                empty += 1
        if empty:
            row.append(str(empty))
        out.append("".join(row))
    return "/" + "/".join(out) + "/"
