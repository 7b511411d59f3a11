"""CPython stand-in for MicroPython's ``neopixel``.

Every ``write()`` publishes the strip to ``$TAFL_FW_SIM_DIR/leds.json`` as
``{"writes": n, "count": n, "pixels": {"index": [r, g, b]}}`` (lit LEDs only)."""

import json
import os


class NeoPixel:
    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = [(0, 0, 0)] * n
        self.writes = 0
        self._path = os.path.join(os.environ.get("TAFL_FW_SIM_DIR", "."), "leds.json")

    def __len__(self):
        return self.n

    def __setitem__(self, index, value):
        r, g, b = value[:3]
        for v in (r, g, b):
            if not 0 <= v <= 255:
                raise ValueError(f"colour component out of range: {value!r}")
        self.buf[index] = (int(r), int(g), int(b))

    def __getitem__(self, index):
        return self.buf[index]

    def fill(self, value):
        for i in range(self.n):
            self[i] = value

    def write(self):
        self.writes += 1
        lit = {str(i): list(p) for i, p in enumerate(self.buf) if any(p)}
        tmp = self._path + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"writes": self.writes, "count": self.n, "pixels": lit}, f)
        os.replace(tmp, self._path)
