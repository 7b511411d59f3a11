"""LED sinks: one LED per square, roles rendered to colours, blink phases and a power cap.

A frame is ``{square: role}`` with roles from :class:`companion.feedback.LedRole`. The
:class:`LedRenderer` turns it into ``{led_index: (r, g, b)}`` at time ``now``:

=========  ==================  ===========================
role       colour              pattern
=========  ==================  ===========================
capture    red                 blinks at 2 Hz
illegal    red                 fast blink, 6 Hz
from       dim blue            steady
to         bright blue         steady
target     green               steady
setup      amber               steady
win        gold                pulses (breathes) at 1 Hz
make_from  violet              blinks at 1 Hz (the piece of the move to make)
make_to    violet              steady (its destination)
warning    orange              blinks at 3 Hz (the coach: the threat a move allows)
hint_from  dim cyan            steady (a suggested move's piece)
hint_to    cyan                steady (its destination)
raichi     pink                pulses at 2 Hz (the king's free path to escape)
check      white               steady, dim (a defender or the king: check the pieces' kinds)
storage    dim magenta         slow blink, 0.5 Hz (board-wide: moves are not being saved)
=========  ==================  ===========================

Power: a WS2812/APA102 LED draws about 20 mA per colour channel at full drive (60 mA white)
plus ~1 mA idle. The renderer scales the whole frame so that, with every blinking LED in its on
phase, the strip stays within ``max_amps``; the scale is taken from the peak frame so blinking LEDs
do not make the others breathe.

Sinks: :class:`PageOnlySink` (no hardware), :class:`PicoSink` (WS2812 on the Pico, frames over the
serial bridge), :class:`Apa102Sink` and :class:`Ws2812SpiSink` (the Pi's SPI via spidev).
"""

from __future__ import annotations

import importlib
import logging
import math
from typing import Any, NamedTuple

from companion.squares import parse_coords

log = logging.getLogger(__name__)

Pixel = tuple[int, int, int]
LAYOUTS = ("serpentine", "rows")
MA_PER_CHANNEL = 20.0
IDLE_MA_PER_LED = 1.0


class RoleStyle(NamedTuple):
    colour: Pixel
    pattern: str  # "steady" | "blink" | "pulse"
    hz: float = 0.0


ROLE_STYLES: dict[str, RoleStyle] = {
    "capture": RoleStyle((255, 0, 0), "blink", 2.0),
    "illegal": RoleStyle((255, 0, 0), "blink", 6.0),
    "from": RoleStyle((0, 0, 60), "steady"),
    "to": RoleStyle((0, 60, 255), "steady"),
    "target": RoleStyle((0, 200, 0), "steady"),
    "setup": RoleStyle((255, 100, 0), "steady"),
    "win": RoleStyle((255, 180, 40), "pulse", 1.0),
    "make_from": RoleStyle((140, 0, 255), "blink", 1.0),
    "make_to": RoleStyle((140, 0, 255), "steady"),
    "warning": RoleStyle((255, 60, 0), "blink", 3.0),
    "hint_from": RoleStyle((0, 50, 50), "steady"),
    "hint_to": RoleStyle((0, 180, 180), "steady"),
    "raichi": RoleStyle((255, 30, 140), "pulse", 2.0),
    "check": RoleStyle((90, 90, 90), "steady"),
    "storage": RoleStyle((60, 0, 40), "blink", 0.5),
}


def role_level(style: RoleStyle, now: float) -> float:
    """Intensity 0..1 of ``style`` at time ``now``: blinks are on for the first half of each
    period; pulses breathe between 0.2 and 1."""
    if style.pattern == "blink":
        return 1.0 if (now * style.hz) % 1.0 < 0.5 else 0.0
    if style.pattern == "pulse":
        return 0.2 + 0.8 * (0.5 - 0.5 * math.cos(2 * math.pi * style.hz * now))
    return 1.0


def led_index(file: int, rank: int, size: int, layout: str = "serpentine") -> int:
    """Strip position of a square. The strip starts at a1 and runs along rank 1 towards the last
    file. ``rows``: every rank starts again at file a. ``serpentine``: every other rank runs back,
    so on 11x11 the LED after k1 is k2 and the one after a2 is a3."""
    if layout == "rows" or rank % 2 == 0:
        return rank * size + file
    if layout != "serpentine":
        raise ValueError(f"unknown LED layout {layout!r}")
    return rank * size + (size - 1 - file)


def frame_current_ma(pixels: dict[int, Pixel], count: int) -> float:
    """Estimated strip current in mA for ``pixels`` on a strip of ``count`` LEDs."""
    drive = sum(r + g + b for r, g, b in pixels.values())
    return drive * MA_PER_CHANNEL / 255 + count * IDLE_MA_PER_LED


class LedRenderer:
    """Roles to pixels for a ``size`` x ``size`` board, with brightness and the power cap."""

    def __init__(
        self,
        size: int,
        layout: str = "serpentine",
        brightness: float = 0.5,
        max_amps: float = 2.0,
        count: int | None = None,
    ) -> None:
        if layout not in LAYOUTS:
            raise ValueError(f"unknown LED layout {layout!r}; expected one of {LAYOUTS}")
        self.size = size
        self.layout = layout
        self.brightness = brightness
        self.max_amps = max_amps
        self.count = count if count is not None else size * size
        self._warned: set[str] = set()
        self.last_scale = brightness

    def index(self, square: str) -> int:
        """LED index of a square name."""
        file, rank = parse_coords(square, self.size)
        return led_index(file, rank, self.size, self.layout)

    def scale_for(self, peak: list[Pixel]) -> float:
        """Brightness factor for a frame whose LEDs at their brightest are ``peak``: the
        configured brightness, lowered so the strip current stays within ``max_amps``."""
        drive_ma = sum(r + g + b for r, g, b in peak) * MA_PER_CHANNEL / 255
        if drive_ma <= 0:
            return self.brightness
        avail = self.max_amps * 1000 - self.count * IDLE_MA_PER_LED
        return max(0.0, min(self.brightness, avail / drive_ma))

    def _warn_once(self, key: str, text: str) -> None:
        if key not in self._warned:
            self._warned.add(key)
            log.warning("LEDs: %s", text)

    def render(self, frame: dict[str, str], now: float) -> dict[int, Pixel]:
        """``{led_index: (r, g, b)}`` of the lit LEDs of ``frame`` at time ``now``."""
        placed: list[tuple[int, RoleStyle]] = []
        for square, role in frame.items():
            style = ROLE_STYLES.get(role)
            if style is None:
                self._warn_once("role:" + role, f"unknown role {role!r} on {square}; ignored")
                continue
            try:
                idx = self.index(square)
            except ValueError:
                self._warn_once("sq:" + square, f"square {square!r} is off the board; ignored")
                continue
            if idx < self.count:
                placed.append((idx, style))
        scale = self.scale_for([s.colour for _, s in placed])
        self.last_scale = scale
        out: dict[int, Pixel] = {}
        for idx, style in placed:
            k = scale * role_level(style, now)
            px = (int(style.colour[0] * k), int(style.colour[1] * k), int(style.colour[2] * k))
            if any(px):
                out[idx] = px
        return out


class PageOnlySink:
    """No LEDs: remembers the last frame (the web page shows it)."""

    kind = "none"

    def __init__(self) -> None:
        self.frame: dict[str, str] = {}
        self.now: float | None = None

    def show(self, frame: dict[str, str], now: float) -> None:
        self.frame = dict(frame)
        self.now = now

    def close(self) -> None:
        self.frame = {}


class PicoSink:
    """WS2812 LEDs on the Pico: rendered pixels go to the serial bridge, which sends a frame
    only when the pixels change (and again after the Pico reboots)."""

    kind = "pico"

    def __init__(self, bridge: Any, renderer: LedRenderer) -> None:
        self.bridge = bridge
        self.renderer = renderer
        self.pixels: dict[int, Pixel] = {}

    def show(self, frame: dict[str, str], now: float) -> None:
        self.pixels = self.renderer.render(frame, now)
        self.bridge.set_pixels(self.pixels)

    def close(self) -> None:
        self.pixels = {}
        self.bridge.set_pixels({})


# -- SPI encoders ----------------------------------------------------------------------------

APA102_START = bytes(4)
WS2812_LEAD = 3  # zero bytes before the data: a clean low line (10 us)
WS2812_RESET = 90  # zero bytes after it: 300 us low latches the strip (WS2812B needs > 280 us)


def encode_apa102(pixels: dict[int, Pixel], count: int) -> bytes:
    """APA102/SK9822 stream: 4 zero bytes, then per LED ``0xFF, B, G, R`` (global brightness at
    maximum; colours are pre-scaled), then 4 + ceil(count / 16) zero bytes to clock the data
    through the whole chain (zeros, not ones, so a miscounted strip never lights white)."""
    out = bytearray(APA102_START)
    for i in range(count):
        r, g, b = pixels.get(i, (0, 0, 0))
        out += bytes((0xFF, b, g, r))
    out += bytes(4 + (count + 15) // 16)
    return bytes(out)


def _ws2812_table() -> list[bytes]:
    table = []
    for v in range(256):
        bits = 0
        for k in range(7, -1, -1):
            bits = (bits << 3) | (0b110 if v >> k & 1 else 0b100)
        table.append(bits.to_bytes(3, "big"))
    return table


_WS_TABLE = _ws2812_table()


def encode_ws2812_spi(pixels: dict[int, Pixel], count: int) -> bytes:
    """WS2812 bit stream for SPI MOSI at 2.4 MHz: each data bit becomes 3 SPI bits (``1`` ->
    ``110``, ``0`` -> ``100``, 417 ns / 833 ns high), colour order G, R, B, most significant bit
    first; framed by WS2812_LEAD and WS2812_RESET zero bytes."""
    t = _WS_TABLE
    out = bytearray(WS2812_LEAD)
    for i in range(count):
        r, g, b = pixels.get(i, (0, 0, 0))
        out += t[g] + t[r] + t[b]
    out += bytes(WS2812_RESET)
    return bytes(out)


def open_spidev(bus: int, device: int, hz: int, module: Any = None) -> Any:
    """An opened ``spidev.SpiDev`` in mode 0 at ``hz``."""
    spidev = module or importlib.import_module("spidev")
    spi = spidev.SpiDev()
    spi.open(bus, device)
    spi.max_speed_hz = hz
    spi.mode = 0
    return spi


class _SpiSink:
    kind = "spi"

    def __init__(self, spi: Any, renderer: LedRenderer, refresh: float = 1.0) -> None:
        self.spi = spi
        self.renderer = renderer
        self.refresh = refresh
        self.pixels: dict[int, Pixel] | None = None
        self._written_at: float | None = None
        self.writes = 0

    def encode(self, pixels: dict[int, Pixel]) -> bytes:  # pragma: no cover - overridden
        raise NotImplementedError

    def _write(self, data: bytes) -> None:
        if hasattr(self.spi, "writebytes2"):
            self.spi.writebytes2(data)
        else:
            self.spi.writebytes(list(data))
        self.writes += 1

    def show(self, frame: dict[str, str], now: float) -> None:
        """Render and write the strip when the pixels changed, or every ``refresh`` seconds
        (rewrites heal a strip that glitched)."""
        pixels = self.renderer.render(frame, now)
        due = self._written_at is None or now - self._written_at >= self.refresh
        if pixels != self.pixels or due or now < (self._written_at or now):
            self._write(self.encode(pixels))
            self.pixels = pixels
            self._written_at = now

    def close(self) -> None:
        try:
            self._write(self.encode({}))
        finally:
            self.spi.close()


class Apa102Sink(_SpiSink):
    """APA102/SK9822 (DotStar) strip on the Pi's SPI: MOSI -> DI, SCLK -> CI."""

    kind = "apa102"

    def encode(self, pixels: dict[int, Pixel]) -> bytes:
        return encode_apa102(pixels, self.renderer.count)


class Ws2812SpiSink(_SpiSink):
    """WS2812/SK6812 strip on the Pi's SPI MOSI, bits shaped by the SPI clock (2.4 MHz)."""

    kind = "ws2812-spi"

    def encode(self, pixels: dict[int, Pixel]) -> bytes:
        return encode_ws2812_spi(pixels, self.renderer.count)
