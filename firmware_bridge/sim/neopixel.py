"""Stand-in for MicroPython's ``neopixel`` on a computer (CPython or MicroPython's unix port).

Every ``write()`` publishes the strip to ``$TAFL_FW_SIM_DIR/leds.json`` as
``{"writes": n, "count": n, "pixels": {"index": [r, g, b]}}`` (lit LEDs only)."""

# ruff: noqa: UP031 - %-formatting: this file also runs under MicroPython

import json
import os

MYPY = False  # the types are in comments: this file also runs under MicroPython
if MYPY:
    from collections.abc import Sequence  # noqa: F401 - used in type comments
    from typing import Any  # noqa: F401 - used in type comments


class NeoPixel:
    def __init__(self, pin, n, bpp=3, timing=1):
        # type: (Any, int, int, int) -> None
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = [(0, 0, 0)] * n
        self.writes = 0
        self._path = (os.getenv("TAFL_FW_SIM_DIR") or ".") + "/leds.json"

    def __len__(self):
        # type: () -> int
        return self.n

    def __setitem__(self, index, value):
        # type: (int, Sequence[int]) -> None
        r, g, b = value[0], value[1], value[2]
        for v in (r, g, b):
            if not 0 <= v <= 255:
                raise ValueError("colour component out of range: %r" % (value,))
        self.buf[index] = (int(r), int(g), int(b))

    def __getitem__(self, index):
        # type: (int) -> tuple[int, int, int]
        return self.buf[index]

    def fill(self, value):
        # type: (Sequence[int]) -> None
        for i in range(self.n):
            self[i] = value

    def write(self):
        # type: () -> None
        self.writes += 1
        lit = {}
        for i in range(self.n):
            p = self.buf[i]
            if p[0] or p[1] or p[2]:
                lit[str(i)] = [p[0], p[1], p[2]]
        tmp = self._path + ".tmp"
        with open(tmp, "w") as f:
            f.write(json.dumps({"writes": self.writes, "count": self.n, "pixels": lit}))
        os.rename(tmp, self._path)  # atomic on POSIX, in both interpreters
