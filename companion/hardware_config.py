"""The ``[board]``, ``[leds]``, ``[buttons]`` and ``[display]`` sections of the daemon's TOML
config, checked field by field (the drivers they name are opened by
:mod:`companion.hardware_drivers`).

Every problem raises :class:`ConfigError` with a message that names the section and field, e.g.
``[board] row_pins: 10 pins for an 11x11 board (need 11, rank 1 first)``. Other top-level keys
(``variant``, ``data_dir``, ``[web]``, ...) belong to the daemon's config and are ignored here.
"""

from __future__ import annotations

import difflib
import logging
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.drivers.base import BOARD_KINDS
from companion.drivers.leds import LAYOUTS
from companion.squares import a_board

log = logging.getLogger(__name__)

GPIO_BACKENDS = ("auto", "lgpio", "rpigpio", "gpiozero")
SENSORS = ("switch", "polarity")
LED_KINDS = ("none", "pico", "apa102", "ws2812-spi")
HEADER_GPIOS = range(0, 28)  # BCM numbers on the 40-pin header
SPI_PINS = {0: {10: "SPI0 MOSI", 11: "SPI0 SCLK"}, 1: {20: "SPI1 MOSI", 21: "SPI1 SCLK"}}
SPI_DEFAULT_HZ = {"apa102": 4_000_000, "ws2812-spi": 2_400_000}


class ConfigError(ValueError):
    """A config value that cannot work; the message names ``[section] field``."""


@dataclass(frozen=True)
class BoardConfig:
    """Where the sensors are read from."""

    kind: str = "sim"
    size: int = 11
    scan_hz: float = 100.0
    debounce: int = 2
    backend: str = "auto"
    row_pins: tuple[int, ...] = ()
    col_pins: tuple[int, ...] = ()
    gpiochip: int | None = None
    port: str = "auto"
    baud: int = 115200
    sensors: str = "switch"
    #: At rest (no change on the board, no command for ``idle_after`` seconds) the board is
    #: scanned at ``idle_hz``; the first change or command brings back ``scan_hz``. A piece is
    #: lifted for far longer than 1/idle_hz (50 ms), so no lift is lost (docs/raspberry-pi.md).
    idle_hz: float = 20.0
    idle_after: float = 5.0


@dataclass(frozen=True)
class LedConfig:
    """How the per-square LEDs are driven."""

    kind: str = "none"
    spi_bus: int = 0
    spi_device: int = 0
    spi_hz: int | None = None
    layout: str = "serpentine"
    max_amps: float = 2.0
    brightness: float = 0.5


BUTTON_KINDS = ("none", "gpio", "pico")
#: what a press can do (companion.panel): "none" does nothing
BUTTON_ACTIONS = ("clock", "hint", "takeback", "menu", "new_game", "none")
#: the default action of each button's short and long press
DEFAULT_ACTIONS: dict[str, str] = {
    "clock": "clock", "clock_long": "menu", "hint": "hint", "hint_long": "none",
    "takeback": "takeback", "takeback_long": "none", "new": "menu", "new_long": "new_game"}
#: the default pins: BCM on the Pi header (build A, spare pins of boards up to 9x9 and of
#: build B, whose header is free), GP numbers on the Pico are in bridge_config.json
DEFAULT_BUTTON_PINS: dict[str, int] = {"clock": 5, "hint": 6, "takeback": 13, "new": 19}
DISPLAY_INTERFACES = ("i2c", "spi")
LANGUAGES = ("en", "de")


@dataclass(frozen=True)
class ButtonsConfig:
    """The board's buttons: where they are read and what each press does."""

    kind: str = "none"
    pins: tuple[tuple[str, int], ...] = tuple(DEFAULT_BUTTON_PINS.items())
    bounce_ms: int = 30
    long_press_s: float = 1.0
    stuck_s: float = 10.0
    actions: tuple[tuple[str, str], ...] = tuple(DEFAULT_ACTIONS.items())
    press_to_end_move: bool = False  # a move at the board ends with the clock button

    def action(self, button: str, long: bool) -> str:
        """What a short (or long) press of ``button`` does."""
        return dict(self.actions).get(f"{button}_long" if long else button, "none")


@dataclass(frozen=True)
class DisplayConfig:
    """The board's small OLED display."""

    kind: str = "none"
    interface: str = "i2c"
    i2c_port: int = 1
    address: int = 0x3C
    spi_port: int = 0
    spi_device: int = 0
    dc_pin: int = 24
    reset_pin: int = 25
    rotate: int = 0
    language: str = "en"


@dataclass(frozen=True)
class HardwareConfig:
    board: BoardConfig
    leds: LedConfig
    buttons: ButtonsConfig = ButtonsConfig()
    display: DisplayConfig = DisplayConfig()


_BOARD_KEYS = tuple(BoardConfig.__dataclass_fields__)
_LED_KEYS = tuple(LedConfig.__dataclass_fields__)
_BUTTON_KEYS = ("kind", "pins", "bounce_ms", "long_press_s", "stuck_s", "press_to_end_move",
                *DEFAULT_ACTIONS)
_DISPLAY_KEYS = tuple(DisplayConfig.__dataclass_fields__)


def _section(doc: Mapping[str, Any], name: str, keys: tuple[str, ...]) -> Mapping[str, Any]:
    sec = doc.get(name, {})
    if not isinstance(sec, Mapping):
        raise ConfigError(f"[{name}] must be a table, not {type(sec).__name__}")
    for key in sec:
        if key not in keys:
            close = difflib.get_close_matches(key, keys, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"[{name}] {key}: unknown key{hint}; known: {', '.join(keys)}")
    return sec


def _choice(sec: Mapping[str, Any], section: str, key: str, options: tuple[str, ...],
            default: str) -> str:
    value = sec.get(key, default)
    if not isinstance(value, str) or value not in options:
        opts = ", ".join(f'"{o}"' for o in options)
        raise ConfigError(f"[{section}] {key}: {value!r} is not one of {opts}")
    return value


def _int(sec: Mapping[str, Any], section: str, key: str, default: int, lo: int, hi: int,
         what: str = "") -> int:
    value = sec.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"[{section}] {key}: expected a whole number, got {value!r}")
    if not lo <= value <= hi:
        raise ConfigError(f"[{section}] {key}: {value} is out of range ({lo} to {hi}){what}")
    return value


def _number(sec: Mapping[str, Any], section: str, key: str, default: float, lo: float,
            hi: float, unit: str) -> float:
    value = sec.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"[{section}] {key}: expected a number, got {value!r}")
    if not lo <= value <= hi:
        raise ConfigError(f"[{section}] {key}: {value} is out of range ({lo:g} to {hi:g}{unit})")
    return float(value)


def _pins(sec: Mapping[str, Any], key: str, size: int, required: bool) -> tuple[int, ...]:
    if key not in sec:
        if required:
            raise ConfigError(
                f'[board] {key}: missing; kind = "gpio" needs {size} BCM pin numbers '
                f"({'rank 1' if key == 'row_pins' else 'file a'} first)"
            )
        return ()
    value = sec[key]
    if not isinstance(value, list) or not all(
        isinstance(p, int) and not isinstance(p, bool) for p in value
    ):
        raise ConfigError(f"[board] {key}: expected a list of BCM pin numbers, got {value!r}")
    if required and len(value) != size:
        first = "rank 1" if key == "row_pins" else "file a"
        raise ConfigError(
            f"[board] {key}: {len(value)} pins for {a_board(size)} "
            f"(need {size}, {first} first)"
        )
    seen = set()
    for p in value:
        if p not in HEADER_GPIOS:
            raise ConfigError(f"[board] {key}: GPIO {p} is not on the 40-pin header (BCM 0-27)")
        if p in seen:
            raise ConfigError(f"[board] {key}: GPIO {p} is listed twice")
        seen.add(p)
    return tuple(value)


def parse_board(sec: Mapping[str, Any]) -> BoardConfig:
    """A checked BoardConfig from the ``[board]`` table (missing keys take their defaults)."""
    sec = _section({"board": sec}, "board", _BOARD_KEYS)
    kind = _choice(sec, "board", "kind", BOARD_KINDS, "sim")
    size = _int(sec, "board", "size", 11, 7, 19, " - tafl boards are 7x7 to 19x19")
    scan_hz = _number(sec, "board", "scan_hz", 100, 1, 1000, " Hz")
    debounce = _int(sec, "board", "debounce", 2, 1, 5, " identical scans")
    backend = _choice(sec, "board", "backend", GPIO_BACKENDS, "auto")
    gpio = kind == "gpio"
    rows = _pins(sec, "row_pins", size, gpio)
    cols = _pins(sec, "col_pins", size, gpio)
    both = sorted(set(rows) & set(cols))
    if both:
        raise ConfigError(f"[board] col_pins: GPIO {both[0]} is also in row_pins")
    if gpio:
        for p in rows + cols:
            if p in (0, 1):
                log.warning(
                    "[board] GPIO %d is the HAT ID EEPROM line; fine if no HAT is fitted", p
                )
    gpiochip = sec.get("gpiochip")
    if gpiochip is not None:
        gpiochip = _int(sec, "board", "gpiochip", 0, 0, 15)
    port = sec.get("port", "auto")
    if not isinstance(port, str) or not port.strip():
        raise ConfigError(f'[board] port: expected "auto" or a device path, got {port!r}')
    baud = _int(sec, "board", "baud", 115200, 1200, 4_000_000)
    sensors = _choice(sec, "board", "sensors", SENSORS, "switch")
    idle_hz = _number(sec, "board", "idle_hz", 20, 1, 1000, " Hz")
    idle_after = _number(sec, "board", "idle_after", 5, 0, 86400, " s; 0 never slows down")
    if sensors == "polarity" and kind == "gpio":
        raise ConfigError(
            '[board] sensors: "polarity" needs linear Hall sensors on the Pico bridge '
            '(kind = "serial"); a GPIO reed matrix only knows on/off'
        )
    return BoardConfig(
        kind, size, scan_hz, debounce, backend, rows, cols, gpiochip, port, baud, sensors,
        idle_hz, idle_after,
    )


def parse_leds(sec: Mapping[str, Any]) -> LedConfig:
    """A checked LedConfig from the ``[leds]`` table."""
    sec = _section({"leds": sec}, "leds", _LED_KEYS)
    kind = _choice(sec, "leds", "kind", LED_KINDS, "none")
    bus = _int(sec, "leds", "spi_bus", 0, 0, 6)
    device = _int(sec, "leds", "spi_device", 0, 0, 3)
    hz = sec.get("spi_hz")
    if hz is not None:
        hz = _int(sec, "leds", "spi_hz", 0, 100_000, 32_000_000)
    layout = _choice(sec, "leds", "layout", LAYOUTS, "serpentine")
    max_amps = _number(sec, "leds", "max_amps", 2.0, 0.2, 30, " A")
    brightness = _number(sec, "leds", "brightness", 0.5, 0, 1, "")
    return LedConfig(kind, bus, device, hz, layout, max_amps, brightness)


def parse_buttons(sec: Mapping[str, Any]) -> ButtonsConfig:
    """A checked ButtonsConfig from the ``[buttons]`` table."""
    from firmware_bridge.protocol import BUTTONS

    sec = _section({"buttons": sec}, "buttons", _BUTTON_KEYS)
    kind = _choice(sec, "buttons", "kind", BUTTON_KINDS, "none")
    raw = sec.get("pins", DEFAULT_BUTTON_PINS)
    if not isinstance(raw, Mapping):
        raise ConfigError(f"[buttons] pins: expected a table such as {{clock = 5, hint = 6}}, "
                          f"got {raw!r}")
    pins: dict[str, int] = {}
    for name, pin in raw.items():
        if name not in BUTTONS:
            raise ConfigError(f"[buttons] pins: unknown button {name!r}; the buttons are "
                              f"{', '.join(BUTTONS)}")
        if isinstance(pin, bool) or not isinstance(pin, int) or pin not in HEADER_GPIOS:
            raise ConfigError(f"[buttons] pins: {name} = {pin!r} is not a GPIO of the 40-pin "
                              "header (BCM 0-27)")
        if pin in pins.values():
            raise ConfigError(f"[buttons] pins: GPIO {pin} is given to two buttons")
        pins[name] = pin
    bounce = _int(sec, "buttons", "bounce_ms", 30, 5, 200, " ms")
    long_s = _number(sec, "buttons", "long_press_s", 1.0, 0.3, 5.0, " s")
    stuck_s = _number(sec, "buttons", "stuck_s", 10.0, 3.0, 120.0, " s")
    if stuck_s <= long_s:
        raise ConfigError(f"[buttons] stuck_s: {stuck_s:g} s must be longer than the long "
                          f"press ({long_s:g} s)")
    actions = {key: _choice(sec, "buttons", key, BUTTON_ACTIONS, default)
               for key, default in DEFAULT_ACTIONS.items()}
    press = sec.get("press_to_end_move", False)
    if not isinstance(press, bool):
        raise ConfigError(f"[buttons] press_to_end_move: expected true or false, got {press!r}")
    return ButtonsConfig(kind, tuple(sorted(pins.items())), bounce, long_s, stuck_s,
                         tuple(actions.items()), press)


def parse_display(sec: Mapping[str, Any]) -> DisplayConfig:
    """A checked DisplayConfig from the ``[display]`` table."""
    from companion.drivers.display import DISPLAY_KINDS

    sec = _section({"display": sec}, "display", _DISPLAY_KEYS)
    kind = _choice(sec, "display", "kind", DISPLAY_KINDS, "none")
    interface = _choice(sec, "display", "interface", DISPLAY_INTERFACES, "i2c")
    port = _int(sec, "display", "i2c_port", 1, 0, 31)
    address = _int(sec, "display", "address", 0x3C, 0x03, 0x77, " - SSD1306/SH1106: 0x3C or 0x3D")
    spi_port = _int(sec, "display", "spi_port", 0, 0, 6)
    spi_device = _int(sec, "display", "spi_device", 0, 0, 3)
    dc = _int(sec, "display", "dc_pin", 24, 0, 27)
    reset = _int(sec, "display", "reset_pin", 25, 0, 27)
    rotate = _int(sec, "display", "rotate", 0, 0, 3, " quarter turns")
    language = _choice(sec, "display", "language", LANGUAGES, "en")
    return DisplayConfig(kind, interface, port, address, spi_port, spi_device, dc, reset,
                         rotate, language)


def _check_buttons_and_display(board: BoardConfig, leds: LedConfig, buttons: ButtonsConfig,
                               display: DisplayConfig) -> None:
    """No GPIO with two jobs between the matrix, the LED bus, the buttons and the display."""
    jobs: dict[int, str] = {}
    if board.kind == "gpio":
        for key, pins in (("row_pins", board.row_pins), ("col_pins", board.col_pins)):
            for p in pins:
                jobs[p] = f"[board] {key}"
    if leds.kind in ("apa102", "ws2812-spi"):
        for p, what in SPI_PINS.get(leds.spi_bus, {}).items():
            jobs.setdefault(p, f"{what} of the {leds.kind} LEDs")
    if display.kind in ("ssd1306", "sh1106"):
        i2c_pins = {1: (2, 3), 0: (0, 1)}.get(display.i2c_port, ())
        if display.interface == "i2c":
            for p, what in zip(i2c_pins, ("SDA", "SCL")):
                if p in jobs:
                    raise ConfigError(
                        f"[display] i2c_port: I2C{display.i2c_port} {what} is GPIO {p}, which "
                        f"is {jobs[p]}; on an 11x11 Pi-header board use i2c_port = 0 (GPIO 0 "
                        "and 1, hardware/README.md)")
                jobs[p] = f"I2C{display.i2c_port} {what} of the display"
        elif display.interface == "spi":
            for p in (display.dc_pin, display.reset_pin):
                if p in jobs:
                    raise ConfigError(f"[display] dc_pin/reset_pin: GPIO {p} is already "
                                      f"{jobs[p]}")
                jobs[p] = "[display] dc_pin/reset_pin"
    if buttons.kind == "gpio":
        for name, p in buttons.pins:
            if p in jobs:
                raise ConfigError(f"[buttons] pins: {name} = {p} is already {jobs[p]}; "
                                  "hardware/README.md lists the free pins")
    if buttons.kind == "pico" and board.kind != "serial":
        raise ConfigError('[buttons] kind: "pico" buttons are read by the Pico bridge, but '
                          f'[board] kind = "{board.kind}"')


def parse_hardware(doc: Mapping[str, Any]) -> HardwareConfig:
    """Every hardware section of a parsed config document, plus the checks that need two."""
    board = parse_board(doc.get("board", {}))
    leds = parse_leds(doc.get("leds", {}))
    buttons = parse_buttons(doc.get("buttons", {}))
    display = parse_display(doc.get("display", {}))
    if leds.kind == "pico" and board.kind != "serial":
        raise ConfigError(
            f'[leds] kind: "pico" LEDs hang off the Pico bridge, but [board] kind = "{board.kind}"'
        )
    if leds.kind in ("apa102", "ws2812-spi") and board.kind == "gpio":
        taken = SPI_PINS.get(leds.spi_bus, {})
        for key, pins in (("row_pins", board.row_pins), ("col_pins", board.col_pins)):
            for p in pins:
                if p in taken:
                    raise ConfigError(
                        f"[board] {key}: GPIO {p} is {taken[p]}, which the {leds.kind} LEDs "
                        f"on SPI bus {leds.spi_bus} need; move that line to a free GPIO"
                    )
    _check_buttons_and_display(board, leds, buttons, display)
    return HardwareConfig(board, leds, buttons, display)


def read_toml(path: str | Path) -> dict[str, Any]:  # JSON edge (TOML): checked by the caller
    """The parsed TOML document of a config file; ConfigError naming the file if it cannot be
    read or is not valid TOML."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"{p}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{p}: not UTF-8 text") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{p}: not valid TOML: {e}") from None


def load_hardware_config(path: str | Path) -> HardwareConfig:
    """Read and check the hardware sections of a TOML config file."""
    return parse_hardware(read_toml(path))
