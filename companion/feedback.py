"""LED feedback frames as data.

A frame maps square names to one role each (see ``companion.scan.LED_ROLES``); squares without a
role are dark. The LED drivers map roles to colours; this module only decides roles. When a square
has several roles the most urgent one wins, in this order::

    win > illegal > capture > setup > target > to > from

(``win`` marks the end of the game and overrides everything; an illegal placement must be seen
even on a square that also holds a captured piece; a captured piece to lift matters more than
setup guidance; the last move's ``from``/``to`` are background information.)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .scan import LED_ROLES

#: Roles from most to least urgent.
PRECEDENCE: tuple[str, ...] = ("win", "illegal", "capture", "setup", "target", "to", "from")
_RANK = {role: i for i, role in enumerate(PRECEDENCE)}
assert set(PRECEDENCE) == set(LED_ROLES)


@dataclass
class FrameSpec:
    """What the tracker wants shown: squares per role (any may overlap)."""

    last_from: str | None = None
    last_to: str | None = None
    capture: Iterable[str] = ()
    setup: Iterable[str] = ()
    target: Iterable[str] = ()
    illegal: Iterable[str] = ()
    win: Iterable[str] = ()
    extra: dict[str, str] = field(default_factory=dict)


def merge(frame: dict[str, str], squares: Iterable[str], role: str) -> None:
    """Give ``role`` to ``squares`` in ``frame`` where it beats the role they already have."""
    rank = _RANK[role]
    for sq in squares:
        old = frame.get(sq)
        if old is None or _RANK[old] > rank:
            frame[sq] = role


def build_frame(spec: FrameSpec) -> dict[str, str]:
    """The LED frame (square -> role, keys sorted) for ``spec``, roles resolved by precedence."""
    frame: dict[str, str] = {}
    if spec.last_from:
        merge(frame, (spec.last_from,), "from")
    if spec.last_to:
        merge(frame, (spec.last_to,), "to")
    merge(frame, spec.target, "target")
    merge(frame, spec.setup, "setup")
    merge(frame, spec.capture, "capture")
    merge(frame, spec.illegal, "illegal")
    merge(frame, spec.win, "win")
    for sq, role in spec.extra.items():
        merge(frame, (sq,), role)
    return dict(sorted(frame.items()))


def role_squares(frame: dict[str, str], role: str) -> list[str]:
    """The squares that show ``role`` in ``frame``, sorted."""
    return sorted(sq for sq, r in frame.items() if r == role)
