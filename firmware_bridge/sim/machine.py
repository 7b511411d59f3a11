"""Stand-in for MicroPython's ``machine`` on a computer, wired to a virtual board.

Runs under CPython and under MicroPython's unix port alike (no ``os.environ``, no ``os.path``,
no f-strings). The virtual board follows the firmware's own configuration (``load_config()`` of
the running firmware, else ``bridge_config.json``) and reads the pieces on it from
``$TAFL_FW_SIM_DIR/board.json``::

    {"closed": ["e3", "f4"], "colours": {"e3": "a"}, "stuck_cols": [2], "stuck_from_row": 5,
     "pressed": ["hint"]}

It models the electrical behaviour the firmware depends on: diode matrix (a column reads low while
a row with a closed switch on it is driven low), 74HC165 chains (/PL latches, CLK shifts, QH is
the first chip's output) and linear Hall sensors behind two levels of CD74HC4067 multiplexers.
``stuck_cols`` are columns shorted to ground; with ``stuck_from_row`` the short begins in the
middle of a scan, at the moment that row (0 = rank 1) is next driven low. ``pressed`` are the
board buttons held down (their pins, from the config's ``button_pins``, read low).
"""

# ruff: noqa: UP031 - %-formatting: this file also runs under MicroPython

import json
import os
import sys

from utime import ticks_diff, ticks_ms  # MicroPython's, or this directory's stand-in

MYPY = False  # the types are in comments: this file also runs under MicroPython
if MYPY:
    from typing import Any  # noqa: F401 - used in type comments

_SIM_DIR = os.getenv("TAFL_FW_SIM_DIR") or "."
_pins = {}  # type: dict[int, Pin]
_board = None  # type: _Board | None


def _get_board():
    # type: () -> _Board
    global _board
    if _board is None:
        _board = _Board(_config())
    return _board


def _config():
    # type: () -> dict[str, Any]
    for name in ("__main__", "firmware_bridge.main", "main"):
        mod = sys.modules.get(name)
        if mod is not None and hasattr(mod, "load_config"):
            cfg = mod.load_config()  # type: dict[str, Any]
            return cfg
    with open("bridge_config.json") as f:
        data = json.load(f)  # type: dict[str, Any]
    return data


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, id, mode=-1, pull=-1, *, value=None):
        # type: (int, int, int, int | None) -> None
        self.id = id
        self.mode = Pin.IN
        self.pull = None  # type: int | None
        self._out = 0
        _pins[id] = self
        self.init(mode, pull, value=value)

    def init(self, mode=-1, pull=-1, *, value=None):
        # type: (int, int, int | None) -> None
        if mode != -1:
            self.mode = mode
        if pull != -1:
            self.pull = pull
        if value is not None:
            self._out = 1 if value else 0

    def value(self, v=None):
        # type: (int | None) -> int | None
        if v is None:
            if self.mode == Pin.OUT:
                return self._out
            return _get_board().level(self)
        old = self._out
        self._out = 1 if v else 0
        if self.mode == Pin.OUT:
            _get_board().on_write(self, old)
        return None

    def __call__(self, v=None):
        # type: (int | None) -> int | None
        return self.value(v)

    def on(self):
        # type: () -> None
        self.value(1)

    def off(self):
        # type: () -> None
        self.value(0)

    def high(self):
        # type: () -> None
        self.value(1)

    def low(self):
        # type: () -> None
        self.value(0)

    def __repr__(self):
        # type: () -> str
        return "Pin(%r)" % (self.id,)


class ADC:
    def __init__(self, pin):
        # type: (Pin | int) -> None
        self.pin = pin.id if isinstance(pin, Pin) else pin

    def read_u16(self):
        # type: () -> int
        return _get_board().adc(self.pin)


def unique_id():
    # type: () -> bytes
    return b"\xe6\x61\x4c\x31\x1b\x7e\x6f\x35"


def freq(*args):
    # type: (*int) -> int
    return 125000000


def reset():
    # type: () -> None
    raise SystemExit("machine.reset()")


def _square_index(name, size):
    # type: (str, int) -> int
    f = ord(name[0]) - ord("a")
    r = int(name[1:]) - 1
    if not (0 <= f < size and 0 <= r < size):
        raise ValueError("square %r off the %dx%d board" % (name, size, size))
    return r * size + f


class _Board:
    def __init__(self, cfg):
        # type: (dict[str, Any]) -> None
        self.cfg = cfg
        self.size = cfg["size"]
        self.mode = cfg["mode"]
        self.closed = set()  # type: set[int]
        self.attackers = set()  # type: set[int]
        self.stuck_cols = set()  # type: set[int]
        self.pressed_pins = set()  # type: set[int]
        # (cols, row): a short that begins when that row is driven
        self.pending_stuck = None  # type: tuple[set[int], int] | None
        self.sr_bits = []  # type: list[int]
        self.row_index = {}  # type: dict[int, int]
        for i, p in enumerate(cfg.get("row_pins", [])):
            self.row_index[p] = i
        self._path = _SIM_DIR + "/board.json"
        self._text = None  # type: str | None
        self._checked = None  # type: int | None
        self._refresh(True)

    def _refresh(self, force=False):
        # type: (bool) -> None
        now = ticks_ms()
        if not force and self._checked is not None and ticks_diff(now, self._checked) < 2:
            return
        self._checked = now
        try:
            with open(self._path) as f:
                text = f.read()
        except OSError:
            return
        if text == self._text:
            return
        try:
            state = json.loads(text)
        except ValueError:
            return  # half-written: try again next time
        self._text = text
        size = self.size
        self.closed = set([_square_index(s, size) for s in state.get("closed", [])])
        colours = state.get("colours", {})
        self.attackers = set([_square_index(s, size) for s in colours if colours[s] == "a"])
        buttons = self.cfg.get("button_pins") or {}
        self.pressed_pins = set([buttons[b] for b in state.get("pressed", []) if b in buttons])
        stuck = set(state.get("stuck_cols", []))
        from_row = state.get("stuck_from_row")
        if from_row is None or stuck == self.stuck_cols:
            self.stuck_cols = stuck
            self.pending_stuck = None
        else:
            self.pending_stuck = (stuck, from_row)

    # -- matrix ---------------------------------------------------------------------------
    def _driven_rows(self):
        # type: () -> list[int]
        rows = []
        for i, p in enumerate(self.cfg["row_pins"]):
            pin = _pins.get(p)
            if pin is not None and pin.mode == Pin.OUT and pin._out == 0:
                rows.append(i)
        return rows

    def _column_low(self, col):
        # type: (int) -> bool
        if col in self.stuck_cols:
            return True
        size = self.size
        return any(r * size + col in self.closed for r in self._driven_rows())

    # -- 74HC165 chain ---------------------------------------------------------------------
    def _latch(self):
        # type: () -> None
        size = self.size
        if self.mode == "matrix165":
            bits = [0 if self._column_low(c) else 1 for c in range(size)]
        else:
            bits = [0 if i in self.closed else 1 for i in range(size * size)]
        pad = (-len(bits)) % 8
        self.sr_bits = bits + [1] * pad

    def on_write(self, pin, old):
        # type: (Pin, int) -> None
        cfg = self.cfg
        pending = self.pending_stuck
        if pending is not None and pin._out == 0 and self.row_index.get(pin.id) == pending[1]:
            self.stuck_cols = pending[0]
            self.pending_stuck = None
        if self.mode not in ("matrix165", "shift"):
            return
        self._refresh()
        if pin.id == cfg["sr_load"] and pin._out == 0:
            self._latch()
        elif pin.id == cfg["sr_clock"] and old == 0 and pin._out == 1:
            load = _pins.get(cfg["sr_load"])
            if load is not None and load._out == 1 and self.sr_bits:
                self.sr_bits.pop(0)
                self.sr_bits.append(1)  # serial input of the last chip tied high

    def level(self, pin):
        # type: (Pin) -> int
        self._refresh()
        cfg = self.cfg
        if pin.id in self.pressed_pins:
            return 0
        if self.mode == "matrix" and pin.id in cfg["col_pins"]:
            return 0 if self._column_low(cfg["col_pins"].index(pin.id)) else 1
        if self.mode in ("matrix165", "shift") and pin.id == cfg["sr_data"]:
            load = _pins.get(cfg["sr_load"])
            if load is not None and load._out == 0:
                self._latch()  # parallel-load mode is transparent
            return self.sr_bits[0] if self.sr_bits else 1
        return 1 if pin.pull == Pin.PULL_UP else 0

    # -- linear Hall through multiplexers --------------------------------------------------------
    def _select_value(self, key):
        # type: (str) -> int
        v = 0
        for k, p in enumerate(self.cfg[key]):
            pin = _pins.get(p)
            if pin is not None and pin._out:
                v |= 1 << k
        return v

    def adc(self, pin_id):
        # type: (int) -> int
        self._refresh()
        cfg = self.cfg
        ch = self._select_value("mux_select")
        m = cfg["adc_pins"].index(pin_id) * 16 + self._select_value("mux2_select")
        i = int(m * 16 + ch)
        mid = cfg["hall_mid"]
        sign = 1 if cfg["attacker_sign"] >= 0 else -1
        if i >= self.size * self.size or i not in self.closed:
            return int(mid) + ((i * 37) % 400) - 200  # sensor noise around the midpoint
        swing = 9000 if i in self.attackers else -9000
        return max(0, min(65535, int(mid) + swing * sign))
