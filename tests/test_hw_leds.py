"""LED rendering, power cap, SPI encoders (byte-exact) and sinks."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from companion.drivers.base import LedSink
from companion.drivers.leds import (
    ROLE_STYLES,
    Apa102Sink,
    LedRenderer,
    PageOnlySink,
    PicoSink,
    Ws2812SpiSink,
    encode_apa102,
    encode_ws2812_spi,
    frame_current_ma,
    led_index,
    open_spidev,
    role_level,
)
from companion.feedback import LED_ROLES

sys.path.insert(0, str(Path(__file__).parent / "hw_shims"))

from fake_spi import FakeSpi, FakeSpidevModule  # noqa: E402


def test_every_role_has_a_style():
    assert set(ROLE_STYLES) == set(LED_ROLES)


def test_led_index_layouts():
    assert [led_index(f, 0, 11, "rows") for f in (0, 10)] == [0, 10]
    assert [led_index(f, 1, 11, "rows") for f in (0, 10)] == [11, 21]
    assert [led_index(f, 0, 11, "serpentine") for f in (0, 10)] == [0, 10]
    assert [led_index(f, 1, 11, "serpentine") for f in (0, 10)] == [21, 11]  # k2 follows k1
    assert [led_index(f, 2, 11, "serpentine") for f in (0, 10)] == [22, 32]
    for layout in ("rows", "serpentine"):
        seen = {led_index(f, r, 13, layout) for f in range(13) for r in range(13)}
        assert seen == set(range(169))


def test_blink_and_pulse_phases():
    cap, ill, win = ROLE_STYLES["capture"], ROLE_STYLES["illegal"], ROLE_STYLES["win"]
    assert [role_level(cap, t) for t in (0.0, 0.2, 0.26, 0.49, 0.5)] == [1, 1, 0, 0, 1]
    assert role_level(ill, 0.0) == 1 and role_level(ill, 0.1) == 0  # 6 Hz: off after 83 ms
    assert role_level(win, 0.0) == pytest.approx(0.2)
    assert role_level(win, 0.5) == pytest.approx(1.0)
    assert role_level(ROLE_STYLES["target"], 123.4) == 1


def test_render_colours_and_blinking():
    r = LedRenderer(11, "rows", brightness=1.0, max_amps=10)
    frame = {"e2": "capture", "g3": "from", "e3": "to"}
    on = r.render(frame, 0.0)
    assert on == {15: (255, 0, 0), 28: (0, 0, 60), 26: (0, 60, 255)}
    off = r.render(frame, 0.3)
    assert off == {28: (0, 0, 60), 26: (0, 60, 255)}  # capture blinked off, the rest unchanged


def test_render_skips_unknown_roles_and_squares(caplog):
    r = LedRenderer(7, brightness=1.0)
    assert r.render({"a1": "sparkle", "z9": "target", "b1": "target"}, 0) == {1: (0, 200, 0)}
    assert "unknown role 'sparkle'" in caplog.text and "'z9' is off the board" in caplog.text


def test_brightness_scales_colours():
    r = LedRenderer(11, brightness=0.5, max_amps=10)
    assert r.render({"a1": "capture"}, 0) == {0: (127, 0, 0)}


@pytest.mark.parametrize("size", [11, 13, 19])
def test_power_cap_keeps_the_strip_within_budget(size):
    r = LedRenderer(size, brightness=1.0, max_amps=2.0)
    everything = {f"{chr(97 + f)}{k + 1}": "win" for f in range(size) for k in range(size)}
    worst = max(frame_current_ma(r.render(everything, t / 20), size * size) for t in range(40))
    assert worst <= 2000
    assert worst > 1800  # the cap is a cap, not a blackout
    assert r.last_scale < 1.0


def test_power_cap_is_steady_while_leds_blink():
    r = LedRenderer(11, brightness=1.0, max_amps=1.0)
    frame = {f"{chr(97 + f)}1": "capture" for f in range(11)}
    frame.update({f"{chr(97 + f)}2": "target" for f in range(11)})
    on, off = r.render(frame, 0.0), r.render(frame, 0.3)
    target_pixels = {i for i in on if 11 <= i <= 21}
    assert all(on[i] == off[i] for i in target_pixels)  # blinking does not make others breathe
    assert frame_current_ma(on, 121) <= 1000


def test_small_frames_are_not_capped():
    r = LedRenderer(11, brightness=0.8, max_amps=2.0)
    r.render({"a1": "to", "b1": "from"}, 0)
    assert r.last_scale == 0.8


def test_apa102_bytes():
    data = encode_apa102({0: (1, 2, 3), 2: (255, 0, 16)}, 3)
    assert data == bytes(
        [0, 0, 0, 0]  # start frame
        + [0xFF, 3, 2, 1]  # LED 0: brightness 31, B, G, R
        + [0xFF, 0, 0, 0]
        + [0xFF, 16, 0, 255]
        + [0, 0, 0, 0, 0]  # 4 + ceil(3 / 16) zero bytes
    )
    assert len(encode_apa102({}, 121)) == 4 + 121 * 4 + 4 + 8


def test_ws2812_spi_bytes():
    data = encode_ws2812_spi({0: (0xFF, 0x00, 0x81)}, 2)
    zero = bytes([0x92, 0x49, 0x24])  # 0x00 -> 100 100 100 100 100 100 100 100
    ones = bytes([0xDB, 0x6D, 0xB6])  # 0xFF -> 110 x 8
    b81 = bytes([0xD2, 0x49, 0x26])  # 0x81 -> 110 100 100 100 100 100 100 110
    assert data == bytes(3) + zero + ones + b81 + zero * 3 + bytes(90)  # G R B, then LED 1 off
    assert len(encode_ws2812_spi({}, 361)) == 3 + 361 * 9 + 90 <= 4096  # one spidev transfer


def test_spi_sinks_write_on_change_and_refresh():
    spi = FakeSpi()
    sink = Ws2812SpiSink(spi, LedRenderer(7, "rows", brightness=1.0), refresh=1.0)
    assert isinstance(sink, LedSink)
    sink.show({"a1": "target"}, 0.0)
    sink.show({"a1": "target"}, 0.1)
    assert len(spi.sent) == 1
    assert spi.sent[0] == encode_ws2812_spi({0: (0, 200, 0)}, 49)
    sink.show({"a1": "capture"}, 0.2)  # changed
    sink.show({"a1": "capture"}, 0.3)  # blinked off: changed again
    sink.show({"a1": "capture"}, 0.4)
    assert len(spi.sent) == 3
    sink.show({"a1": "capture"}, 1.35)  # refresh after a second even if unchanged
    assert len(spi.sent) == 4
    sink.close()
    assert spi.sent[-1] == encode_ws2812_spi({}, 49) and spi.closed


def test_apa102_sink_through_open_spidev():
    mod = FakeSpidevModule()
    spi = open_spidev(0, 1, 4_000_000, module=mod)
    assert spi.opened == (0, 1) and spi.max_speed_hz == 4_000_000 and spi.mode == 0
    sink = Apa102Sink(spi, LedRenderer(7, "rows", brightness=1.0))
    sink.show({"b1": "to"}, 0)
    assert spi.sent == [encode_apa102({1: (0, 60, 255)}, 49)]


def test_page_only_and_pico_sinks():
    page = PageOnlySink()
    page.show({"a1": "win"}, 3.0)
    assert page.frame == {"a1": "win"} and page.now == 3.0

    class Bridge:
        pixels = None

        def set_pixels(self, pixels):
            self.pixels = pixels

    bridge = Bridge()
    sink = PicoSink(bridge, LedRenderer(11, "serpentine", brightness=1.0))
    sink.show({"k2": "target", "a1": "capture"}, 0.3)  # capture blinked off
    assert bridge.pixels == {11: (0, 200, 0)}
    sink.close()
    assert bridge.pixels == {}
