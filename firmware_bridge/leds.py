"""The board's WS2812 strip as the firmware drives it: the frames the host sends, capped to
``led_max_ma``. Runs unchanged under MicroPython and CPython."""

import machine
import neopixel

MYPY = False  # the types are in comments: MicroPython has no typing module
if MYPY:
    from typing import Any  # noqa: F401 - used in type comments


class Leds:
    """WS2812 strip; frames come from the host, capped to ``led_max_ma`` as a last safety net."""

    def __init__(self, cfg):
        # type: (dict[str, Any]) -> None
        self.count = cfg["led_count"]
        self.max_ma = cfg["led_max_ma"]
        self.np = neopixel.NeoPixel(machine.Pin(cfg["led_pin"]), self.count)
        self.lit = False
        self.blank()

    def blank(self):
        # type: () -> None
        self.np.fill((0, 0, 0))
        self.np.write()
        self.lit = False

    def show(self, pixels):
        # type: (list[tuple[int, int, int, int]]) -> None
        total = 0
        for p in pixels:
            total += p[1] + p[2] + p[3]
        ma = total * 20 // 255 + self.count  # 20 mA per channel at full, ~1 mA idle per LED
        num, den = 1, 1
        if ma > self.max_ma and total:
            num, den = max(0, self.max_ma - self.count) * 255, total * 20
        self.np.fill((0, 0, 0))
        for idx, r, g, b in pixels:
            self.np[idx] = (r * num // den, g * num // den, b * num // den)
        self.np.write()
        self.lit = bool(pixels)
