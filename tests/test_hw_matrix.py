"""GPIO reed matrix driver on gpiozero MockFactory pins (and fake lgpio / RPi.GPIO on them)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "hw_shims"))

from mock_matrix import COLS_11, ROWS_11, FakeLgpio, FakeRPiGPIO, MatrixSim  # noqa: E402

from companion.drivers.base import BoardSource  # noqa: E402
from companion.drivers.matrix import (  # noqa: E402
    GpioMatrix,
    LgpioBackend,
    RPiGPIOBackend,
    detect_gpiochip,
    make_backend,
)

START = ["a4", "a5", "a6", "a7", "a8", "b6", "e1", "f1", "g1", "f2", "f6", "k11"]


def make(kind: str = "gpiozero", debounce: int = 2, scan_hz: float = 100):
    sim = MatrixSim(ROWS_11, COLS_11)
    if kind == "gpiozero":
        backend = make_backend("gpiozero", factory=sim.factory)
    elif kind == "lgpio":
        backend = LgpioBackend(chip=0, module=FakeLgpio(sim.factory))
    else:
        backend = RPiGPIOBackend(module=FakeRPiGPIO(sim.factory))
    m = GpioMatrix(ROWS_11, COLS_11, backend=backend, scan_hz=scan_hz, debounce=debounce)
    return sim, m


class Clock:
    """Calls scan() once per scan period on a virtual clock."""

    def __init__(self, matrix: GpioMatrix):
        self.m = matrix
        self.t = 0.0

    def scan(self, n: int = 1):
        out = None
        for _ in range(n):
            self.t += 1 / self.m.scan_hz
            out = self.m.scan(self.t)
        return out


@pytest.mark.parametrize("kind", ["gpiozero", "lgpio", "rpigpio"])
def test_reads_the_occupied_squares(kind):
    sim, m = make(kind)
    assert isinstance(m, BoardSource)
    sim.set_occupied(START)
    clock = Clock(m)
    assert clock.scan() is None  # one raw scan is not a debounced reading yet
    scan = clock.scan()
    assert scan is not None and scan.occupied == frozenset(START)
    assert scan.t == pytest.approx(clock.t) and scan.colours is None
    sim.open_("k11")
    sim.close("k10")
    assert clock.scan(2).occupied == frozenset(START) - {"k11"} | {"k10"}
    st = m.status()
    assert st["kind"] == "gpio" and st["connected"] and st["faults"] == []
    m.close()


def test_every_square_maps_to_its_own_switch():
    sim, m = make()
    clock = Clock(m)
    for f in "abcdefghijk":
        for r in range(1, 12):
            sim.set_occupied([f"{f}{r}"])
            assert clock.scan(2).occupied == {f"{f}{r}"}


def test_library_calls_per_scan():
    _, lg = make("lgpio")
    _, gz = make("gpiozero")
    _, rp = make("rpigpio")
    for m in (lg, gz, rp):
        Clock(m).scan(3)
    # lgpio: release + idle read, then one group_write and one group_read per row
    assert lg.status()["calls_per_scan"] == 2 + 2 * 11
    # gpiozero: per row two state writes (deselect, select) and 11 reads, plus the idle read
    assert gz.status()["calls_per_scan"] == 11 + 11 * 11 + (2 * 11)
    assert rp.status()["calls_per_scan"] == 11 + 11 * 11 + 12


@pytest.mark.parametrize("debounce", [2, 3])
def test_debounce_needs_identical_consecutive_scans(debounce):
    sim, m = make(debounce=debounce)
    sim.set_occupied(["e3"])
    clock = Clock(m)
    assert clock.scan(debounce).occupied == {"e3"}
    # a bounce: e4 closes for debounce-1 scans, then opens again
    sim.close("e4")
    for _ in range(debounce - 1):
        assert clock.scan().occupied == {"e3"}
    sim.open_("e4")
    for _ in range(5):
        assert clock.scan().occupied == {"e3"}
    # a real change shows up exactly on the debounce-th scan
    sim.open_("e3")
    for _ in range(debounce - 1):
        assert clock.scan().occupied == {"e3"}
    assert clock.scan().occupied == frozenset()


def test_chattering_switch_never_reported():
    sim, m = make(debounce=2)
    clock = Clock(m)
    clock.scan(2)
    for i in range(20):
        if i % 2:
            sim.open_("c5")
        else:
            sim.close("c5")
        assert clock.scan().occupied == frozenset()


def test_scan_rate_is_limited_on_the_callers_clock():
    sim, m = make(scan_hz=100)
    m.scan(0.0)
    m.scan(0.001)
    m.scan(0.002)
    assert m.raw_scans == 1
    m.scan(0.0095)
    assert m.raw_scans == 2


def test_stuck_column_is_reported_and_invents_no_pieces(caplog):
    sim, m = make()
    sim.set_occupied(["c2", "d4"])
    clock = Clock(m)
    assert clock.scan(2).occupied == {"c2", "d4"}
    caplog.set_level(logging.ERROR, logger="companion.drivers.matrix")
    sim.shorted_cols.add(2)  # file c shorted to ground: every c square would read occupied
    for _ in range(5):
        assert clock.scan().occupied == {"c2", "d4"}  # c frozen at its last good value
    st = m.status()
    assert len(st["faults"]) == 1
    assert "column c (GPIO 18)" in st["faults"][0] and "FAULT" in st["detail"]
    assert any("column c" in r.getMessage() for r in caplog.records)
    # the rest of the board keeps working
    sim.close("h8")
    assert clock.scan(2).occupied == {"c2", "d4", "h8"}
    # repaired: file c is read again
    sim.shorted_cols.clear()
    sim.open_("c2")
    assert clock.scan(3).occupied == {"d4", "h8"}
    assert m.status()["faults"] == []


def test_fully_occupied_line_is_flagged_as_suspect():
    sim, m = make()
    sim.set_occupied([f"{f}5" for f in "abcdefghijk"])
    Clock(m).scan(2)
    assert m.status()["suspect"] == ["rank 5 (GPIO 27) reads fully occupied"]


def test_pin_count_mismatch_is_an_error():
    with pytest.raises(ValueError, match="11 row pins but 10 column pins"):
        GpioMatrix(ROWS_11, COLS_11[:10], backend=make_backend("gpiozero", factory=object()))


def test_detect_gpiochip_picks_the_header_chip(monkeypatch):
    from companion.drivers import matrix

    monkeypatch.setattr(matrix.glob, "glob", lambda pat: ["/dev/gpiochip0", "/dev/gpiochip4"])
    sim = MatrixSim(ROWS_11, COLS_11)

    class Pi5OldKernel(FakeLgpio):
        def gpio_get_chip_info(self, handle):
            label = "pinctrl-rp1" if handle == 104 else "gpio-brcmstb@107d508500"
            return (0, 54, "x", label)

    assert detect_gpiochip(Pi5OldKernel(sim.factory)) == 4
    assert detect_gpiochip(FakeLgpio(sim.factory, label="pinctrl-bcm2711")) == 0
    # every handle opened for probing is closed again
    fake = Pi5OldKernel(sim.factory)
    detect_gpiochip(fake)
    assert len(fake.closed_handles) == len(fake.opened)


def test_unknown_backend_name():
    with pytest.raises(ValueError, match="unknown GPIO backend"):
        make_backend("wiringpi")
