"""The ``[board]`` and ``[leds]`` sections of the daemon's TOML config, checked field by field,
and the factories that open the matching drivers.

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

from companion.drivers.base import BOARD_KINDS, BoardSource, LedSink
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


@dataclass(frozen=True)
class HardwareConfig:
    board: BoardConfig
    leds: LedConfig


_BOARD_KEYS = tuple(BoardConfig.__dataclass_fields__)
_LED_KEYS = tuple(LedConfig.__dataclass_fields__)


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


def _choice(sec, section: str, key: str, options, default: str) -> str:
    value = sec.get(key, default)
    if not isinstance(value, str) or value not in options:
        opts = ", ".join(f'"{o}"' for o in options)
        raise ConfigError(f"[{section}] {key}: {value!r} is not one of {opts}")
    return value


def _int(sec, section: str, key: str, default: int, lo: int, hi: int, what: str = "") -> int:
    value = sec.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"[{section}] {key}: expected a whole number, got {value!r}")
    if not lo <= value <= hi:
        raise ConfigError(f"[{section}] {key}: {value} is out of range ({lo} to {hi}){what}")
    return value


def _number(sec, section: str, key: str, default: float, lo: float, hi: float, unit: str) -> float:
    value = sec.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"[{section}] {key}: expected a number, got {value!r}")
    if not lo <= value <= hi:
        raise ConfigError(f"[{section}] {key}: {value} is out of range ({lo:g} to {hi:g}{unit})")
    return float(value)


def _pins(sec, key: str, size: int, required: bool) -> tuple[int, ...]:
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
    if sensors == "polarity" and kind == "gpio":
        raise ConfigError(
            '[board] sensors: "polarity" needs linear Hall sensors on the Pico bridge '
            '(kind = "serial"); a GPIO reed matrix only knows on/off'
        )
    return BoardConfig(
        kind, size, scan_hz, debounce, backend, rows, cols, gpiochip, port, baud, sensors
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


def parse_hardware(doc: Mapping[str, Any]) -> HardwareConfig:
    """Both sections of a parsed config document, plus the checks that need both."""
    board = parse_board(doc.get("board", {}))
    leds = parse_leds(doc.get("leds", {}))
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
    return HardwareConfig(board, leds)


def read_toml(path: str | Path) -> dict:
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


def open_board(cfg: BoardConfig) -> BoardSource:
    """The board driver for ``cfg``; ConfigError when its library is missing."""
    if cfg.kind == "sim":
        try:
            from companion.drivers.sim import SimBoard
        except ImportError as e:
            raise ConfigError(f'[board] kind: "sim" needs companion.drivers.sim ({e})') from None
        return SimBoard(cfg.size)
    if cfg.kind == "gpio":
        from companion.drivers.matrix import GpioMatrix, LgpioBackend, PinBackend, make_backend

        backend: PinBackend
        try:
            if cfg.backend == "lgpio" or (cfg.backend == "auto" and cfg.gpiochip is not None):
                backend = LgpioBackend(chip=cfg.gpiochip)
            else:
                backend = make_backend(cfg.backend)
            return GpioMatrix(
                list(cfg.row_pins),
                list(cfg.col_pins),
                backend=backend,
                scan_hz=cfg.scan_hz,
                debounce=cfg.debounce,
            )
        except ImportError as e:
            raise ConfigError(
                f'[board] backend: "{cfg.backend}" cannot load its GPIO library ({e}); '
                "install the project's [pi] or [pi5] extra"
            ) from None
    from companion.drivers.serial_bridge import SerialBridge

    return SerialBridge(cfg.size, port=cfg.port, baud=cfg.baud, sensors=cfg.sensors)


def open_leds(
    cfg: LedConfig, board: BoardSource | None = None, size: int | None = None, spidev=None
) -> LedSink:
    """The LED sink for ``cfg``. ``board`` gives the board size and, for ``pico``, the serial
    bridge that carries the frames; ``spidev`` replaces the spidev module (tests)."""
    from companion.drivers import leds as L

    n = size or (board.size if board is not None else 11)
    renderer = L.LedRenderer(n, cfg.layout, cfg.brightness, cfg.max_amps)
    if cfg.kind == "none":
        return L.PageOnlySink()
    if cfg.kind == "pico":
        if board is None or not hasattr(board, "set_pixels"):
            raise ConfigError(
                '[leds] kind: "pico" needs the serial board ([board] kind = "serial")'
            )
        return L.PicoSink(board, renderer)
    hz = cfg.spi_hz or SPI_DEFAULT_HZ[cfg.kind]
    try:
        spi = L.open_spidev(cfg.spi_bus, cfg.spi_device, hz, module=spidev)
    except ImportError:
        raise ConfigError(
            f'[leds] kind: "{cfg.kind}" needs the spidev package and SPI enabled on the Pi'
        ) from None
    except OSError as e:
        raise ConfigError(
            f"[leds] spi_bus/spi_device: cannot open /dev/spidev{cfg.spi_bus}.{cfg.spi_device} "
            f"({e.strerror or e}); is SPI enabled (see hardware/README.md)?"
        ) from None
    sink_cls = L.Apa102Sink if cfg.kind == "apa102" else L.Ws2812SpiSink
    return sink_cls(spi, renderer)
