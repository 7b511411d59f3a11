"""Parts the board plays without (issue 30 defect 5): a configured display, buttons or LEDs
that cannot be opened do not stop the board. The board plays, the log and the page
(``board.parts``) say which part is missing and how to check it, and the part is tried again
(on its own thread, every RETRY_S seconds) and put to use once it is there. The hardware is
faked as in test_hw_display / test_hw_buttons / test_hw_leds: luma's real SSD1306 driver on a
decoding I2C bus, gpiozero's MockFactory, a recording spidev."""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest
from test_daemon_support import control, spawn_daemon, state, test_config, wait_for
from test_hw_display import OledBus

from companion.hardware_config import ButtonsConfig, DisplayConfig, LedConfig
from companion.hardware_drivers import PartMissing
from companion.parts import RETRY_S, PartsWatch

sys.path.insert(0, str(Path(__file__).parent / "hw_shims"))

from fake_spi import FakeSpidevModule  # noqa: E402


class Socket:
    """Where a part is plugged in: ``opener`` fails (as the driver would) until ``plug()``."""

    def __init__(self, fail, works) -> None:
        self.plugged = False
        self.tries = 0
        self._fail, self._works = fail, works

    def plug(self) -> None:
        self.plugged = True

    def __call__(self, *args, **kw):
        self.tries += 1
        return self._works(*args, **kw) if self.plugged else self._fail(*args, **kw)


def test_the_watch_retries_every_period_says_it_once_and_hands_the_part_over(caplog) -> None:
    published: list[list] = []
    waits: list[float] = []
    rounds = threading.Semaphore(0)
    go = threading.Semaphore(0)

    def wait(seconds: float) -> bool:  # a fake clock: each round waits for the test
        waits.append(seconds)
        rounds.release()
        go.acquire()
        return False

    socket = Socket(lambda: (_ for _ in ()).throw(PartMissing("display", "no panel", "look")),
                    lambda: "the panel")
    got: list[str] = []
    watch = PartsWatch(published.append, wait=wait)
    with caplog.at_level("INFO", logger="companion.parts"):
        watch.missing(PartMissing("display", "no panel", "look"), socket, got.append)
        watch.start()
        for _ in range(3):  # three rounds while the panel is away
            assert rounds.acquire(timeout=60)
            go.release()
        assert rounds.acquire(timeout=60)
        assert socket.tries == 3 and got == []
        socket.plug()
        go.release()
        watch._thread.join(60)  # found: nothing left to watch, the thread ends
    assert not watch._thread.is_alive()
    assert got == ["the panel"] and socket.tries == 4 and watch.attempts == 4
    assert waits == [RETRY_S] * 4  # never more often than every RETRY_S seconds
    assert published == [[{"part": "display", "problem": "no panel", "check": "look",
                           "retry_s": RETRY_S}], []]
    said = [r.getMessage() for r in caplog.records]
    assert sum("display missing" in m for m in said) == 1  # said once, not at every retry
    assert any(m == "display found: in use again" for m in said)
    watch.close()


def _luma_i2c(monkeypatch: pytest.MonkeyPatch, bus: OledBus) -> Socket:
    """luma's I2C interface: no bus until plugged, then the decoding bus."""
    from luma.core.error import DeviceNotFoundError
    from luma.core.interface import serial as luma_serial

    def fail(port: int = 1, address: int = 0x3C, **kw):
        raise DeviceNotFoundError(f"I2C device not found: /dev/i2c-{port}")

    real = luma_serial.i2c
    socket = Socket(fail, lambda port=1, address=0x3C, **kw: real(bus=bus, address=address))
    monkeypatch.setattr(luma_serial, "i2c", socket)
    return socket


def test_a_missing_display_leaves_the_board_playing_and_is_found_later(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.daemon import Daemon

    bus = OledBus()
    socket = _luma_i2c(monkeypatch, bus)
    cfg = replace(test_config(tmp_path), display=DisplayConfig(kind="ssd1306", i2c_port=1))
    d = Daemon(cfg)
    d.parts.retry_s = 0.05  # (the test waits for what it wants to see, however long)
    d.start()
    try:
        base = f"http://127.0.0.1:{d.port}/"
        st = state(base)
        if st["board"]["parts"]:  # (found already on a quick machine: then it was missing)
            [part] = st["board"]["parts"]
            assert part["part"] == "display" and part["check"].startswith("i2cdetect -y 1")
            assert "no SSD1306 found on I2C bus 1 address 0x3C" in part["problem"]
        assert st["display"] is None and bus.writes == 0
        for square in ("d1", "d4"):  # the board plays
            assert control(base, "api/click", {"square": square})[0] == 200
        wait_for(lambda: state(base)["moves"] == ["d1-d4"], what="the move")
        wait_for(lambda: socket.tries >= 3, what="retries")
        assert state(base)["board"]["parts"][0]["part"] == "display"
        socket.plug()  # the cable pushed back in
        st = wait_for(lambda: (s := state(base))["display"] and not s["board"]["parts"] and s,
                      what="the display found")
        assert any(st["display"]["lines"])  # its text is in the state, and on the panel:
        wait_for(lambda: bus.writes > 0 and bus.pixels(), what="the panel drawn")
    finally:
        assert d.stop()


def test_missing_buttons_are_found_later_and_their_presses_reach_the_game(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gpiozero import Device
    from gpiozero.exc import BadPinFactory
    from gpiozero.pins.mock import MockFactory
    from session_helpers import HandBoard

    from companion.daemon import Daemon
    from companion.rules import get_variant
    from companion.rules.game import Game

    factory = MockFactory()
    plugged = threading.Event()

    def default_factory():  # no pin library can open the GPIOs yet (as gpiozero finds it)
        if not plugged.is_set():
            raise BadPinFactory("Unable to load any default pin factory!")
        return factory

    saved, Device.pin_factory = Device.pin_factory, None
    monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(default_factory))
    board = HandBoard(7, Game(get_variant("brandubh")).board.occupied_names())
    cfg = replace(test_config(tmp_path, variant="brandubh", time_control="5+3"),
                  buttons=ButtonsConfig(kind="gpio"), display=DisplayConfig(kind="capture"))
    d = Daemon(cfg, board=board)
    d.parts.retry_s = 0.05
    d.start()
    try:
        base = d.url.replace("localhost", "127.0.0.1")
        st = wait_for(lambda: (s := state(base))["board"]["parts"] and s, what="the parts")
        [part] = st["board"]["parts"]
        assert part["part"] == "buttons" and "no GPIO pin library works" in part["problem"]
        assert part["check"].startswith("ls -l /dev/gpiochip*")
        wait_for(lambda: state(base)["display"], what="the display drawn without the buttons")
        plugged.set()
        wait_for(lambda: not state(base)["board"]["parts"], what="the buttons found")
        pin = factory.pin(5)  # the clock button's default pin
        wait_for(lambda: state(base)["tracking"] in ("ready", "check_pieces"), what="set up")
        pin.drive_low()  # a short press: held past the debounce (30 ms), well short of 1 s
        time.sleep(0.1)  # (the edges' own times, taken here, make it short, not the machine)
        pin.drive_high()
        wait_for(lambda: state(base)["clock"]["running"] == "attackers", what="the clock")
    finally:
        assert d.stop()
        Device.pin_factory = saved


def test_missing_leds_leave_the_page_showing_them_and_are_lit_once_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.daemon import Daemon
    from companion.drivers import leds as L

    spidev = FakeSpidevModule()

    def fail(bus, device, hz, module=None):
        raise OSError(2, "No such file or directory")

    real = L.open_spidev
    socket = Socket(fail, lambda bus, device, hz, module=None:
                    real(bus, device, hz, module=spidev))
    monkeypatch.setattr(L, "open_spidev", socket)
    cfg = replace(test_config(tmp_path), leds=LedConfig(kind="apa102"))
    d = Daemon(cfg)
    d.parts.retry_s = 0.05
    d.start()
    try:
        base = f"http://127.0.0.1:{d.port}/"
        st = wait_for(lambda: (s := state(base))["board"]["parts"] and s, what="the parts")
        assert [p["part"] for p in st["board"]["parts"]] == ["leds"]
        assert st["board"]["parts"][0]["check"].startswith("ls /dev/spidev0.0")
        assert control(base, "api/click", {"square": "d1"})[0] == 200
        wait_for(lambda: state(base)["leds"], what="the LED frame on the page")
        socket.plug()
        wait_for(lambda: not state(base)["board"]["parts"], what="the LEDs found")
        wait_for(lambda: spidev.devices and spidev.devices[0].sent, what="a frame on the strip")
    finally:
        assert d.stop()
    assert spidev.devices[0].closed  # closed with the daemon


def test_a_real_daemon_with_a_missing_display_plays_and_says_so(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('pin = "2468"\n[web]\nhost = "127.0.0.1"\nport = 0\n'
                      '[display]\nkind = "ssd1306"\ni2c_port = 7\n')
    proc, base = spawn_daemon(["--config", str(config), "--data-dir", str(tmp_path / "d")])
    try:
        st = wait_for(lambda: (s := state(base))["board"]["parts"] and s, what="the parts")
        [part] = st["board"]["parts"]
        assert part["part"] == "display" and part["check"].startswith("i2cdetect -y 7")
        for square in ("d1", "d4"):
            assert control(base, "api/click", {"square": square})[0] == 200
        wait_for(lambda: state(base)["moves"] == ["d1-d4"], what="the move")
    finally:
        out = proc.stop()
    assert proc.proc.returncode == 0, out
    assert "display missing: [display] i2c: no SSD1306 found on I2C bus 7" in out
    assert "check: i2cdetect -y 7" in out and "Traceback" not in out


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "The display is missing: the board plays without it and looks for it again every "
           "30 s. To check: i2cdetect -y 7"),
    ("de", "Das Display fehlt: Das Brett spielt ohne es weiter und sucht es alle 30 s wieder. "
           "Zum Prüfen: i2cdetect -y 7")])
def test_the_page_says_which_part_is_missing_and_how_to_check(tmp_path: Path, lang: str,
                                                             said: str) -> None:
    import test_e2e_browser as e2e

    if not Path(e2e.CHROMIUM).exists():
        pytest.skip("no chromium")
    playwright = pytest.importorskip("playwright.sync_api")
    config = tmp_path / "c.toml"
    config.write_text('pin = "2468"\n[web]\nhost = "127.0.0.1"\nport = 0\n'
                      '[display]\nkind = "ssd1306"\ni2c_port = 7\n')
    proc, base = spawn_daemon(["--config", str(config), "--data-dir", str(tmp_path / "d")])
    try:
        wait_for(lambda: state(base)["board"]["parts"], what="the parts")
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=e2e.CHROMIUM, args=e2e.ARGS)
            try:
                page = e2e.browser_page(browser, base + f"?lang={lang}")
                page.wait_for_selector("#parts", state="visible")
                text = page.text_content("#parts") or ""
                assert text.startswith(said), text
                assert "no SSD1306 found on I2C bus 7" in text and not page.errors
            finally:
                browser.close()
    finally:
        proc.stop()
