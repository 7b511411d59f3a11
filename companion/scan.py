"""The scan: what every sensor driver produces and what the tracker consumes.

Data flows one way: sensors -> scans -> tracker -> game -> feedback. A scan is the set of
occupied squares at one instant, named in the one square vocabulary of :mod:`companion.squares`
(``a1`` is the bottom-left corner). Boards with polarity-sensing (linear Hall) sensors also
report the colour of the piece on each occupied square: ``"a"`` for an attacker magnet (south
pole up), ``"d"`` for a defender or the king (north pole up). Colour is optional information:
the tracker keeps piece identity itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ATTACKER_COLOUR = "a"
DEFENDER_COLOUR = "d"


@dataclass(frozen=True, slots=True)
class Scan:
    """One full reading of the board at time ``t`` (seconds, on the caller's clock)."""

    t: float
    occupied: frozenset[str]
    colours: dict[str, str] | None = field(default=None, compare=False, hash=False)
