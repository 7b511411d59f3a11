"""A fake clock for the parts that take one (``clock=`` / ``schedule=``): time moves only when a
test calls :meth:`FakeClock.advance`, so a test proves that something did NOT happen by
counting on it (``fired``, the part's own counters) after moving the clock past the moment it
would have, instead of sleeping and hoping the machine was fast enough."""

from __future__ import annotations

import threading
from collections.abc import Callable


class FakeClock:
    """``clock()`` reads it (monotonic seconds), ``time()`` is its wall clock, ``schedule`` is a
    timer on it (the callback runs in the thread that advances the clock, when it passes the
    callback's time). ``fired`` counts the callbacks run, ``cancelled`` those cancelled."""

    def __init__(self, start: float = 1000.0, wall: float = 1_800_000_000.0) -> None:
        self.now = start
        self._wall0 = wall - start
        self._lock = threading.Lock()
        self._timers: list[list[object]] = []  # [due, seq, fn, live]
        self._seq = 0
        self.fired = 0
        self.cancelled = 0

    def __call__(self) -> float:
        with self._lock:
            return self.now

    clock = __call__

    def time(self) -> float:
        with self._lock:
            return self.now + self._wall0

    def schedule(self, delay: float, fn: Callable[[], None]) -> Callable[[], None]:
        with self._lock:
            self._seq += 1
            entry: list[object] = [self.now + max(0.0, delay), self._seq, fn, True]
            self._timers.append(entry)

        def cancel() -> None:
            with self._lock:
                if entry[3]:
                    entry[3] = False
                    self.cancelled += 1

        return cancel

    @property
    def waiting(self) -> list[float]:
        """The due times of the timers not run or cancelled yet, soonest first."""
        with self._lock:
            return sorted(float(e[0]) for e in self._timers if e[3])  # type: ignore[arg-type]

    def advance(self, seconds: float) -> int:
        """Move the clock on, running every timer that falls due on the way (in order, each at
        its own time); returns how many ran."""
        with self._lock:
            end = self.now + seconds
        ran = 0
        while True:
            with self._lock:
                due = [e for e in self._timers if e[3] and e[0] <= end]  # type: ignore[operator]
                if not due:
                    self.now = end
                    return ran
                entry = min(due, key=lambda e: (e[0], e[1]))  # type: ignore[arg-type, return-value]
                entry[3] = False
                self.now = max(self.now, float(entry[0]))  # type: ignore[arg-type]
                self.fired += 1
            entry[2]()  # type: ignore[operator]
            ran += 1
