"""One square vocabulary for the whole project: names <-> (file, rank) <-> index, strictly.

A square name is a lower-case ASCII file letter followed by the rank in ASCII digits without a
leading zero: ``a1`` is the bottom-left corner, ``k11`` the top-right one of an 11x11 board.
Files and ranks are zero-based numbers here (``a1`` is file 0, rank 0); a square's *index* is
``rank * size + file``, the layout of the rules core's bitboards.

Parsing is strict, because names arrive from the network, from files and from drivers: ``A1``,
``a01``, ``a1 `` (whitespace), ``a+1``, ``a١`` (a non-ASCII digit) or ``ａ1`` (a full-width
letter) are not square names, and :class:`SquareError` (a ``ValueError``) names the text and
says what is wrong with it. Nothing is normalised on the way: a name is accepted exactly as
written or refused.

Boards are square, 1x1 up to 26x26 (files ``a``..``z``); the project's variants use 7 to 19.
"""

from __future__ import annotations

from functools import lru_cache

MAX_SIZE = 26

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_DIGITS = "0123456789"
#: Every canonical name on the largest board -> (file, rank): one dict look-up per parse.
_COORDS: dict[str, tuple[int, int]] = {
    f"{_LETTERS[f]}{r + 1}": (f, r) for f in range(MAX_SIZE) for r in range(MAX_SIZE)
}


class SquareError(ValueError):
    """Text that is not a canonical square name, or a square that is not on the board."""


def check_size(size: int) -> int:
    """``size`` if it is a board size this vocabulary can name (1..26), else SquareError."""
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_SIZE:
        raise SquareError(f"board size must be a whole number from 1 to {MAX_SIZE}, not {size!r}")
    return size


def _problem(text: object) -> str:
    """Why ``text`` is not a square name (for the error message)."""
    if not isinstance(text, str):
        return f"a square name must be text, not {type(text).__name__}"
    if not text:
        return "empty square name"
    if text != text.strip() or any(c.isspace() for c in text):
        return f"square name {text!r} contains whitespace"
    if not text.isascii():
        return (f"square name {text!r} contains non-ASCII characters (write a file letter a-z "
                "and ASCII digits, like e3)")
    head, rank = text[0], text[1:]
    if head in _LETTERS.upper():
        return f"square name {text!r}: the file letter must be lower-case ({head.lower()}{rank})"
    if head not in _LETTERS:
        return f"square name {text!r} must start with a file letter a-z"
    if not rank:
        return f"square name {text!r} has no rank"
    if any(c not in _DIGITS for c in rank):
        return f"square name {text!r}: the rank must be digits only"
    if rank[0] == "0":
        return f"square name {text!r}: the rank may not start with 0"
    return f"square {text!r} is beyond the largest board ({MAX_SIZE}x{MAX_SIZE})"


def parse_coords(text: str, size: int = MAX_SIZE) -> tuple[int, int]:
    """Zero-based ``(file, rank)`` of a square name on a ``size`` x ``size`` board.

    >>> parse_coords("c2", 7)
    (2, 1)

    SquareError if ``text`` is not a canonical name or the square is off the board."""
    try:
        f, r = _COORDS[text]
    except (KeyError, TypeError):
        raise SquareError(_problem(text)) from None
    if f >= size or r >= size:
        raise SquareError(f"square {text!r} is off the {size}x{size} board")
    return f, r


def coords_name(file: int, rank: int, size: int = MAX_SIZE) -> str:
    """The name of the square at zero-based ``file`` and ``rank``: ``coords_name(0, 0) == "a1"``.
    SquareError if it is off a ``size`` x ``size`` board."""
    if not (0 <= file < size and 0 <= rank < size):
        raise SquareError(f"file {file}, rank {rank} is off the {size}x{size} board")
    return f"{_LETTERS[file]}{rank + 1}"


def file_letter(file: int) -> str:
    """The letter of a zero-based file: ``file_letter(4) == "e"``."""
    if not 0 <= file < MAX_SIZE:
        raise SquareError(f"file {file} has no letter (files are 0 to {MAX_SIZE - 1})")
    return _LETTERS[file]


@lru_cache(maxsize=MAX_SIZE + 1)
def square_names(size: int) -> tuple[str, ...]:
    """Every square name of a ``size`` board in index order (``a1``, ``b1``, ..., ``a2``, ...)."""
    check_size(size)
    return tuple(f"{_LETTERS[i % size]}{i // size + 1}" for i in range(size * size))


def parse_square(text: str, size: int) -> int:
    """The index (``rank * size + file``) of a square name on a ``size`` board; SquareError if it
    is not a canonical name or not on the board."""
    f, r = parse_coords(text, size)
    return r * size + f


def square_name(index: int, size: int) -> str:
    """The name of square ``index`` on a ``size`` board; SquareError if it is off the board."""
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < size * size:
        raise SquareError(f"square index {index!r} is off the {size}x{size} board")
    return square_names(size)[index]


def is_square_name(text: object, size: int = MAX_SIZE) -> bool:
    """Whether ``text`` is a canonical name of a square on a ``size`` board."""
    c = _COORDS.get(text) if isinstance(text, str) else None
    return c is not None and c[0] < size and c[1] < size


def with_article(number: int, rest: str) -> str:
    """``"a 7x7 board"``, ``"an 11x11 board"``: "a" or "an" before ``number`` as it is spoken
    (eight, eleven, eighteen, eighty…, eleven thousand begin with a vowel), then ``rest``."""
    digits = str(abs(number))
    vowel = digits[0] == "8" or (digits[:2] in ("11", "18") and (len(digits) - 2) % 3 == 0)
    return f"{'an' if vowel else 'a'} {number}{rest}"


def a_board(size: int) -> str:
    """``"a 7x7 board"``, ``"an 11x11 board"`` (for messages)."""
    return with_article(size, f"x{size} board")
