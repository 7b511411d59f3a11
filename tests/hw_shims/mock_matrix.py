"""A reed-switch diode matrix simulated on gpiozero MockFactory pins (tests and bench).

Column pins are a MockPin subclass whose level is set when read, through MockPin's public
``drive_low``/``drive_high``: a column with its pull-up reads low when a row pin that is an output
driven low has a closed switch on that column, or when the column is shorted to ground. Fake
``lgpio`` and ``RPi.GPIO`` modules act on the same pins, so every backend of
``companion.drivers.matrix`` can be exercised without a Pi.
"""

from __future__ import annotations

from gpiozero.pins.mock import MockFactory, MockPin

from companion.squares import parse_coords

ROWS_11 = [2, 3, 4, 17, 27, 22, 5, 6, 13, 19, 26]
COLS_11 = [14, 15, 18, 23, 24, 25, 12, 16, 20, 21, 7]


class _ColumnPin(MockPin):
    """A column input whose level follows the simulated matrix: each read drives it high or low
    first (MockPin's public ``drive_high``/``drive_low``), as the switches and diodes would."""

    matrix: MatrixSim | None = None

    @property  # type: ignore[override]
    def state(self) -> bool:
        sim = self.matrix
        if sim is not None and self.function == "input":
            if sim.column_low(self):
                self.drive_low()
            else:
                self.drive_high()
            if len(self.states) > 1000:  # the pin's change history: keep a long scan bounded
                self.clear_states()
        return MockPin.state.fget(self)

    @state.setter
    def state(self, value: bool) -> None:
        MockPin.state.fset(self, value)


class MatrixSim:
    """Closed switches (``close``/``open_`` by square name) and shorts on a MockFactory."""

    def __init__(
        self, row_pins: list[int], col_pins: list[int], factory: MockFactory | None = None
    ) -> None:
        self.factory = factory or MockFactory()
        self.size = len(row_pins)
        self.row_pins = list(row_pins)
        self.col_pins = list(col_pins)
        self.rows = [self.factory.pin(n) for n in row_pins]
        self.cols = [self.factory.pin(n, pin_class=_ColumnPin) for n in col_pins]
        for p in self.cols:
            p.matrix = self
        self._col_index = {id(p): j for j, p in enumerate(self.cols)}
        self.closed: set[tuple[int, int]] = set()  # (row, col)
        self.shorted_cols: set[int] = set()
        self.shorted_rows: set[int] = set()

    def set_occupied(self, squares) -> None:
        """Exactly these squares have a piece (closed switch)."""
        self.closed = set()
        for s in squares:
            self.close(s)

    def close(self, square: str) -> None:
        f, r = parse_coords(square, self.size)
        self.closed.add((r, f))

    def open_(self, square: str) -> None:
        f, r = parse_coords(square, self.size)
        self.closed.discard((r, f))

    def row_low(self, r: int) -> bool:
        if r in self.shorted_rows:
            return True
        p = self.rows[r]
        return p.function == "output" and not p.state

    def column_low(self, pin) -> bool:
        j = self._col_index[id(pin)]
        if j in self.shorted_cols:
            return True
        if pin.pull != "up":
            return False
        return any(self.row_low(r) for r in range(self.size) if (r, j) in self.closed)


class FakeLgpio:
    """The slice of the ``lgpio`` module the matrix backend uses, acting on MockFactory pins."""

    SET_PULL_UP = 32
    SET_PULL_NONE = 128

    class error(Exception):  # noqa: N801 - lgpio's name
        pass

    def __init__(self, factory: MockFactory, label: str = "pinctrl-bcm2711") -> None:
        self.factory = factory
        self.label = label
        self.groups: dict[int, list[int]] = {}
        self._pins: dict[int, MockPin] = {}
        self.opened: list[int] = []
        self.closed_handles: list[int] = []

    def _pin(self, g: int) -> MockPin:
        pin = self._pins.get(g)
        if pin is None:
            pin = self._pins[g] = self.factory.pin(g)
        return pin

    def gpiochip_open(self, chip: int) -> int:
        self.opened.append(chip)
        return 100 + chip

    def gpiochip_close(self, handle: int) -> int:
        self.closed_handles.append(handle)
        return 0

    def gpio_get_chip_info(self, handle: int):
        return (0, 54, f"gpiochip{handle - 100}", self.label)

    def group_claim_output(self, handle, gpios, levels=(0,), lFlags=0):  # noqa: N803
        self.groups[gpios[0]] = list(gpios)
        for g, v in zip(gpios, list(levels) + [levels[-1]] * len(gpios)):
            p = self._pin(g)
            p.function = "output"
            p.state = bool(v)
        return 0

    def group_claim_input(self, handle, gpios, lFlags=0):  # noqa: N803
        self.groups[gpios[0]] = list(gpios)
        for g in gpios:
            p = self._pin(g)
            p.function = "input"
            p.pull = "up" if lFlags & self.SET_PULL_UP else "floating"
        return 0

    def group_write(self, handle, gpio, group_bits, group_mask=-1):
        for k, g in enumerate(self.groups[gpio]):
            if group_mask >> k & 1:
                self._pin(g).state = bool(group_bits >> k & 1)
        return 0

    def group_read(self, handle, gpio):
        bits = 0
        for k, g in enumerate(self.groups[gpio]):
            if self._pin(g).state:
                bits |= 1 << k
        return (0, bits)

    def group_free(self, handle, gpio):
        for g in self.groups.pop(gpio, []):
            self._pin(g).function = "input"
        return 0


class FakeRPiGPIO:
    """The slice of ``RPi.GPIO`` the matrix backend uses, acting on MockFactory pins."""

    BCM = 11
    OUT = 0
    IN = 1
    HIGH = 1
    LOW = 0
    PUD_UP = 22

    def __init__(self, factory: MockFactory) -> None:
        self.factory = factory
        self.mode = None
        self.cleaned: list[int] = []
        self._pins: dict[int, MockPin] = {}

    def _pin(self, c: int) -> MockPin:
        pin = self._pins.get(c)
        if pin is None:
            pin = self._pins[c] = self.factory.pin(c)
        return pin

    def setwarnings(self, flag):
        pass

    def setmode(self, mode):
        self.mode = mode

    def setup(self, chans, direction, initial=None, pull_up_down=None):
        assert self.mode == self.BCM
        for c in chans if isinstance(chans, list) else [chans]:
            p = self._pin(c)
            if direction == self.OUT:
                p.function = "output"
                p.state = bool(initial)
            else:
                p.function = "input"
                p.pull = "up" if pull_up_down == self.PUD_UP else "floating"

    def output(self, chans, vals):
        for c, v in zip(chans, vals):
            self._pin(c).state = bool(v)

    def input(self, chan):
        return int(self._pin(chan).state)

    def cleanup(self, chans=None):
        self.cleaned.extend(chans or [])
