"""Plain-language wording for the tracker's guidance messages."""

from __future__ import annotations

from collections.abc import Iterable

from ..rules import ATTACKERS

PIECE_WORD = {"t": "attacker", "T": "defender", "K": "king"}
COLOUR_OF = {"t": "a", "T": "d", "K": "d"}
COLOUR_WORD = {"a": "an attacker", "d": "a defender"}


def side_word(side: str) -> str:
    """``"Attackers"`` / ``"Defenders"``."""
    return side.capitalize()


def side_colour(side: str) -> str:
    """The sensor colour (``"a"``/``"d"``) of a side's pieces."""
    return "a" if side == ATTACKERS else "d"


def join(words: Iterable[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(words)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def article(word: str) -> str:
    """``an attacker``, ``a defender``, ``the king``."""
    if word == "king":
        return "the king"
    return ("an " if word[0] in "aeiou" else "a ") + word


def pieces_on(pieces: dict[str, str]) -> str:
    """``the captured attacker on e2`` style list: ``attacker on e2``, ``attackers on e2 and g4``,
    ``king on f6``; mixed kinds are listed one by one."""
    kinds = {PIECE_WORD[p] for p in pieces.values()}
    squares = sorted(pieces)
    if len(kinds) == 1:
        word = kinds.pop()
        plural = len(squares) > 1 and word != "king"
        return f"{word}{'s' if plural else ''} on {join(squares)}"
    return join(f"{PIECE_WORD[pieces[s]]} on {s}" for s in squares)


def setup_message(fill: dict[str, str], clear: Iterable[str], recolour: dict[str, str]) -> str:
    """Guidance to make the board match a position: ``fill`` maps squares to the piece letter to
    place there, ``clear`` squares to empty, ``recolour`` squares holding the wrong kind of piece
    (square -> the piece letter that belongs there)."""
    clear = sorted(clear)
    parts = []
    if len(fill) > 6:
        counts: dict[str, int] = {}
        for p in fill.values():
            counts[p] = counts.get(p, 0) + 1
        words = []
        for p in ("t", "T", "K"):
            n = counts.get(p, 0)
            if n:
                w = PIECE_WORD[p]
                words.append(article(w) if n == 1 else f"{n} {w}s")
        parts.append(f"place {join(words)} on the lit squares")
    else:
        by_kind: dict[str, list[str]] = {}
        for sq, p in sorted(fill.items()):
            by_kind.setdefault(p, []).append(sq)
        for p, squares in by_kind.items():
            w = PIECE_WORD[p]
            what = article(w) if len(squares) == 1 else f"{w}s"
            parts.append(f"place {what} on {join(squares)}")
    if clear:
        parts.append(f"clear {join(clear) if len(clear) <= 6 else f'{len(clear)} lit squares'}")
    for sq, p in sorted(recolour.items()):
        parts.append(f"{sq} should hold {article(PIECE_WORD[p])}")
    return "Setup: " + "; ".join(parts)
