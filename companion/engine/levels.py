"""Playing levels 1–10 and the move choice they make.

Every level is a search limit (depth or nodes) with a time cap, and for the weak levels a
random error: ``noise`` is the standard deviation (hundredths of a soldier) added to every root
move's exact score before the best is taken, and ``blunder`` the chance of playing a random move
that does not lose at once. The random choices come from a generator seeded with the engine's
seed and the position, so a level plays the same move in the same position and game every
time. Levels 1–8 are node- or depth-limited, so on this machine they are deterministic; their time
cap (``seconds``) only binds on slower hardware. Levels 9–10 think for a fixed time, longer than
level 8's cap, so that they stay above it on slow hardware too (where level 8 is cut by its cap).

On a Raspberry Pi Zero 2 W (about ten times slower than a desktop core) every level answers
within its ``seconds`` (+10 %): the default level 6 within 5 s.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Level:
    """One playing level."""

    number: int
    name: str
    depth: int | None
    nodes: int | None
    seconds: float
    noise: int = 0
    blunder: float = 0.0
    # approximate Elo rating in Copenhagen (see RATINGS), None where not measured
    rating: int | None = None

    def to_json(self) -> dict[str, object]:
        """The level as a dict (for the page and the docs)."""
        return {
            "level": self.number, "name": self.name, "depth": self.depth, "nodes": self.nodes,
            "seconds": self.seconds, "noise": self.noise, "blunder": self.blunder,
            "rating": self.rating,
        }


LEVELS: dict[int, Level] = {
    lv.number: lv
    for lv in (
        Level(1, "beginner", depth=1, nodes=None, seconds=1.0, noise=250, blunder=0.3),
        Level(2, "novice", depth=1, nodes=None, seconds=1.0, noise=120, blunder=0.15),
        Level(3, "casual", depth=2, nodes=None, seconds=1.5, noise=80, blunder=0.05),
        Level(4, "club", depth=2, nodes=None, seconds=1.5, noise=40),
        Level(5, "keen", depth=None, nodes=12_000, seconds=2.0),
        Level(6, "strong", depth=None, nodes=20_000, seconds=5.0),
        Level(7, "expert", depth=None, nodes=60_000, seconds=6.0),
        Level(8, "master", depth=None, nodes=200_000, seconds=8.0),
        Level(9, "grandmaster", depth=None, nodes=None, seconds=10.0),
        Level(10, "full strength", depth=None, nodes=None, seconds=20.0),
    )
}
DEFAULT_LEVEL = 6
FULL_STRENGTH = 10


def with_ratings(levels: dict[int, Level], ratings: dict[int, int]) -> dict[int, Level]:
    """The levels with their measured ratings."""
    return {n: replace(lv, rating=ratings.get(n)) for n, lv in levels.items()}


# Elo ratings in Copenhagen (docs/engine.md, "Level ratings"), measured by bench/ladder.py
# --anchor on 2026-12-03 with this round's engine (the second network, the native core's
# evaluation table): the anchor is the engine's full strength at 0.1 CPU second a move, rated
# 2000 by convention; levels 6-10 played it as they play in a game (levels 9 and 10, which think
# for a time, at a tenth of their seconds: 1 and 2 s, so their ratings are lower bounds), 16
# games each. Level 5 scored 0.5 / 16 against the anchor, which measures nothing, so it and
# levels 1-4 are chained down by steps, each against the level above (6 over 5: 32 games; the
# steps below: 48 games each, two runs pooled). Intervals of +-60 to +-200 Elo a match: read
# them as an order and rough distances.
RATINGS: dict[int, int] = {
    1: 866, 2: 978, 3: 1271, 4: 1408, 5: 1763, 6: 1863, 7: 1978, 8: 2044, 9: 2255, 10: 2597,
}
LEVELS = with_ratings(LEVELS, RATINGS)


def get_level(number: int) -> Level:
    """The level ``number`` (1–10); ValueError otherwise."""
    try:
        return LEVELS[int(number)]
    except (KeyError, ValueError, TypeError):
        raise ValueError(f"level must be 1 to 10, not {number!r}") from None
