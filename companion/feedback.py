"""LED feedback frames as data.

A frame maps square names to one :class:`LedRole` each; squares without a role are dark. The LED
drivers map roles to colours and blink patterns (``companion.drivers.leds``); this module only
decides roles. When a square has several roles the most urgent one wins, in this order::

    win > illegal > capture > make_to > make_from > storage > setup > warning
        > hint_to > hint_from > raichi > check > target > to > from

Why: ``win`` marks the end of the game and overrides everything (nothing is judged afterwards).
An illegal placement must be seen even on a square that also holds a captured piece or belongs
to the move to make, and a captured piece to lift comes before the next move. The move to make
(``make_from``/``make_to``, a move chosen off the board that the person at the board must
execute) beats everything else: it is what the board is waiting for. ``storage`` is laid
board-wide by the session when moves are not being saved: the roles above show through it, the
ones below (guidance that would invite play) are covered. ``setup`` guidance to fix the board
beats the advisory roles: the coach's ``warning`` (the threat a move of the coached side
allows: the king's way to escape, or the capture of the king), a requested hint, the raichi
warning (the king has a free path to escape), the ``check`` of the pieces' kinds (boards whose
sensors cannot tell them), the targets of a lifted piece, and the last move's ``from``/``to``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum


class LedRole(StrEnum):
    """What a lit square means (the value is what frames, JSON and the page carry)."""

    WIN = "win"              #: a piece of the winning side (all pieces on a draw)
    ILLEGAL = "illegal"      #: where an illegal move put a piece
    CAPTURE = "capture"      #: a captured piece still to lift off
    MAKE_TO = "make_to"      #: the destination of the move to make
    MAKE_FROM = "make_from"  #: the piece of the move to make
    STORAGE = "storage"      #: board-wide: moves are not being saved
    SETUP = "setup"          #: a square to fix (place, clear, put back)
    WARNING = "warning"      #: the coach: the threat the move just made allows
    HINT_TO = "hint_to"      #: the destination of a suggested move
    HINT_FROM = "hint_from"  #: the piece of a suggested move
    RAICHI = "raichi"        #: the king has a free path to escape here
    CHECK = "check"          #: a defender or the king stands here (check the pieces' kinds)
    TARGET = "target"        #: where the lifted piece may go
    TO = "to"                #: the last move's destination
    FROM = "from"            #: the last move's origin


#: Roles from most to least urgent.
PRECEDENCE: tuple[LedRole, ...] = tuple(LedRole)
LED_ROLES: tuple[str, ...] = tuple(str(r) for r in PRECEDENCE)
_RANK = {role: i for i, role in enumerate(PRECEDENCE)}


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
    make_from: Iterable[str] = ()
    make_to: Iterable[str] = ()
    check: Iterable[str] = ()
    extra: dict[str, str] = field(default_factory=dict)


def merge(frame: dict[str, str], squares: Iterable[str], role: str) -> None:
    """Give ``role`` to ``squares`` in ``frame`` where it beats the role they already have.
    ValueError for an unknown role."""
    rank = _RANK.get(role)  # type: ignore[call-overload]  # a StrEnum hashes as its value
    if rank is None:
        raise ValueError(f"unknown LED role {role!r}")
    for sq in squares:
        old = frame.get(sq)
        if old is None or _RANK[old] > rank:  # type: ignore[index]
            frame[sq] = role


def with_role(frame: dict[str, str], squares: Iterable[str], role: str) -> dict[str, str]:
    """A copy of ``frame`` (keys sorted) with ``role`` laid on ``squares`` by precedence: how
    the session adds a board-wide ``storage`` or the ``hint_*`` roles to the tracker's frame."""
    out = dict(frame)
    merge(out, squares, role)
    return dict(sorted(out.items()))


def build_frame(spec: FrameSpec) -> dict[str, str]:
    """The LED frame (square -> role, keys sorted) for ``spec``, roles resolved by precedence."""
    frame: dict[str, str] = {}
    if spec.last_from:
        merge(frame, (spec.last_from,), LedRole.FROM)
    if spec.last_to:
        merge(frame, (spec.last_to,), LedRole.TO)
    merge(frame, spec.target, LedRole.TARGET)
    merge(frame, spec.check, LedRole.CHECK)
    merge(frame, spec.setup, LedRole.SETUP)
    merge(frame, spec.make_from, LedRole.MAKE_FROM)
    merge(frame, spec.make_to, LedRole.MAKE_TO)
    merge(frame, spec.capture, LedRole.CAPTURE)
    merge(frame, spec.illegal, LedRole.ILLEGAL)
    merge(frame, spec.win, LedRole.WIN)
    for sq, role in spec.extra.items():
        merge(frame, (sq,), role)
    return dict(sorted(frame.items()))

