"""The board's sensors as the firmware reads them: one raw reading per scan from a reed matrix
(GPIO or a 74HC165 chain), one 74HC165 input per square, or linear Hall sensors behind
multiplexers, and the debouncer that makes readings stable.

A reading is a ``bytearray`` of square states (``EMPTY``, ``DEFENDER``, ``ATTACKER``; square
i = rank * size + file). Runs unchanged under MicroPython and CPython.
"""

import machine

MYPY = False  # the types are in comments: MicroPython has no typing module
if MYPY:
    from typing import Any  # noqa: F401 - used in type comments

EMPTY = 0
DEFENDER = 1
ATTACKER = 2


def scanner_for(cfg):
    # type: (dict[str, Any]) -> MatrixScanner | ShiftScanner | HallScanner
    """The scanner for ``cfg["mode"]``; ValueError for a mode the firmware does not know."""
    mode = cfg["mode"]
    if mode in ("matrix", "matrix165"):
        return MatrixScanner(cfg)
    if mode == "shift":
        return ShiftScanner(cfg)
    if mode == "hall":
        return HallScanner(cfg)
    raise ValueError("unknown mode " + str(mode))


class Debouncer:
    """Per-square state that changes only after ``need`` identical consecutive raw readings."""

    def __init__(self, n, need):
        # type: (int, int) -> None
        self.need = need if need > 0 else 1
        self.stable = bytearray(n)
        self.cand = bytearray(n)
        self.count = bytearray(n)

    def update(self, raw):
        # type: (bytearray) -> bool
        """Feed one raw scan (bytearray of states); True when the stable state changed."""
        changed = False
        stable, cand, count, need = self.stable, self.cand, self.count, self.need
        for i in range(len(raw)):
            r = raw[i]
            if r == stable[i]:
                count[i] = 0
                continue
            if r == cand[i] and count[i]:
                count[i] += 1
            else:
                cand[i] = r
                count[i] = 1
            if count[i] >= need:
                stable[i] = r
                count[i] = 0
                changed = True
        return changed


class MatrixScanner:
    """Reed switches with diodes; rows driven low one at a time, columns pulled up (GPIO or a
    74HC165 chain)."""

    def __init__(self, cfg):
        # type: (dict[str, Any]) -> None
        self.size = cfg["size"]
        self.rows = [machine.Pin(p, machine.Pin.OUT, value=1) for p in cfg["row_pins"]]
        self.chain = None
        self.cols = []
        if cfg["mode"] == "matrix165":
            self.chain = ShiftChain(cfg, self.size)
        else:
            pull_up = machine.Pin.PULL_UP
            self.cols = [machine.Pin(p, machine.Pin.IN, pull_up) for p in cfg["col_pins"]]
        self.stuck = []  # type: list[int]

    def _read_cols(self):
        # type: () -> list[int]
        if self.chain is not None:
            return self.chain.read()
        return [0 if c.value() else 1 for c in self.cols]

    def scan(self, out, stable):
        # type: (bytearray, bytearray) -> None
        """Fill ``out`` with one raw reading. The squares of a stuck column read as they are in
        ``stable`` (the debounced board): frozen, as the host-side GPIO matrix does. A column
        that shorts in the middle of a scan may already have put pieces into the rows after the
        short in this reading; the next reading freezes it to ``stable``, so those phantoms never
        last the ``debounce`` readings that would make them real."""
        size = self.size
        # every row released: a column reading closed now is shorted to ground (stuck)
        idle = self._read_cols()
        self.stuck = [c for c in range(size) if idle[c]]
        for r in range(size):
            row = self.rows[r]
            row.value(0)
            closed = self._read_cols()
            row.value(1)
            base = r * size
            for c in range(size):
                if idle[c]:
                    out[base + c] = stable[base + c]
                else:
                    out[base + c] = DEFENDER if closed[c] else EMPTY


class ShiftChain:
    """74HC165 chain: /PL low latches the inputs, each CLK shifts the next bit to QH. Inputs are
    pulled up; a closed switch (or an active-low Hall output) reads 0. Returns 1 per closed input,
    the first bit clocked out first."""

    def __init__(self, cfg, nbits):
        # type: (dict[str, Any], int) -> None
        self.nbits = nbits
        self.load = machine.Pin(cfg["sr_load"], machine.Pin.OUT, value=1)
        self.clock = machine.Pin(cfg["sr_clock"], machine.Pin.OUT, value=0)
        self.data = machine.Pin(cfg["sr_data"], machine.Pin.IN)

    def read(self):
        # type: () -> list[int]
        self.load.value(0)
        self.load.value(1)
        bits = []
        data, clock = self.data, self.clock
        for _ in range(self.nbits):
            bits.append(0 if data.value() else 1)
            clock.value(1)
            clock.value(0)
        return bits


class ShiftScanner:
    """One 74HC165 input per square, square i = rank * size + file clocked out i-th."""

    def __init__(self, cfg):
        # type: (dict[str, Any]) -> None
        self.chain = ShiftChain(cfg, cfg["size"] * cfg["size"])
        self.stuck = []  # type: list[int]

    def scan(self, out, stable):
        # type: (bytearray, bytearray) -> None
        bits = self.chain.read()
        for i in range(len(out)):
            out[i] = DEFENDER if bits[i] else EMPTY


class HallScanner:
    """Linear Hall sensors: square i is channel i % 16 of first-level mux i // 16; first-level
    mux m is channel m % 16 of second-level mux m // 16, which feeds ADC input m // 16."""

    def __init__(self, cfg):
        # type: (dict[str, Any]) -> None
        n = cfg["size"] * cfg["size"]
        self.n = n
        self.sel = [machine.Pin(p, machine.Pin.OUT, value=0) for p in cfg["mux_select"]]
        self.sel2 = [machine.Pin(p, machine.Pin.OUT, value=0) for p in cfg["mux2_select"]]
        nmux = (n + 15) // 16
        self.adcs = [machine.ADC(machine.Pin(p)) for p in cfg["adc_pins"][: (nmux + 15) // 16]]
        self.mid = cfg["hall_mid"]
        self.on = cfg["hall_on"]
        self.off = cfg["hall_off"]
        self.sign = 1 if cfg["attacker_sign"] >= 0 else -1
        self.raw_state = bytearray(n)
        self.stuck = []  # type: list[int]

    @staticmethod
    def _select(pins, value):
        # type: (list[Any], int) -> None
        for k in range(4):
            pins[k].value((value >> k) & 1)

    def scan(self, out, stable):
        # type: (bytearray, bytearray) -> None
        n = self.n
        state = self.raw_state
        for ch in range(16):
            self._select(self.sel, ch)
            m = 0
            while m * 16 + ch < n:
                self._select(self.sel2, m % 16)
                i = m * 16 + ch
                d = (self.adcs[m // 16].read_u16() - self.mid) * self.sign
                mag = d if d >= 0 else -d
                if mag >= self.on:
                    state[i] = ATTACKER if d > 0 else DEFENDER
                elif mag <= self.off:
                    state[i] = EMPTY
                m += 1
        for i in range(n):
            out[i] = state[i]
