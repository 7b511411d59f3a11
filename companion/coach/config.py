"""The coach's settings: the config's ``[coach]`` table and what a new game chooses.

::

    [coach]
    side = "attackers"       # attackers | defenders | none (the default): the side coached
    strictness = "gentle"    # gentle (forced losses, drops of 4 soldiers) | strict (2 soldiers)
    seconds = 0.5            # the engine's look at each position (0.1 to 5)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .look import Strictness

COACH_KEYS = ("side", "strictness", "seconds")
SIDES = ("attackers", "defenders")


class CoachConfigError(ValueError):
    """A bad ``[coach]`` value (or ``coach`` of a new game); the message names it."""


@dataclass(frozen=True)
class CoachConfig:
    """Which side is coached (None: nobody), how strictly, and how long the engine looks at a
    position (seconds)."""

    side: str | None = None
    strictness: Strictness = Strictness.GENTLE
    seconds: float = 0.5

    def with_side(self, side: object) -> CoachConfig:
        """The same with another coached ``side`` (``"attackers"``, ``"defenders"`` or
        None, as ``POST /api/new`` gives it)."""
        return CoachConfig(check_side(side), self.strictness, self.seconds)


def check_side(side: object, where: str = "coach") -> str | None:
    """A coached side: attackers, defenders, or None (``"none"`` too)."""
    if side is None or side == "none":
        return None
    if side not in SIDES:
        raise CoachConfigError(f"{where} must be attackers, defenders or none, not {side!r}")
    return str(side)


def parse_coach(table: Mapping[str, object]) -> CoachConfig:
    """``[coach]`` checked (CoachConfigError naming the field)."""
    unknown = sorted(set(table) - set(COACH_KEYS))
    if unknown:
        raise CoachConfigError(f"[coach] unknown key {unknown[0]!r}; known: "
                               f"{', '.join(COACH_KEYS)}")
    side = check_side(table.get("side"), "[coach] side")
    raw = table.get("strictness", "gentle")
    if raw not in tuple(Strictness):
        raise CoachConfigError(f"[coach] strictness must be gentle or strict, not {raw!r}")
    seconds = table.get("seconds", 0.5)
    if (not isinstance(seconds, int | float) or isinstance(seconds, bool)
            or not 0.1 <= seconds <= 5):
        raise CoachConfigError(f"[coach] seconds must be a number from 0.1 to 5, not "
                               f"{seconds!r}")
    return CoachConfig(side, Strictness(str(raw)), float(seconds))
