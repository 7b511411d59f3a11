"""Board sources without hardware: the clickable simulated board and trace replay.

:class:`SimBoard` is the board a newcomer plays on the phone page: a click on an occupied square
lifts the piece, a click on an empty square puts one down, exactly what a hand does to the reed
switches; the tracker infers moves from it as from a real board.

:class:`ReplayBoard` feeds a recorded ``tafl-trace/1`` file (shared/spec/INTERFACES.md §2) in as if
it were the board, in real time scaled by ``speed``, then keeps the last scan. Its scans carry the
*trace* time, so the tracker sees the recorded timing whatever the speed.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from companion.scan import Scan, parse_square_name


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
            parse_square_name(sq, self.size)
            out.add(sq.lower())
        return frozenset(out)

    @property
    def occupied(self) -> frozenset[str]:
        """The squares the sensors report occupied."""
        return self._occupied

    def toggle(self, square: str) -> bool:
        """Lift the piece on ``square`` or put one down there; True if it is now occupied.
        ValueError for a square off the board."""
        parse_square_name(square, self.size)
        square = square.lower()
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

    def status(self) -> dict:
        return {
            "kind": self.kind,
            "connected": not self._closed,
            "detail": "simulated board: click a square to lift or place a piece",
        }

    def close(self) -> None:
        self._closed = True


class TraceError(ValueError):
    """A trace file that does not follow ``tafl-trace/1``."""


@dataclass(frozen=True)
class TraceStep:
    """One line of a trace after the header: the full occupied set at trace time ``t``."""

    t: float
    occupied: frozenset[str]
    colours: dict[str, str] | None = None


def read_trace(path: str | Path) -> tuple[dict, list[TraceStep], float]:
    """Header, the scans (full occupied sets), and the end time of a trace file."""
    p = Path(path)
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise TraceError(f"{p}: cannot read: {exc.strerror or exc}") from None
    docs = []
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except json.JSONDecodeError as exc:
            raise TraceError(f"{p}:{i}: not JSON: {exc.msg}") from None
        if not isinstance(doc, dict):
            raise TraceError(f"{p}:{i}: expected a JSON object")
        docs.append((i, doc))
    if not docs or docs[0][1].get("trace") != "tafl-trace/1":
        raise TraceError(f'{p}: line 1 must be the header {{"trace": "tafl-trace/1", ...}}')
    header = docs[0][1]
    size = header.get("size")
    if not isinstance(size, int) or not 7 <= size <= 19:
        raise TraceError(f"{p}: header size must be 7 to 19, not {size!r}")
    steps: list[TraceStep] = []
    occupied: frozenset[str] = frozenset()
    end = None
    colours: dict[str, str] = {}
    for i, doc in docs[1:]:
        t = doc.get("t")
        if isinstance(t, bool) or not isinstance(t, int | float):
            raise TraceError(f'{p}:{i}: missing time "t"')
        if steps and t < steps[-1].t:
            raise TraceError(f"{p}:{i}: time goes backwards ({t} < {steps[-1].t})")
        if doc.get("end"):
            end = float(t)
            break
        try:
            if "occupied" in doc:
                occupied = frozenset(_squares(doc["occupied"], size))
            else:
                occupied = (occupied - _squares(doc.get("off", []), size)) | _squares(
                    doc.get("on", []), size
                )
        except ValueError as exc:
            raise TraceError(f"{p}:{i}: {exc}") from None
        if isinstance(doc.get("colours"), dict):
            colours = {**colours, **doc["colours"]}
        cols = {s: c for s, c in colours.items() if s in occupied} if colours else None
        steps.append(TraceStep(float(t), occupied, cols))
    if not steps:
        raise TraceError(f"{p}: no scans after the header")
    return header, steps, end if end is not None else steps[-1].t


def _squares(value: object, size: int) -> set[str]:
    if not isinstance(value, list):
        raise ValueError(f"expected a list of squares, not {value!r}")
    for sq in value:
        if not isinstance(sq, str):
            raise ValueError(f"not a square name: {sq!r}")
        parse_square_name(sq, size)
    return {sq.lower() for sq in value}


class ReplayBoard:
    """A recorded trace played back as a board, ``speed`` times faster than recorded.

    ``scan(now)`` returns the next trace line that is due (one per call, so a busy loop never
    merges two recorded scans), else the current state; :attr:`due` tells the caller that more
    lines are already due. Scan times and :meth:`board_time` are trace times.
    """

    kind = "replay"

    def __init__(self, path: str | Path, speed: float = 1.0) -> None:
        if not speed > 0:
            raise ValueError(f"--speed must be a positive number, not {speed!r}")
        self.path = Path(path)
        self.header, self._steps, self.end = read_trace(self.path)
        self.size: int = self.header["size"]
        self.variant: str | None = self.header.get("variant")
        self.scan_hz = float(self.header.get("scan_hz") or 100)
        self.speed = float(speed)
        self._t0: float | None = None
        self._next = 0
        self._last_bt = self._steps[0].t
        self._closed = False

    def board_time(self, now: float) -> float:
        """The trace time at wall-clock ``now`` (the clock starts at the first scan)."""
        if self._t0 is None:
            self._t0 = now
        return self._steps[0].t + (now - self._t0) * self.speed

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
            step = self._steps[self._next]
            self._next += 1
            return Scan(step.t, step.occupied, step.colours)
        step = self._steps[max(self._next - 1, 0)]
        return Scan(bt, step.occupied, step.colours)

    def status(self) -> dict:
        state = "finished" if self.finished else f"at {self._last_bt:.1f} s of {self.end:.1f} s"
        return {
            "kind": self.kind,
            "connected": not self._closed,
            "detail": f"replaying {self.path.name} x{self.speed:g}: {state}",
        }

    def close(self) -> None:
        self._closed = True
