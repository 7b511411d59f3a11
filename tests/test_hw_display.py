"""The display driver: luma.oled's real SSD1306 and SH1106 drivers writing to an I2C bus that
decodes what a panel would show (the controller's own memory layout), luma's capture device,
and the factory's answers when the bus or the device is missing."""

from __future__ import annotations

from typing import Any

import pytest

from companion.drivers.display import (
    LINES,
    TextDisplay,
    capture_display,
    open_oled,
    render,
)
from companion.hardware_config import ConfigError, parse_display
from companion.hardware_drivers import open_display


class OledBus:
    """An smbus-like I2C bus with an SSD1306/SH1106 behind it: command bytes set the column
    and page windows (horizontal addressing, 0x21/0x22) or the page (0xB0-0xB7, SH1106, with
    its column start 0x00-0x0F/0x10-0x1F); data bytes fill 8 vertical pixels each."""

    def __init__(self, address: int = 0x3C, sh1106: bool = False) -> None:
        self.address = address
        self.sh1106 = sh1106
        self.ram = bytearray(132 * 8)
        self.col0, self.col1, self.page0, self.page1 = 0, 127, 0, 7
        self.col, self.page = 0, 0
        self.writes = 0

    def write_i2c_block_data(self, addr: int, mode: int, data: list[int]) -> None:
        if addr != self.address:
            raise OSError(121, "Remote I/O error")  # nothing answers at that address
        self.writes += 1
        if mode == 0x00:
            self._commands(list(data))
        else:
            for b in data:
                self.ram[self.page * 132 + self.col] = b
                self.col += 1
                if not self.sh1106 and self.col > self.col1:
                    self.col = self.col0
                    self.page = self.page0 if self.page >= self.page1 else self.page + 1

    def _commands(self, cmds: list[int]) -> None:
        i = 0
        while i < len(cmds):
            c = cmds[i]
            if c == 0x21 and not self.sh1106:
                self.col0, self.col1 = cmds[i + 1], cmds[i + 2]
                self.col = self.col0
                i += 3
                continue
            if c == 0x22 and not self.sh1106:
                self.page0, self.page1 = cmds[i + 1], cmds[i + 2]
                self.page = self.page0
                i += 3
                continue
            if self.sh1106 and 0xB0 <= c <= 0xB7:
                self.page = c - 0xB0
            elif self.sh1106 and c <= 0x0F:
                self.col = (self.col & 0xF0) | c
            elif self.sh1106 and 0x10 <= c <= 0x1F:
                self.col = (self.col & 0x0F) | ((c & 0x0F) << 4)
            i += 1

    def pixels(self, offset: int = 0) -> set[tuple[int, int]]:
        """The lit pixels of the 128x64 window (SH1106: its RAM starts 2 columns early)."""
        out = set()
        for x in range(128):
            for y in range(64):
                if self.ram[(y // 8) * 132 + x + offset] >> (y % 8) & 1:
                    out.add((x, y))
        return out


def lit(image: Any) -> set[tuple[int, int]]:
    w, h = image.size
    return {(x, y) for x in range(w) for y in range(h) if image.getpixel((x, y))}


def serial_for(bus: OledBus) -> Any:
    from luma.core.interface.serial import i2c

    return i2c(bus=bus, address=bus.address)


@pytest.mark.parametrize("kind", ["ssd1306", "sh1106"])
def test_the_real_luma_driver_puts_the_text_into_the_panels_memory(kind: str) -> None:
    bus = OledBus(sh1106=kind == "sh1106")
    display = open_oled(kind, serial=serial_for(bus))
    assert isinstance(display, TextDisplay)
    lines = ["Computer: e7 → c7", "▶4:52   5:00", "then lift c6", "Match 1-0"]
    display.show(lines)
    want = lit(render(lines))
    assert len(want) > 300  # real text, not a blank screen
    assert bus.pixels(offset=2 if kind == "sh1106" else 0) == want
    writes = bus.writes
    display.show(lines)  # the same text: the bus is not touched
    assert bus.writes == writes and display.frames == 1
    display.show(["Attackers to move", "Move 3", "", ""])
    assert display.frames == 2 and bus.pixels(2 if kind == "sh1106" else 0) != want
    assert display.status()["connected"]


def test_capture_display_keeps_the_image_and_fits_long_lines() -> None:
    display = capture_display()
    display.show(["Verteidiger am Zug", "▶0:09.4  1:02:05", "x" * 60, "", "a fifth line"])
    image = display.image()
    assert image.size == (128, 64)
    assert display.lines is not None and len(display.lines) == LINES
    for slot in range(LINES):  # each line stays inside its own 16-pixel slot
        rows = {y for x, y in lit(image) if slot * 16 <= y < (slot + 1) * 16}
        assert (slot == 3) == (not rows), slot
    assert max(x for x, _ in lit(image)) < 128


def test_a_bus_that_fails_is_reported_and_retried() -> None:
    bus = OledBus()
    display = open_oled("ssd1306", serial=serial_for(bus))
    bus.address = 0x3D  # the wire comes loose: nothing answers at 0x3C
    display.show(["one"])
    st = display.status()
    assert not st["connected"] and "not found on address: 0x3C" in st["detail"]
    assert display.errors == 1
    bus.address = 0x3C
    display.show(["one"])  # not taken as shown while it failed: drawn now
    assert display.status()["connected"] and display.frames == 1


def test_the_config_factory() -> None:
    from companion.drivers.sim import SimBoard

    assert open_display(parse_display({})) is None
    sim = open_display(parse_display({}), SimBoard(7))
    assert sim is not None and sim.kind == "capture"
    bus = OledBus(address=0x3D, sh1106=True)
    oled = open_display(parse_display({"kind": "sh1106", "address": 0x3D}),
                        serial=serial_for(bus))
    assert oled is not None and oled.kind == "sh1106"
    with pytest.raises(ConfigError, match=r"\[display\] i2c: no SSD1306 found on I2C bus 7"):
        open_display(parse_display({"kind": "ssd1306", "i2c_port": 7}))
    with pytest.raises(ConfigError, match="language"):
        parse_display({"language": "fr"})


def test_without_dejavu_the_symbols_are_spelled_plainly(monkeypatch: pytest.MonkeyPatch) -> None:
    """A system without fonts-dejavu-core: Pillow's own font, which has no arrows."""
    from companion.drivers import display as D

    monkeypatch.setattr(D, "FONT_FILES", ("/no/such/font.ttf",))
    D.font_file.cache_clear()
    D.font.cache_clear()
    try:
        assert D.drawable("Computer: e7 → c7") == "Computer: e7 -> c7"
        assert lit(render(["▶4:52   5:00"])) == lit(render([">4:52   5:00"]))
    finally:
        D.font_file.cache_clear()
        D.font.cache_clear()
