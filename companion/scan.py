"""The scan: what every sensor driver produces and what the tracker consumes.

Data flows one way: sensors -> scans -> tracker -> game -> feedback. A scan is the set of
occupied squares at one instant, named in the notation of VARIANTS.md (``a1`` is the bottom-left
corner). Boards with polarity-sensing (linear Hall) sensors also report the colour of the piece on
each occupied square: ``"a"`` for an attacker magnet (south pole up), ``"d"`` for a defender or
the king (north pole up). Colour is optional information: the tracker keeps piece identity itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ATTACKER_COLOUR = "a"
DEFENDER_COLOUR = "d"

#: The LED roles a feedback frame may give a square (see ``companion.feedback``).
LED_ROLES = ("capture", "illegal", "from", "to", "target", "setup", "win")


@dataclass(frozen=True, slots=True)
class Scan:
    """One full reading of the board at time ``t`` (seconds, on the caller's clock)."""

    t: float
    occupied: frozenset[str]
    colours: dict[str, str] | None = field(default=None, compare=False, hash=False)


def square_name(file: int, rank: int) -> str:
    """Name of the square at zero-based ``file`` (column from the left) and ``rank`` (row from
    the bottom): ``square_name(0, 0) == "a1"``."""
    return f"{chr(ord('a') + file)}{rank + 1}"


def parse_square_name(name: str, size: int) -> tuple[int, int]:
    """Zero-based ``(file, rank)`` of a square name; ValueError if it is off the board."""
    if len(name) < 2 or not name[0].isalpha() or not name[1:].isdigit():
        raise ValueError(f"not a square name: {name!r}")
    file = ord(name[0].lower()) - ord("a")
    rank = int(name[1:]) - 1
    if not (0 <= file < size and 0 <= rank < size):
        raise ValueError(f"square {name!r} is off a {size}x{size} board")
    return file, rank
