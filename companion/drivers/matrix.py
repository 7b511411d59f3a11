"""Reed-switch matrix on the Raspberry Pi's own GPIO header.

Wiring (see ``hardware/README.md``): one reed switch and one diode per square; the diode's cathode
goes to the row wire. Row ``r`` (rank ``r + 1``) is driven low one at a time while the others are
driven high; columns (file a, b, ...) are inputs with pull-ups, so a closed switch on the selected
row reads low. Before the rows are walked, every row is released and the columns are read once: a
column that reads low then is shorted to ground (or a switch is shorted past its diode) and is
reported as stuck; its squares keep their last debounced value instead of inventing pieces.

Pin access goes through a tiny :class:`PinBackend` interface with three implementations: lgpio
(one ``group_write`` + one ``group_read`` per row; Pi 5 and older), RPi.GPIO, and gpiozero pin
factories (used by the tests with ``gpiozero.pins.mock.MockFactory``). Each backend counts its
library calls so the cost per scan can be measured (``bench/matrix_scan.py``).
"""

from __future__ import annotations

import contextlib
import glob
import importlib
import logging
import re
import warnings
from collections import deque
from typing import Any, Protocol

from companion.drivers.base import SourceStatus
from companion.scan import Scan
from companion.squares import file_letter, square_names

log = logging.getLogger(__name__)

BACKENDS = ("auto", "lgpio", "rpigpio", "gpiozero")
_PI_CHIP_LABELS = ("pinctrl-rp1", "pinctrl-bcm2712", "pinctrl-bcm2711", "pinctrl-bcm2835")


class MatrixStatus(SourceStatus):
    """The reed matrix's health: besides the board's, the backend, its calls per scan, the
    raw scans made and the lines that look wrong."""

    backend: str
    calls_per_scan: int
    raw_scans: int
    suspect: list[str]


class PinBackend(Protocol):
    """Minimal pin access for a row/column matrix; ``calls`` counts library calls."""

    name: str
    calls: int

    def setup(self, rows: list[int], cols: list[int]) -> None:
        """Claim ``rows`` as outputs (all high) and ``cols`` as inputs with pull-ups."""
        ...

    def select(self, row: int | None) -> None:
        """Drive row index ``row`` low and every other row high; None drives all rows high."""
        ...

    def read(self) -> int:
        """Column bitmask: bit ``j`` set when column ``j`` reads low (a closed switch)."""
        ...

    def close(self) -> None:
        """Release the pins."""
        ...


class GpiozeroBackend:
    """Pins from a gpiozero pin factory (``factory.pin(n)``): the given one, else
    ``Device.pin_factory``, else gpiozero's default. Two calls per row change plus one per column
    read: the slowest backend, but it runs on MockFactory pins."""

    name = "gpiozero"

    def __init__(self, factory: Any = None) -> None:
        self.factory = factory
        self.calls = 0
        self._rows: list[Any] = []
        self._cols: list[Any] = []
        self._selected: int | None = None

    def setup(self, rows: list[int], cols: list[int]) -> None:
        if self.factory is None:
            from gpiozero import Device

            try:
                with warnings.catch_warnings():  # one fallback warning per library tried
                    warnings.simplefilter("ignore")
                    Device.ensure_pin_factory()
                self.factory = Device.pin_factory
            except Exception as e:  # gpiozero.exc.BadPinFactory: not a Pi, no pin library
                raise ImportError(f"no gpiozero pin factory works here ({e})") from e
        self._rows = [self.factory.pin(n) for n in rows]
        self._cols = [self.factory.pin(n) for n in cols]
        for p in self._rows:
            p.function = "output"
            p.state = True
        for p in self._cols:
            p.function = "input"
            p.pull = "up"
        self._selected = None

    def select(self, row: int | None) -> None:
        if row == self._selected:
            return
        if self._selected is not None:
            self._rows[self._selected].state = True
            self.calls += 1
        if row is not None:
            self._rows[row].state = False
            self.calls += 1
        self._selected = row

    def read(self) -> int:
        mask = 0
        for j, p in enumerate(self._cols):
            if not p.state:
                mask |= 1 << j
        self.calls += len(self._cols)
        return mask

    def close(self) -> None:
        for p in self._rows + self._cols:
            try:
                p.function = "input"
                p.pull = "floating"
            except Exception:  # noqa: BLE001 - fixed pulls on some pins; closing anyway
                pass
        self._rows, self._cols = [], []


def detect_gpiochip(lg: Any) -> int:
    """Number of the gpiochip that carries the 40-pin header: ``pinctrl-rp1`` on a Pi 5
    (gpiochip4 on older kernels, gpiochip0 on newer), ``pinctrl-bcm2711``/``bcm2835`` before."""
    numbers = sorted(
        int(m.group(1))
        for m in (re.search(r"gpiochip(\d+)$", p) for p in glob.glob("/dev/gpiochip*"))
        if m
    )
    for n in numbers:
        try:
            h = lg.gpiochip_open(n)
        except Exception:  # noqa: BLE001 - lgpio.error: not ours to open
            continue
        try:
            label = lg.gpio_get_chip_info(h)[3]
        except Exception:  # noqa: BLE001
            label = ""
        finally:
            lg.gpiochip_close(h)
        if any(label.startswith(x) for x in _PI_CHIP_LABELS):
            return n
    return 0


class LgpioBackend:
    """lgpio groups: rows claimed as one output group, columns as one input group with pull-ups;
    a row change is one ``group_write`` and a column read one ``group_read``."""

    name = "lgpio"

    def __init__(self, chip: int | None = None, module: Any = None) -> None:
        self.chip = chip
        self._lg = module
        self.calls = 0
        self._h = None
        self._rows: list[int] = []
        self._cols: list[int] = []
        self._row_full = 0
        self._col_full = 0

    def setup(self, rows: list[int], cols: list[int]) -> None:
        lg = self._lg or importlib.import_module("lgpio")
        self._lg = lg
        if self.chip is None:
            self.chip = detect_gpiochip(lg)
        self._h = lg.gpiochip_open(self.chip)
        self._rows, self._cols = list(rows), list(cols)
        self._row_full = (1 << len(rows)) - 1
        self._col_full = (1 << len(cols)) - 1
        lg.group_claim_output(self._h, self._rows, [1] * len(rows))
        lg.group_claim_input(self._h, self._cols, lg.SET_PULL_UP)

    def select(self, row: int | None) -> None:
        bits = self._row_full if row is None else self._row_full & ~(1 << row)
        self._lg.group_write(self._h, self._rows[0], bits, self._row_full)
        self.calls += 1

    def read(self) -> int:
        res = self._lg.group_read(self._h, self._cols[0])
        self.calls += 1
        levels = res[1] if isinstance(res, tuple | list) else res
        return int(~levels & self._col_full)

    def close(self) -> None:
        if self._h is None:
            return
        lg, h = self._lg, self._h
        self._h = None
        for leader in (self._rows[:1], self._cols[:1]):
            if leader:
                with contextlib.suppress(Exception):
                    lg.group_free(h, leader[0])
        lg.gpiochip_close(h)


class RPiGPIOBackend:
    """RPi.GPIO (older Pis): one ``output`` call per row change, one ``input`` per column."""

    name = "rpigpio"

    def __init__(self, module: Any = None) -> None:
        self._gpio = module
        self.calls = 0
        self._rows: list[int] = []
        self._cols: list[int] = []
        self._selected: int | None = None

    def setup(self, rows: list[int], cols: list[int]) -> None:
        gpio = self._gpio or importlib.import_module("RPi.GPIO")
        self._gpio = gpio
        gpio.setwarnings(False)
        gpio.setmode(gpio.BCM)
        self._rows, self._cols = list(rows), list(cols)
        gpio.setup(self._rows, gpio.OUT, initial=gpio.HIGH)
        gpio.setup(self._cols, gpio.IN, pull_up_down=gpio.PUD_UP)
        self._selected = None

    def select(self, row: int | None) -> None:
        if row == self._selected:
            return
        gpio = self._gpio
        chans, vals = [], []
        if self._selected is not None:
            chans.append(self._rows[self._selected])
            vals.append(gpio.HIGH)
        if row is not None:
            chans.append(self._rows[row])
            vals.append(gpio.LOW)
        gpio.output(chans, vals)
        self.calls += 1
        self._selected = row

    def read(self) -> int:
        gpio = self._gpio
        mask = 0
        for j, c in enumerate(self._cols):
            if not gpio.input(c):
                mask |= 1 << j
        self.calls += len(self._cols)
        return mask

    def close(self) -> None:
        if self._gpio is not None and self._rows:
            self._gpio.cleanup(self._rows + self._cols)
        self._rows, self._cols = [], []


def make_backend(name: str = "auto", factory: Any = None) -> PinBackend:
    """A backend by name; ``auto`` prefers lgpio, then RPi.GPIO, then gpiozero's default factory.
    ``factory`` (a gpiozero pin factory) forces the gpiozero backend."""
    if factory is not None or name == "gpiozero":
        return GpiozeroBackend(factory)
    if name == "lgpio":
        return LgpioBackend()
    if name == "rpigpio":
        return RPiGPIOBackend()
    if name != "auto":
        raise ValueError(f"unknown GPIO backend {name!r}; expected one of {', '.join(BACKENDS)}")
    for module, cls in (("lgpio", LgpioBackend), ("RPi.GPIO", RPiGPIOBackend)):
        try:
            importlib.import_module(module)
        except ImportError:
            continue
        return cls()
    return GpiozeroBackend()


class GpioMatrix:
    """A :class:`~companion.drivers.base.BoardSource` reading a diode reed matrix on GPIO.

    ``row_pins[r]`` drives rank ``r + 1``; ``col_pins[f]`` reads file ``f`` (a = 0). ``scan(now)``
    does one raw scan when at least ``1/scan_hz`` has passed on the caller's clock, and returns the
    debounced board: a square changes only after ``debounce`` identical raw scans. Until the first
    ``debounce`` identical scans it returns None (never a half-read board).
    """

    kind = "gpio"

    def __init__(
        self,
        row_pins: list[int],
        col_pins: list[int],
        *,
        backend: PinBackend | str = "auto",
        scan_hz: float = 100.0,
        debounce: int = 2,
        factory: Any = None,
    ) -> None:
        if len(row_pins) != len(col_pins):
            raise ValueError(f"{len(row_pins)} row pins but {len(col_pins)} column pins")
        if debounce < 1:
            raise ValueError("debounce must be at least 1")
        self.size = len(row_pins)
        self.row_pins = list(row_pins)
        self.col_pins = list(col_pins)
        self.scan_hz = scan_hz
        self.debounce = debounce
        self.backend = backend if not isinstance(backend, str) else make_backend(backend, factory)
        self.backend.setup(self.row_pins, self.col_pins)
        n = self.size
        self._names = list(square_names(n))
        self._col_masks = [sum(1 << (r * n + c) for r in range(n)) for c in range(n)]
        self._row_masks = [((1 << n) - 1) << (r * n) for r in range(n)]
        self._history: deque[int] = deque(maxlen=debounce)
        self._stable: int | None = None
        self._last_t: float | None = None
        self._idle_count = [0] * n
        self.stuck: set[int] = set()
        self.raw_scans = 0
        self.calls_per_scan = 0
        self._scan_cache: Scan | None = None
        self._cache_mask: int | None = None

    # -- raw scanning ------------------------------------------------------------------------
    def read_raw(self) -> tuple[int, int]:
        """One pass over the matrix: ``(squares, idle)`` where bit ``rank * size + file`` of
        ``squares`` is a closed switch and bit ``c`` of ``idle`` a column reading low with every
        row released."""
        b = self.backend
        before = b.calls
        b.select(None)
        idle = b.read()
        n = self.size
        mask = 0
        for r in range(n):
            b.select(r)
            mask |= b.read() << (r * n)
        self.calls_per_scan = b.calls - before
        self.raw_scans += 1
        return mask, idle

    def _track_stuck(self, idle: int) -> None:
        for c in range(self.size):
            low = bool(idle >> c & 1)
            count = self._idle_count[c]
            self._idle_count[c] = min(count + 1, 1000) if low else 0
            if low and c not in self.stuck and self._idle_count[c] >= self.debounce:
                self.stuck.add(c)
                log.error("GPIO matrix: %s", self._stuck_text(c))
            elif not low and c in self.stuck:
                self.stuck.discard(c)
                log.warning("GPIO matrix: column %s recovered", file_letter(c))

    def _stuck_text(self, c: int) -> str:
        return (
            f"column {file_letter(c)} (GPIO {self.col_pins[c]}) reads closed with every row "
            "released: short to ground, or a switch shorted past its diode"
        )

    def step(self) -> None:
        """One raw scan folded into the debounced state."""
        raw, idle = self.read_raw()
        self._track_stuck(idle)
        frozen = 0
        for c in range(self.size):
            if idle >> c & 1 or c in self.stuck:
                frozen |= self._col_masks[c]
        if frozen:
            keep = self._stable if self._stable is not None else 0
            raw = (raw & ~frozen) | (keep & frozen)
        hist = self._history
        hist.append(raw)
        if len(hist) < self.debounce:
            return
        all_on = any_on = hist[0]
        for h in hist:
            all_on &= h
            any_on |= h
        if self._stable is None:
            if all_on == any_on:
                self._stable = all_on
            return
        self._stable = (self._stable & any_on) | all_on

    # -- BoardSource ---------------------------------------------------------------------------
    def scan(self, now: float) -> Scan | None:
        """Debounced reading at ``now`` (a raw scan is taken when one is due)."""
        period = 1.0 / self.scan_hz if self.scan_hz > 0 else 0.0
        last = self._last_t
        if last is None or now < last or now - last >= period * 0.9:
            self._last_t = now
            self.step()
        if self._stable is None:
            return None
        cache = self._scan_cache
        if cache is None or self._cache_mask != self._stable:
            mask = self._stable
            self._cache_mask = mask
            occupied = frozenset(self._names[i] for i in range(len(self._names)) if mask >> i & 1)
            cache = self._scan_cache = Scan(now, occupied, None)
        return Scan(now, cache.occupied, None)

    def suspect_lines(self) -> list[str]:
        """Ranks or files reading fully occupied: legal in no tafl position we know of, so worth
        a look (a row wire shorted low shows up like this)."""
        if self._stable is None:
            return []
        out = []
        for r, m in enumerate(self._row_masks):
            if self._stable & m == m:
                out.append(f"rank {r + 1} (GPIO {self.row_pins[r]}) reads fully occupied")
        for c, m in enumerate(self._col_masks):
            if c not in self.stuck and self._stable & m == m:
                name = file_letter(c)
                out.append(f"file {name} (GPIO {self.col_pins[c]}) reads fully occupied")
        return out

    def status(self) -> MatrixStatus:
        """Backend, scan cost, faults (stuck columns) and suspect lines."""
        faults = [self._stuck_text(c) for c in sorted(self.stuck)]
        n = self.size
        detail = f"{n}x{n} reed matrix on {self.backend.name}, {self.scan_hz:g} Hz"
        if faults:
            detail += "; FAULT: " + faults[0]
        elif self._stable is None:
            detail += "; settling"
        return {
            "kind": self.kind,
            "connected": self._stable is not None,
            "detail": detail,
            "backend": self.backend.name,
            "calls_per_scan": self.calls_per_scan,
            "raw_scans": self.raw_scans,
            "faults": faults,
            "suspect": self.suspect_lines(),
        }

    def close(self) -> None:
        """Release the pins."""
        self.backend.close()
