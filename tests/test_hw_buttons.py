"""The board's buttons as drivers: gpiozero's MockFactory pins (driven low and high as a hand
and a bouncing contact would), the Pico's BTN lines from the real firmware on a pty, and the
simulated board's buttons."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

sys.path.insert(0, str(Path(__file__).parent / "hw_shims"))

from pico_rig import INTERPRETERS, Rig, firmware_interpreter, reading, wait_for  # noqa: E402

from companion.drivers.buttons import (  # noqa: E402
    ButtonEvent,
    ButtonSource,
    GpioButtons,
    PicoButtons,
    SimButtons,
)
from firmware_bridge import protocol as P  # noqa: E402

PINS = {"clock": 8, "hint": 9, "takeback": 0, "new": 1}


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def gpio():
    factory = MockFactory()
    clock = Clock()
    got: list[ButtonEvent] = []
    buttons = GpioButtons(PINS, bounce_s=0.03, long_s=1.0, stuck_s=10.0, pin_factory=factory,
                          clock=clock, start=False)
    buttons.listen(got.append)

    def at(t: float) -> list[str]:
        clock.t = t
        buttons.poll()
        out = [f"{e.button} {e.kind}" for e in got]
        got.clear()
        return out

    yield buttons, factory, clock, at
    buttons.close()


def test_gpio_buttons_are_a_button_source(gpio):
    buttons, factory, clock, at = gpio
    assert isinstance(buttons, ButtonSource)
    assert buttons.names == ("clock", "hint", "new", "takeback")
    # pull-ups: a released button reads high
    assert all(factory.pin(p).state == 1 for p in PINS.values())


def test_short_and_long_presses(gpio):
    buttons, factory, clock, at = gpio
    pin = factory.pin(PINS["hint"])
    pin.drive_low()
    assert at(100.05) == []
    clock.t = 100.3
    pin.drive_high()
    assert at(100.32) == []  # not yet: the release must last too
    assert at(100.4) == ["hint short"]
    clock.t = 101.0
    factory.pin(PINS["new"]).drive_low()
    assert at(101.9) == []
    assert at(102.0) == ["new long"]  # at the moment it has been held long enough
    clock.t = 103.0
    factory.pin(PINS["new"]).drive_high()
    assert at(103.1) == []  # the release of a long press says nothing


def test_contact_bounce_is_no_press(gpio):
    buttons, factory, clock, at = gpio
    pin = factory.pin(PINS["takeback"])
    for i in range(8):  # 8 ms of chatter, never 30 ms alike
        clock.t = 100.0 + i * 0.002
        pin.drive_low() if i % 2 == 0 else pin.drive_high()
        assert at(clock.t) == []
    assert at(100.2) == []
    assert buttons.status()["bounces"] == 4  # each excursion that did not last
    # a real press that bounces as it lands and as it lets go counts once
    for i, level in enumerate("LHLHL"):
        clock.t = 101.0 + i * 0.003
        pin.drive_low() if level == "L" else pin.drive_high()
    assert at(101.1) == []
    for i, level in enumerate("HLHLH"):
        clock.t = 101.3 + i * 0.003
        pin.drive_low() if level == "L" else pin.drive_high()
    assert at(101.4) == ["takeback short"]


def test_a_stuck_button_is_reported_and_does_nothing_until_released(gpio):
    buttons, factory, clock, at = gpio
    pin = factory.pin(PINS["clock"])
    pin.drive_low()
    assert at(101.0) == ["clock long"]
    assert at(110.0) == ["clock stuck"]
    st = buttons.status()
    assert st["faults"] and "clock button has been held down for 10 s" in st["faults"][0]
    assert at(200.0) == []  # nothing more while it stays down
    clock.t = 201.0
    pin.drive_high()
    assert at(201.1) == ["clock free"]
    assert buttons.status()["faults"] == []


def test_a_button_down_at_start_up_is_not_a_press():
    factory = MockFactory()
    factory.pin(PINS["hint"]).drive_low()  # held (or shorted) before the driver starts
    clock = Clock()
    got: list[ButtonEvent] = []
    buttons = GpioButtons(PINS, pin_factory=factory, clock=clock, start=False)
    buttons.listen(got.append)
    try:
        clock.t = 102.0
        buttons.poll()
        assert got == []  # no long press either
        clock.t = 103.0
        factory.pin(PINS["hint"]).drive_high()
        clock.t = 103.5
        buttons.poll()
        assert got == []
        factory.pin(PINS["hint"]).drive_low()  # the next press is a press
        clock.t = 103.6
        factory.pin(PINS["hint"]).drive_high()
        clock.t = 104.0
        buttons.poll()
        assert got == [ButtonEvent("hint", "short")]
    finally:
        buttons.close()


def test_the_gpio_thread_delivers_presses_by_itself():
    """The edges come from gpiozero's callbacks, the events from the buttons' own thread; how
    long a press lasted is the fake clock's (a busy machine's sleep never turns a short press
    into a long one)."""
    factory = MockFactory()
    now = [100.0]
    got: list[ButtonEvent] = []
    buttons = GpioButtons({"clock": 5}, bounce_s=0.02, long_s=0.3, pin_factory=factory,
                          clock=lambda: now[0])
    buttons.listen(got.append)
    try:
        pin = factory.pin(5)
        pin.drive_low()
        now[0] += 0.08  # held 80 ms
        pin.drive_high()
        now[0] += 0.1  # past the bounce time: the release counts
        wait_for(lambda: got == [ButtonEvent("clock", "short")], what="short press")
        pin.drive_low()
        now[0] += 0.5  # held past long_s
        wait_for(lambda: got[-1:] == [ButtonEvent("clock", "long")], what="long")
        pin.drive_high()
    finally:
        buttons.close()


def test_unknown_button_names_are_refused():
    with pytest.raises(ValueError, match="unknown button 'lever'"):
        GpioButtons({"lever": 5}, pin_factory=MockFactory(), start=False)


def test_sim_buttons():
    sim = SimButtons()
    got: list[ButtonEvent] = []
    sim.listen(got.append)
    assert sim.press("takeback") == ButtonEvent("takeback", "short")
    sim.press("new", long=True)
    assert got == [ButtonEvent("takeback", "short"), ButtonEvent("new", "long")]
    with pytest.raises(ValueError, match="no button 'lever'"):
        sim.press("lever")
    assert isinstance(sim, ButtonSource)


# -- the Pico's buttons: the real firmware on a pty, the real host driver --------------------


@pytest.fixture(params=INTERPRETERS)
def rig(request, tmp_path):
    r = Rig(tmp_path, firmware_interpreter(request.param))
    yield r
    r.close()


def test_pico_buttons_travel_as_btn_lines(rig):
    # long_ms well above the 0.12 s short press: the firmware times it on its own clock, and a
    # busy machine may run the press's end late
    config = {"size": 11, "button_pins": {"clock": 26, "hint": 27, "takeback": 28},
              "long_ms": 1000, "stuck_ms": 2000}
    pico, bridge, poller = rig(config=config, initial={"a1"}, relay=True)
    buttons = PicoButtons(bridge)
    got: list[ButtonEvent] = []
    buttons.listen(got.append)
    wait_for(lambda: reading(bridge) == {"a1"}, what="first snapshot")
    pico.press("hint")
    time.sleep(0.12)
    pico.press()
    wait_for(lambda: got == [ButtonEvent("hint", "short")], what="short press")
    pico.press("clock")
    wait_for(lambda: got[-1:] == [ButtonEvent("clock", "long")], what="long press")
    wait_for(lambda: got[-1:] == [ButtonEvent("clock", "stuck")], what="stuck")
    assert "clock button has been held down" in buttons.status()["faults"][0]
    pico.press()
    wait_for(lambda: got[-1:] == [ButtonEvent("clock", "free")], what="free")
    assert [e.kind for e in got] == ["short", "long", "stuck", "free"]
    # a replayed BTN line is never a second press
    old = [raw for _, _, _, raw in pico.relay.decoded(P.BTN)]
    pico.relay.replay(*old)
    time.sleep(0.3)
    assert len(got) == 4
    assert bridge.status()["drop_reasons"].get("stale seq", 0) >= len(old)
    assert reading(bridge) == {"a1"}


def test_hwtest_prints_every_press_and_shows_it_on_the_display():
    """`tafl-companion hwtest` with buttons and a display: each event printed with its time,
    the last one on the display, a stuck button a fault."""
    import io

    from test_hw_config import RecordingSink, ScriptedBoard

    from companion.drivers.display import capture_display
    from companion.hwtest import run_hwtest

    factory = MockFactory()
    t = [0.0]
    buttons = GpioButtons({"hint": 6, "takeback": 13}, long_s=0.5, stuck_s=3.0,
                          pin_factory=factory, clock=lambda: t[0], start=False)
    display = capture_display()
    script = {0.5: (6, "low"), 0.7: (6, "high"), 1.0: (13, "low")}

    def sleep(s: float) -> None:
        t[0] = round(t[0] + max(s, 0.01), 4)
        for at, (pin, level) in list(script.items()):
            if t[0] >= at:
                del script[at]
                factory.pin(pin).drive_low() if level == "low" else factory.pin(pin).drive_high()
        buttons.poll()

    out = io.StringIO()
    summary = run_hwtest(ScriptedBoard([(0.0, {"d4"}, None)]), RecordingSink(), seconds=4.5,
                         led_step=0.5, out=out, clock=lambda: t[0], sleep=sleep,
                         buttons=buttons, display=display)
    buttons.close()
    text = out.getvalue()
    assert summary["presses"] == ["hint short", "takeback long", "takeback stuck"]
    assert "button hint short" in text and "button takeback stuck" in text
    assert display.lines is not None and display.lines[1:3] == ["takeback", "stuck"]
    assert not summary["ok"] and "takeback button has been held down" in text
