"""The two driver interfaces every hardware edge implements.

A :class:`BoardSource` turns sensors into :class:`~companion.scan.Scan` objects; a
:class:`LedSink` turns an LED frame (``{square: role}``) into light. The daemon's loop calls
``scan(now)`` and ``show(frame, now)`` with its own clock, so drivers never need the wall clock for
their logic and tests can run them on a virtual clock.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from companion.scan import Scan

BOARD_KINDS = ("sim", "gpio", "serial")


@runtime_checkable
class BoardSource(Protocol):
    """Something that reports which squares are occupied."""

    kind: str  # "gpio" | "serial" | "sim"
    size: int

    def scan(self, now: float) -> Scan | None:
        """The current debounced reading at time ``now``, or None when no valid reading is
        available (link down, stale, wrong board size)."""
        ...

    def status(self) -> dict:
        """Health for the web page and logs: at least ``kind``, ``connected`` and ``detail``."""
        ...

    def close(self) -> None:
        """Release the hardware; the source is unusable afterwards."""
        ...


@runtime_checkable
class LedSink(Protocol):
    """Something that shows an LED frame: ``{square_name: role}``, roles from
    :class:`companion.feedback.LedRole`."""

    def show(self, frame: dict[str, str], now: float) -> None:
        """Render ``frame`` at time ``now`` (blink phases derive from ``now``). Called every loop
        iteration; sinks only touch the hardware when the rendered pixels change."""
        ...

    def close(self) -> None:
        """Turn the LEDs off and release the hardware."""
        ...


def colour_changes(previous: Scan | None, current: Scan) -> dict[str, str]:
    """Colours to record in a trace line (``"colours"`` field of the ``tafl-trace/1`` polarity
    extension): squares of ``current`` that became occupied or changed colour since ``previous``.

    Empty when the board has no polarity sensors (``current.colours`` is None).
    """
    if not current.colours:
        return {}
    before_occ = previous.occupied if previous is not None else frozenset()
    before_col = (previous.colours or {}) if previous is not None else {}
    out = {}
    for square in sorted(current.occupied):
        colour = current.colours.get(square)
        if colour is None:
            continue
        if square not in before_occ or before_col.get(square) != colour:
            out[square] = colour
    return out
