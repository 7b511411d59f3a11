"""The drivers that the checked hardware sections (:mod:`companion.hardware_config`) name,
opened: the board, its LEDs, its buttons and its display. A driver whose library is missing or
whose device cannot be opened raises :class:`~companion.hardware_config.ConfigError` naming the
section and field, with what to install or enable. A part the board can play without (the
display, the buttons, the LEDs) that cannot be opened raises :class:`PartMissing`, which also
says how to check for it: the daemon then runs without it and tries again (companion.parts);
a config that cannot work at all (a ``pico`` part without the serial board) stays a
ConfigError.
"""

from __future__ import annotations

from typing import Any

from companion.drivers.base import BoardSource, LedSink
from companion.drivers.buttons import ButtonSource
from companion.drivers.display import TextDisplay
from companion.hardware_config import (
    SPI_DEFAULT_HZ,
    BoardConfig,
    ButtonsConfig,
    ConfigError,
    DisplayConfig,
    LedConfig,
)


class PartMissing(ConfigError):
    """A configured part (``part``: display, buttons, leds) that cannot be opened now: a loose
    cable, a bus not enabled, a library missing. ``check`` is how to look for it."""

    def __init__(self, part: str, message: str, check: str) -> None:
        super().__init__(message)
        self.part = part
        self.check = check


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
    cfg: LedConfig, board: BoardSource | None = None, size: int | None = None,
    spidev: Any = None,
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
        raise PartMissing(
            "leds", f'[leds] kind: "{cfg.kind}" needs the spidev package and SPI enabled on '
            "the Pi", "pip install 'tafl-companion[pi]'") from None
    except OSError as e:
        raise PartMissing(
            "leds", f"[leds] spi_bus/spi_device: cannot open /dev/spidev{cfg.spi_bus}."
            f"{cfg.spi_device} ({e.strerror or e}); is SPI enabled (see hardware/README.md)?",
            f"ls /dev/spidev{cfg.spi_bus}.{cfg.spi_device} (SPI on: sudo raspi-config "
            "nonint do_spi 0)") from None
    sink_cls = L.Apa102Sink if cfg.kind == "apa102" else L.Ws2812SpiSink
    return sink_cls(spi, renderer)


def open_buttons(cfg: ButtonsConfig, board: BoardSource | None = None,
                 pin_factory: Any = None) -> ButtonSource | None:
    """The button driver for ``cfg`` (None without buttons). The simulated board always has
    its buttons (``POST /api/button``); ``pin_factory`` is gpiozero's (tests)."""
    from companion.drivers import buttons as B

    if board is not None and board.kind == "sim":
        return B.SimButtons()
    if cfg.kind == "none":
        return None
    if cfg.kind == "pico":
        from companion.drivers.serial_bridge import SerialBridge

        if not isinstance(board, SerialBridge):
            raise ConfigError('[buttons] kind: "pico" needs the serial board')
        return B.PicoButtons(board, stuck_s=cfg.stuck_s)
    try:
        return B.GpioButtons(dict(cfg.pins), bounce_s=cfg.bounce_ms / 1000,
                             long_s=cfg.long_press_s, stuck_s=cfg.stuck_s,
                             pin_factory=pin_factory)
    except ImportError as e:  # gpiozero itself, or (BadPinFactory) no pin library that works
        if type(e).__name__ == "BadPinFactory":
            raise PartMissing("buttons", f"[buttons] kind: \"gpio\": no GPIO pin library works "
                              f"here ({e})", "ls -l /dev/gpiochip*; python3 -c 'import lgpio' "
                              "(the [pi] extra)") from None
        raise PartMissing("buttons", f"[buttons] kind: \"gpio\" needs gpiozero ({e})",
                          "pip install 'tafl-companion[pi]'") from None
    except Exception as e:  # gpiozero's errors: no pin library, a pin in use
        pins = ",".join(str(n) for n in sorted(dict(cfg.pins).values()))
        raise PartMissing("buttons", f"[buttons] pins: cannot use the buttons' GPIOs ({e})",
                          f"pinctrl get {pins} (Raspberry Pi OS) or gpioinfo") from None


def open_display(cfg: DisplayConfig, board: BoardSource | None = None,
                 serial: Any = None) -> TextDisplay | None:
    """The display driver for ``cfg`` (None without one); the simulated board gets the capture
    display when none is configured. ``serial`` replaces luma's bus interface (tests)."""
    from companion.drivers import display as D

    kind = cfg.kind
    if kind == "none" and board is not None and board.kind == "sim":
        kind = "capture"
    if kind == "none":
        return None
    try:
        if kind == "capture":
            return D.capture_display()
        return D.open_oled(kind, cfg.interface, i2c_port=cfg.i2c_port, address=cfg.address,
                           spi_port=cfg.spi_port, spi_device=cfg.spi_device, dc_pin=cfg.dc_pin,
                           reset_pin=cfg.reset_pin, rotate=cfg.rotate, serial=serial)
    except ImportError as e:
        raise PartMissing("display", f"[display] kind: the display needs luma.oled ({e})",
                          "pip install 'tafl-companion[pi]'") from None
    except Exception as e:  # luma's DeviceNotFoundError, OSError: no bus, nothing at the address
        i2c = cfg.interface == "i2c"
        where = (f"I2C bus {cfg.i2c_port} address 0x{cfg.address:02X}" if i2c
                 else f"SPI {cfg.spi_port}.{cfg.spi_device}")
        check = (f"i2cdetect -y {cfg.i2c_port} (shows {cfg.address:02x} when it answers)" if i2c
                 else f"ls /dev/spidev{cfg.spi_port}.{cfg.spi_device}")
        raise PartMissing("display", f"[display] {cfg.interface}: no {kind.upper()} found on "
                          f"{where} ({e}); is {cfg.interface.upper()} enabled and the wiring "
                          "right (hardware/README.md)?", check) from None
