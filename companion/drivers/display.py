"""The board's small display: a 128x64 monochrome OLED (SSD1306 or SH1106, I2C or SPI) drawn
with luma.oled, behind the :class:`TextDisplay` Protocol.

What it says is decided above the session (``companion.panel``); this driver only draws lines
of text, at most :data:`LINES` of them, each in the largest of :data:`FONT_SIZES` that fits the
width (16 px: about 3 mm on a 0.96" panel, 3.7 mm on a 1.3" one), and touches the bus only when
the text changed. The simulated board, ``hwtest`` and the tests use luma.core's ``dummy``
device, which keeps the last image it was given (:meth:`LumaDisplay.image`).
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, TypedDict, runtime_checkable

log = logging.getLogger(__name__)

WIDTH, HEIGHT = 128, 64
LINES = 4
FONT_SIZES = (16, 14, 12, 11)
FONT_FILES = (  # Debian / Raspberry Pi OS fonts-dejavu; else Pillow's own scalable font
    "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
)
DISPLAY_KINDS = ("none", "ssd1306", "sh1106", "capture")


class DisplayStatus(TypedDict):
    """A display's health: its kind, whether it draws, one line about it, the frames drawn and
    the errors met."""

    kind: str
    connected: bool
    detail: str
    frames: int
    errors: int


@runtime_checkable
class TextDisplay(Protocol):
    """Something that shows a few lines of text."""

    kind: str

    def show(self, lines: Sequence[str]) -> None:
        """Show ``lines`` (at most :data:`LINES`); does nothing when they are already shown."""
        ...

    def status(self) -> DisplayStatus:
        """``kind``, ``connected``, ``detail`` and ``frames`` drawn."""
        ...

    def close(self) -> None:
        """Blank the display and release the bus."""
        ...


#: the symbols the text uses, and what stands in for them in Pillow's own font (no such glyphs)
PLAIN = {"→": "->", "▶": ">", "◀": "<", "…": "..."}


@functools.cache
def font_file() -> str | None:
    """The first of :data:`FONT_FILES` installed (Debian's ``fonts-dejavu-core``), or None."""
    return next((path for path in FONT_FILES if Path(path).exists()), None)


@functools.cache
def font(size: int) -> Any:
    """A bold TrueType font of ``size`` pixels (DejaVu when installed, else Pillow's own)."""
    from PIL import ImageFont

    path = font_file()
    return ImageFont.truetype(path, size) if path else ImageFont.load_default(size=size)


def drawable(text: str) -> str:
    """``text`` with the symbols the font lacks spelled plainly (Pillow's own font)."""
    if font_file() is not None:
        return text
    for symbol, plain in PLAIN.items():
        text = text.replace(symbol, plain)
    return text


def _fit(text: str, width: int) -> tuple[str, Any]:
    """``text`` (shortened with an ellipsis if it must be) and the largest font that fits."""
    for size in FONT_SIZES:
        f = font(size)
        if f.getlength(text) <= width:
            return text, f
    f = font(FONT_SIZES[-1])
    more = drawable("…")
    while text and f.getlength(text + more) > width:
        text = text[:-1]
    return text + more, f


def render(lines: Sequence[str], width: int = WIDTH, height: int = HEIGHT) -> Any:
    """A 1-bit PIL image of ``lines``: one slot of ``height / LINES`` pixels per line."""
    from PIL import Image, ImageDraw

    image = Image.new("1", (width, height), 0)
    draw = ImageDraw.Draw(image)
    slot = height // LINES
    for i, line in enumerate(list(lines)[:LINES]):
        if not line:
            continue
        text, f = _fit(drawable(line), width - 2)
        top, bottom = f.getbbox(text)[1], f.getbbox(text)[3]
        y = i * slot + (slot - (bottom - top)) // 2 - top
        draw.text((1, y), text, font=f, fill=1)
    return image


class LumaDisplay:
    """A luma.core device (an ``ssd1306``, ``sh1106`` or the ``dummy`` capture device)."""

    def __init__(self, device: Any, kind: str, detail: str = "") -> None:
        self.device = device
        self.kind = kind
        self.detail = detail or kind
        self.frames = 0
        self.errors = 0
        self._lines: list[str] | None = None
        self._image: Any = None
        self._lock = threading.Lock()
        self._error: str | None = None

    def show(self, lines: Sequence[str]) -> None:
        wanted = [str(x) for x in lines][:LINES]
        with self._lock:
            if wanted == self._lines:
                return
            image = render(wanted, self.device.width, self.device.height)
            try:
                self.device.display(image.convert(self.device.mode))
            except Exception as exc:  # OSError, luma's DeviceNotFoundError: a loose wire
                # (tried again with the next text; a display is never worth stopping for)
                self.errors += 1
                if self._error is None:
                    log.warning("display: drawing failed: %s", exc)
                self._error = str(exc)
                return
            self._error = None
            self._lines, self._image = wanted, image
            self.frames += 1

    def image(self) -> Any:
        """The last image drawn (PIL, 1 bit), or None."""
        with self._lock:
            return self._image

    @property
    def lines(self) -> list[str] | None:
        with self._lock:
            return None if self._lines is None else list(self._lines)

    def status(self) -> DisplayStatus:
        with self._lock:
            detail = self.detail if self._error is None else f"{self.detail}: {self._error}"
            return {"kind": self.kind, "connected": self._error is None, "detail": detail,
                    "frames": self.frames, "errors": self.errors}

    def close(self) -> None:
        with self._lock:
            try:
                self.device.cleanup()
            except Exception as exc:  # the bus is gone anyway
                log.debug("display: cleanup failed: %s", exc)


def capture_display(width: int = WIDTH, height: int = HEIGHT) -> LumaDisplay:
    """A display that draws into memory (luma.core's ``dummy`` device): the simulated board's."""
    from luma.core.device import dummy

    return LumaDisplay(dummy(width=width, height=height, mode="1"), "capture",
                       "simulated display (luma capture device)")


def open_oled(kind: str, interface: str = "i2c", *, i2c_port: int = 1, address: int = 0x3C,
              spi_port: int = 0, spi_device: int = 0, dc_pin: int = 24, reset_pin: int = 25,
              rotate: int = 0, serial: Any = None) -> LumaDisplay:
    """An SSD1306 or SH1106 on I2C (``/dev/i2c-<i2c_port>``, ``address``) or SPI. ``serial``
    replaces the luma serial interface (tests). OSError or luma's errors when the bus or the
    device cannot be opened."""
    from luma.oled import device as oled

    if serial is None:
        from luma.core.interface import serial as luma_serial

        if interface == "i2c":
            serial = luma_serial.i2c(port=i2c_port, address=address)
        else:
            serial = luma_serial.spi(port=spi_port, device=spi_device, gpio_DC=dc_pin,
                                     gpio_RST=reset_pin)
    cls = oled.ssd1306 if kind == "ssd1306" else oled.sh1106
    where = (f"I2C bus {i2c_port} address 0x{address:02X}" if interface == "i2c"
             else f"SPI {spi_port}.{spi_device}")
    return LumaDisplay(cls(serial, width=WIDTH, height=HEIGHT, rotate=rotate), kind,
                       f"{kind.upper()} 128x64 on {where}")
