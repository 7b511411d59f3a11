"""The driver interfaces every hardware edge implements, and the optional ones some add.

A :class:`BoardSource` turns sensors into :class:`~companion.scan.Scan` objects; a
:class:`LedSink` turns an LED frame (``{square: role}``) into light. The daemon's loop calls
``scan(now)`` and ``show(frame, now)`` with its own clock (``time.monotonic()``), so drivers never
need the wall clock for their logic and tests can run them on a virtual clock.

What varies between boards is an optional protocol, resolved once by :func:`capabilities`:

* :class:`RatedBoard`: the board has its own scan rate (``scan_hz``);
* :class:`TimedBoard`: its scans carry its own time base (a replayed trace): ``board_time(now)``
  maps the loop's clock to it, and ``due`` says more scans are already due;
* :class:`ClickableBoard`: pieces can be lifted and placed by clicks (the simulated board).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NotRequired, Protocol, TypedDict, runtime_checkable

from companion.scan import Scan

BOARD_KINDS = ("sim", "gpio", "serial")


class SourceStatus(TypedDict):
    """A board's health (:meth:`BoardSource.status`): its kind, whether it reads, one line
    saying how it is, and the faults it found (stuck columns...); a driver adds its own
    counters (:class:`~companion.drivers.serial_bridge.SerialStatus`, ...)."""

    kind: str
    connected: bool
    detail: str
    faults: NotRequired[list[str]]


@runtime_checkable
class BoardSource(Protocol):
    """Something that reports which squares are occupied."""

    kind: str  # "gpio" | "serial" | "sim"
    size: int

    def scan(self, now: float) -> Scan | None:
        """The current debounced reading at time ``now``, or None when no valid reading is
        available (link down, stale, wrong board size)."""
        ...

    def status(self) -> SourceStatus:
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


@runtime_checkable
class RatedBoard(Protocol):
    """A board that scans at its own rate."""

    scan_hz: float


@runtime_checkable
class TimedBoard(Protocol):
    """A board whose scans carry its own time (a replayed trace)."""

    @property
    def due(self) -> bool:
        """More scans are already due: call ``scan`` again without sleeping."""
        ...

    def board_time(self, now: float) -> float:
        """The board's time at the loop's time ``now``."""
        ...


@runtime_checkable
class ClickableBoard(Protocol):
    """A board whose pieces are lifted and placed by clicks (the simulated board)."""

    size: int

    def toggle(self, square: str) -> bool:
        """Lift the piece on ``square`` or put one there; True if now occupied. ValueError for
        a square that is not on the board."""
        ...

    def resize(self, size: int, occupied: Iterable[str] = ()) -> None:
        """Set up a board of ``size`` with ``occupied`` squares (a new game's position)."""
        ...


@dataclass(frozen=True)
class BoardCapabilities:
    """What one board can do beyond :class:`BoardSource`, resolved once."""

    scan_hz: float | None
    timed: TimedBoard | None
    clickable: ClickableBoard | None

    def board_time(self, now: float) -> float:
        """The board's time base at the loop's ``now`` (the loop's own clock for live boards)."""
        return self.timed.board_time(now) if self.timed is not None else now

    @property
    def due(self) -> bool:
        return self.timed.due if self.timed is not None else False


def capabilities(board: BoardSource) -> BoardCapabilities:
    """The optional protocols ``board`` implements."""
    rate = board.scan_hz if isinstance(board, RatedBoard) else None
    return BoardCapabilities(
        float(rate) if rate else None,
        board if isinstance(board, TimedBoard) else None,
        board if isinstance(board, ClickableBoard) else None,
    )


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
