"""[board]/[leds] config validation, the driver factories, and the hwtest command."""

from __future__ import annotations

import io
import sys
import tomllib
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "hw_shims"))

from mock_matrix import COLS_11, ROWS_11, MatrixSim  # noqa: E402

from companion.drivers.leds import Apa102Sink, PageOnlySink, Ws2812SpiSink  # noqa: E402
from companion.drivers.matrix import GpioMatrix  # noqa: E402
from companion.hardware_config import (  # noqa: E402
    BoardConfig,
    ConfigError,
    LedConfig,
    load_hardware_config,
    parse_hardware,
)
from companion.hardware_drivers import open_board, open_leds  # noqa: E402
from companion.hwtest import run_hwtest, strip_order  # noqa: E402
from companion.scan import Scan  # noqa: E402

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "hardware" / "examples").glob("*.toml"))
GPIO = {"kind": "gpio", "size": 11, "row_pins": ROWS_11, "col_pins": COLS_11}


def test_there_are_examples():
    names = {p.name for p in EXAMPLES}
    assert {"sim.toml", "gpio-11x11.toml", "pico-serial.toml"} <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_config_parses(path):
    hw = load_hardware_config(path)
    doc = tomllib.loads(path.read_text())
    assert hw.board.kind == doc["board"]["kind"]
    assert hw.board.size == doc["board"]["size"]
    assert hw.leds.kind == doc["leds"]["kind"]
    for key in ("variant", "data_dir", "web"):  # the daemon's keys are there too
        assert key in doc
    assert "pin" not in doc  # no example PIN that people would keep: one is generated
    assert "pin:" in path.read_text()  # ... and the comment says how to set one


def test_defaults():
    hw = parse_hardware({})
    assert hw.board == BoardConfig() and hw.board.kind == "sim" and hw.board.scan_hz == 100
    assert hw.leds == LedConfig() and hw.leds.kind == "none" and hw.leds.max_amps == 2.0


@pytest.mark.parametrize(
    "doc, message",
    [
        ({"board": []}, "[board] must be a table"),
        ({"board": {"kind": "usb"}}, '[board] kind: \'usb\' is not one of "sim", "gpio", "serial"'),
        ({"board": {"size": 23}}, "[board] size: 23 is out of range (7 to 19)"),
        ({"board": {"size": "11"}}, "[board] size: expected a whole number, got '11'"),
        ({"board": {"size": True}}, "[board] size: expected a whole number"),
        ({"board": {"scan_hz": 0}}, "[board] scan_hz: 0 is out of range (1 to 1000 Hz)"),
        ({"board": {"debounce": 9}}, "[board] debounce: 9 is out of range (1 to 5)"),
        ({"board": {"backend": "wiringpi"}}, "[board] backend: 'wiringpi' is not one of"),
        ({"board": {"rows_pins": []}}, "[board] rows_pins: unknown key (did you mean 'row_pins'?)"),
        ({"board": {"kind": "gpio"}}, '[board] row_pins: missing; kind = "gpio" needs 11'),
        (
            {"board": {**GPIO, "row_pins": ROWS_11[:10]}},
            "[board] row_pins: 10 pins for an 11x11 board (need 11, rank 1 first)",
        ),
        (
            {"board": {**GPIO, "col_pins": COLS_11[:10] + [28]}},
            "[board] col_pins: GPIO 28 is not on the 40-pin header (BCM 0-27)",
        ),
        (
            {"board": {**GPIO, "col_pins": COLS_11[:10] + [14]}},
            "[board] col_pins: GPIO 14 is listed twice",
        ),
        (
            {"board": {**GPIO, "col_pins": COLS_11[:10] + [2]}},
            "[board] col_pins: GPIO 2 is also in row_pins",
        ),
        (
            {"board": {**GPIO, "row_pins": "2,3,4"}},
            "[board] row_pins: expected a list of BCM pin numbers",
        ),
        ({"board": {"port": ""}}, '[board] port: expected "auto" or a device path'),
        ({"board": {"sensors": "magic"}}, "[board] sensors: 'magic' is not one of"),
        ({"board": {**GPIO, "sensors": "polarity"}}, '[board] sensors: "polarity" needs linear'),
        ({"leds": {"kind": "neopixel"}}, "[leds] kind: 'neopixel' is not one of"),
        ({"leds": {"max_amps": 0}}, "[leds] max_amps: 0 is out of range (0.2 to 30 A)"),
        ({"leds": {"brightness": 1.5}}, "[leds] brightness: 1.5 is out of range (0 to 1)"),
        ({"leds": {"layout": "zigzag"}}, "[leds] layout: 'zigzag' is not one of"),
        ({"leds": {"spi_bus": -1}}, "[leds] spi_bus: -1 is out of range"),
        ({"leds": {"kind": "pico"}}, '[leds] kind: "pico" LEDs hang off the Pico bridge'),
        (
            {"board": {**GPIO, "col_pins": COLS_11[:10] + [10]}, "leds": {"kind": "apa102"}},
            "[board] col_pins: GPIO 10 is SPI0 MOSI, which the apa102 LEDs on SPI bus 0 need",
        ),
        (
            {"board": {**GPIO, "row_pins": ROWS_11[:10] + [11]}, "leds": {"kind": "ws2812-spi"}},
            "[board] row_pins: GPIO 11 is SPI0 SCLK",
        ),
    ],
)
def test_specific_errors(doc, message):
    with pytest.raises(ConfigError) as exc:
        parse_hardware(doc)
    assert message in str(exc.value)
    assert "\n" not in str(exc.value)


def test_spi_pins_of_another_bus_are_fine():
    cols = [14, 15, 18, 23, 24, 25, 12, 16, 10, 11, 7]  # SPI0's pins, LEDs on SPI1 (20, 21)
    doc = {"board": {**GPIO, "col_pins": cols}, "leds": {"kind": "apa102", "spi_bus": 1}}
    assert parse_hardware(doc).board.col_pins == tuple(cols)
    doc["leds"]["spi_bus"] = 0
    with pytest.raises(ConfigError, match="GPIO 10 is SPI0 MOSI"):
        parse_hardware(doc)


def test_file_errors(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_hardware_config(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[board\nkind = 'gpio'\n")
    with pytest.raises(ConfigError, match="bad.toml: not valid TOML"):
        load_hardware_config(bad)


@pytest.fixture
def mock_pins():
    from gpiozero import Device

    sim = MatrixSim(ROWS_11, COLS_11)
    old = Device.pin_factory
    Device.pin_factory = sim.factory  # gpiozero's public way to choose the factory for devices
    yield sim
    Device.pin_factory = old


def test_open_board_gpio_on_mock_pins(mock_pins):
    hw = parse_hardware({"board": {**GPIO, "backend": "gpiozero", "debounce": 3}})
    board = open_board(hw.board)
    assert isinstance(board, GpioMatrix) and board.debounce == 3
    mock_pins.set_occupied(["f6"])
    scans = [board.scan(i / 100) for i in range(1, 4)]
    assert scans[:2] == [None, None] and scans[2].occupied == {"f6"}
    board.close()


def test_open_board_missing_library_is_a_config_error(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_lgpio(name, *a, **kw):
        if name == "lgpio":
            raise ModuleNotFoundError("No module named 'lgpio'", name="lgpio")
        return real_import(name, *a, **kw)

    monkeypatch.setattr(builtins, "__import__", no_lgpio)
    hw = parse_hardware({"board": {**GPIO, "backend": "lgpio"}})
    with pytest.raises(ConfigError, match='backend: "lgpio" cannot load its GPIO library'):
        open_board(hw.board)


def test_open_leds_kinds():
    from fake_spi import FakeSpidevModule

    assert isinstance(open_leds(LedConfig(), None), PageOnlySink)
    mod = FakeSpidevModule()
    sink = open_leds(LedConfig(kind="apa102", spi_device=1), None, size=11, spidev=mod)
    assert isinstance(sink, Apa102Sink)
    assert mod.devices[0].opened == (0, 1) and mod.devices[0].max_speed_hz == 4_000_000
    sink = open_leds(LedConfig(kind="ws2812-spi"), None, size=11, spidev=mod)
    assert isinstance(sink, Ws2812SpiSink) and mod.devices[1].max_speed_hz == 2_400_000
    with pytest.raises(ConfigError, match='"pico" needs the serial board'):
        open_leds(LedConfig(kind="pico"), None)


# -- hwtest -------------------------------------------------------------------------------------


class ScriptedBoard:
    """A board whose readings follow a script of (time, occupied, colours) steps."""

    kind = "sim"
    size = 7

    def __init__(self, script):
        self.script = script
        self.closed = False

    def scan(self, now):
        current = None
        for t, occ, colours in self.script:
            if now >= t:
                current = (occ, colours)
        if current is None or current[0] is None:
            return None
        return Scan(now, frozenset(current[0]), current[1])

    def status(self):
        return {"kind": "sim", "connected": True, "detail": "scripted 7x7", "faults": []}

    def close(self):
        self.closed = True


class RecordingSink:
    def __init__(self):
        self.frames = []

    def show(self, frame, now):
        self.frames.append((now, dict(frame)))

    def close(self):
        pass


def test_hwtest_lights_every_led_and_prints_changes():
    board = ScriptedBoard(
        [
            (0.0, None, None),
            (0.5, {"d4"}, {"d4": "d"}),
            (1.0, {"d4", "a1"}, {"d4": "d", "a1": "a"}),
            (1.5, {"a1"}, {"a1": "a"}),
        ]
    )
    sink = RecordingSink()
    t = [0.0]
    out = io.StringIO()
    summary = run_hwtest(
        board,
        sink,
        seconds=49 * 0.1,
        scan_hz=100,
        led_step=0.1,
        layout="serpentine",
        out=out,
        clock=lambda: t[0],
        sleep=lambda s: t.__setitem__(0, t[0] + max(s, 0.01)),
    )
    text = out.getvalue()
    assert summary["lit"] == strip_order(7, "serpentine")  # every LED once, in strip order
    assert len(set(summary["lit"])) == 49
    assert "no reading: scripted 7x7" in text
    assert "   0.50s  start: 1 occupied: d4 (defender)" in text
    assert "   1.00s  a1 (attacker) on" in text
    assert "   1.50s  d4 off" in text
    assert summary["changes"] == 2
    assert "hwtest: 2 sensor changes, 0 faults" in text
    last_frame = sink.frames[-1][1]
    assert last_frame["a1"] == "target"  # occupied squares light green


def test_strip_order_serpentine():
    order = strip_order(7, "serpentine")
    assert order[:9] == ["a1", "b1", "c1", "d1", "e1", "f1", "g1", "g2", "f2"]


def test_hwtest_bad_config_exits_2_with_one_line(tmp_path, capsys):
    from companion.cli import main

    bad = tmp_path / "c.toml"
    bad.write_text('[board]\nkind = "gpio"\nsize = 11\nrow_pins = [2, 3]\n')
    assert main(["hwtest", "--config", str(bad), "--seconds", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "[board] row_pins: 2 pins for an 11x11 board" in err


def test_hwtest_command_runs_on_mock_pins(tmp_path, capsys, mock_pins):
    from companion.cli import main

    cfg = tmp_path / "c.toml"
    rows = ", ".join(map(str, ROWS_11))
    cols = ", ".join(map(str, COLS_11))
    cfg.write_text(
        f'[board]\nkind = "gpio"\nsize = 11\nbackend = "gpiozero"\n'
        f"row_pins = [{rows}]\ncol_pins = [{cols}]\n"
    )
    mock_pins.set_occupied(["c3", "k11"])
    assert main(["hwtest", "--config", str(cfg), "--seconds", "0.3"]) == 0
    out = capsys.readouterr().out
    assert "11x11 reed matrix on gpiozero" in out
    assert "start: 2 occupied: c3 k11" in out


def test_no_gpio_library_at_all_is_a_config_error(monkeypatch):
    from gpiozero import Device

    # gpiozero's documented way to choose a pin factory, naming one that does not exist
    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-pin-factory")
    hw = parse_hardware({"board": {**GPIO, "backend": "gpiozero"}})
    with pytest.raises(ConfigError, match="no gpiozero pin factory works here"):
        open_board(hw.board)


def test_hwtest_hardware_failure_exits_1_with_one_line(tmp_path, capsys, monkeypatch):
    import companion.hwtest as hwtest
    from companion.cli import main

    def busy(cfg):
        raise OSError("GPIO busy")

    monkeypatch.setattr(hwtest, "open_board", busy)
    cfg = tmp_path / "c.toml"
    cfg.write_text('[board]\nkind = "serial"\n')
    assert main(["hwtest", "--config", str(cfg), "--seconds", "1"]) == 1
    err = capsys.readouterr().err
    assert err == "hwtest: cannot open the serial board: GPIO busy\n"
