"""The scan loop's rate as the bench scripts measure it: every iteration of an in-process
daemon's loop is stamped, and a window of so many seconds gives its rate and its longest gap."""

from __future__ import annotations

import time
from typing import Any


class LoopTimer:
    """Stamps each ``step`` of ``daemon`` (its loop calls ``daemon.step`` once an iteration)."""

    def __init__(self, daemon: Any) -> None:
        self.times: list[float] = []
        step = daemon.step

        def timed_step(now: float | None = None) -> bool:
            self.times.append(time.monotonic())
            return bool(step(now))

        daemon.step = timed_step

    def window(self, seconds: float) -> dict[str, float]:
        """The loop's rate (Hz) and its longest gap between two iterations (ms) over the next
        ``seconds``."""
        self.times.clear()
        time.sleep(seconds)
        got = list(self.times)
        gaps = [b - a for a, b in zip(got, got[1:], strict=False)]
        return {"hz": round((len(got) - 1) / (got[-1] - got[0]), 1),
                "longest_gap_ms": round(max(gaps) * 1000, 1)}
