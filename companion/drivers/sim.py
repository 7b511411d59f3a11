"""Board sources without hardware: the clickable simulated board and trace replay.

:class:`SimBoard` is the board a newcomer plays on the phone page: a click on an occupied square
lifts the piece, a click on an empty square puts one down, exactly what a hand does to the reed
switches; the tracker infers moves from it as from a real board.

:class:`ReplayBoard` feeds a recorded ``tafl-trace/1`` file (docs/interfaces.md §2) in as if
it were the board, in real time scaled by ``speed``, then keeps the last scan. Its scans carry the
*trace* time, so the tracker sees the recorded timing whatever the speed.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path

from companion.drivers.base import SourceStatus
from companion.scan import Scan
from companion.squares import parse_coords


class SimBoard:
    """A simulated board: a set of occupied squares changed by :meth:`toggle`."""

    kind = "sim"

    def __init__(self, size: int, occupied: Iterable[str] = ()) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._occupied = self._check(occupied)
        self._closed = False

    def _check(self, squares: Iterable[str]) -> frozenset[str]:
        out = set()
        for sq in squares:
            parse_coords(sq, self.size)
            out.add(sq)
        return frozenset(out)

    @property
    def occupied(self) -> frozenset[str]:
        """The squares the sensors report occupied."""
        return self._occupied

    def toggle(self, square: str) -> bool:
        """Lift the piece on ``square`` or put one down there; True if it is now occupied.
        ValueError (:class:`~companion.squares.SquareError`) for anything but the canonical name
        of a square on the board."""
        parse_coords(square, self.size)
        with self._lock:
            now_on = square not in self._occupied
            self._occupied = self._occupied ^ {square}
        return now_on

    def set_occupied(self, squares: Iterable[str]) -> None:
        """Put the board in a given state at once (as if the players had set it up)."""
        checked = self._check(squares)
        with self._lock:
            self._occupied = checked

    def resize(self, size: int, occupied: Iterable[str] = ()) -> None:
        """Swap in a board of another size (a new game of another variant)."""
        with self._lock:
            self.size = size
        self.set_occupied(occupied)

    def scan(self, now: float) -> Scan | None:
        if self._closed:
            return None
        return Scan(now, self._occupied)

    def status(self) -> SourceStatus:
        return {
            "kind": self.kind,
            "connected": not self._closed,
            "detail": "simulated board: click a square to lift or place a piece",
        }

    def close(self) -> None:
        self._closed = True


class ReplayBoard:
    """A recorded trace played back as a board, ``speed`` times faster than recorded.

    ``scan(now)`` returns the next trace line that is due (one per call, so a busy loop never
    merges two recorded scans), else the current state; :attr:`due` tells the caller that more
    lines are already due. Scan times and :meth:`board_time` are trace times.

    One scan moves the trace on by at most ``speed`` recorded scan periods: a loop that falls
    behind (a busy machine) slows the replay down instead of getting seconds of the trace at
    once, so the tracker sees the recording's timing whatever the machine's load.
    """

    kind = "replay"

    def __init__(self, path: str | Path, speed: float = 1.0) -> None:
        if not speed > 0:
            raise ValueError(f"--speed must be a positive number, not {speed!r}")
        from companion.trace import read_trace

        self.path = Path(path)
        trace = read_trace(self.path)
        self.header = trace.header
        self._steps: list[Scan] = trace.scans
        self.end = trace.end
        self.size: int = trace.rules.size
        self.variant: str = trace.variant
        self.scan_hz = trace.scan_hz
        self.speed = float(speed)
        self.max_step = self.speed / self.scan_hz  # trace seconds one scan may move on
        self._t0: float | None = None
        self._next = 0
        self._last_bt = self._steps[0].t
        self._closed = False

    def board_time(self, now: float) -> float:
        """The trace time at wall-clock ``now`` (the clock starts at the first scan), at most
        :attr:`max_step` past the last scan's."""
        if self._t0 is None:
            self._t0 = now
        return min(self._steps[0].t + (now - self._t0) * self.speed,
                   self._last_bt + self.max_step)

    @property
    def due(self) -> bool:
        """Whether the next line is already due (call :meth:`scan` again without sleeping)."""
        return self._next < len(self._steps) and self._steps[self._next].t <= self._last_bt

    @property
    def finished(self) -> bool:
        """Whether every line has been fed and the end time has passed."""
        return self._next >= len(self._steps) and self._last_bt >= self.end

    def scan(self, now: float) -> Scan | None:
        if self._closed:
            return None
        bt = self.board_time(now)
        self._last_bt = bt
        if self._next < len(self._steps) and self._steps[self._next].t <= bt:
            self._next += 1
            return self._steps[self._next - 1]
        step = self._steps[max(self._next - 1, 0)]
        return Scan(bt, step.occupied, step.colours)

    def status(self) -> SourceStatus:
        state = "finished" if self.finished else f"at {self._last_bt:.1f} s of {self.end:.1f} s"
        return {
            "kind": self.kind,
            "connected": not self._closed,
            "detail": f"replaying {self.path.name} x{self.speed:g}: {state}",
        }

    def close(self) -> None:
        self._closed = True
