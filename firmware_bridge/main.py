"""Tafl board bridge firmware for a Raspberry Pi Pico (MicroPython).

Copy ``main.py`` and ``protocol.py`` (and optionally ``bridge_config.json``) to the Pico. It scans
the board's sensors, debounces them, and reports full snapshots to the host over USB serial
(stdin/stdout) with the line protocol in ``protocol.py``; it drives the WS2812 LEDs with the frames
the host sends. See ``firmware_bridge/README.md`` for wiring and configuration.

Sensor modes (``"mode"`` in the config):
    ``matrix``     reed switches + diodes in a row/column matrix on GPIO (up to 11x11)
    ``matrix165``  rows on GPIO, columns read through a 74HC165 chain (13x13, 19x19)
    ``shift``      one 74HC165 input per square (digital Hall sensors, any size)
    ``hall``       linear Hall sensors through CD74HC4067 multiplexers into the ADC (polarity)

The same file runs under CPython with the shims in ``firmware_bridge/sim`` (tests, development).
"""

# ruff: noqa: UP031 - %-formatting on purpose: it is the one string formatting every MicroPython
# build has, and the cheapest on the Pico.

import sys

try:
    import utime as time
except ImportError:  # pragma: no cover - CPython without the shim on the path
    import time

import machine
import neopixel

try:
    from firmware_bridge import buttons as B
    from firmware_bridge import protocol as P
except ImportError:
    import buttons as B  # type: ignore[no-redef]
    import protocol as P  # type: ignore[no-redef]

MYPY = False  # the types are in comments: MicroPython has no typing module
if MYPY:
    from typing import Any  # noqa: F401 - used in type comments

FW_VERSION = "1.2"
CONFIG_FILE = "bridge_config.json"

DEFAULT_CONFIG = {
    "size": 11,
    "mode": "matrix",
    # matrix modes: row_pins[0] is rank 1; matrix: col_pins[0] is file a
    "row_pins": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    "col_pins": [11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21],
    # 74HC165 chain (matrix165, shift): /PL, CLK, QH of the chip nearest the Pico
    "sr_load": 26,
    "sr_clock": 27,
    "sr_data": 28,
    # hall: first-level mux selects S0..S3, second-level selects, ADC inputs
    "mux_select": [2, 3, 4, 5],
    "mux2_select": [6, 7, 8, 9],
    "adc_pins": [26, 27, 28],
    "hall_mid": 32768,
    "hall_on": 3000,
    "hall_off": 1800,
    # +1 when an attacker raises the sensor output, -1 when it lowers it. SS49E-type sensors,
    # branded face up, go down under a north pole; attackers have their south pole up.
    "attacker_sign": -1,
    # LEDs
    "led_pin": 22,
    "led_count": 0,  # 0: size * size
    "led_max_ma": 2500,
    # timing
    "scan_ms": 10,
    "debounce": 2,
    "snapshot_ms": 1000,
    "heartbeat_ms": 500,
    "host_timeout_ms": 5000,
    # board buttons (firmware_bridge/buttons.py): {"clock": 26, "hint": 27, ...}, GPIO to ground
    "button_pins": {},
    "long_ms": 1000,
    "stuck_ms": 10000,
}

# mpremote and pyboard.py interrupt a running program with "\r" + Ctrl-C. The host driver never
# sends either byte, so this pair hands the serial line back to the REPL; a lone 0x03 does not.
REPL_REQUEST = b"\r\x03"

EMPTY = 0
DEFENDER = 1
ATTACKER = 2


MODES = ("matrix", "matrix165", "shift", "hall")
SYNC_MIN_MS = 50  # a SYNC is answered with a SNAP at most this often


class ConfigError(ValueError):
    """A configuration the firmware cannot run; reported to the host in ERR lines."""


def load_config(path=CONFIG_FILE):
    # type: (str) -> dict[str, Any]
    """DEFAULT_CONFIG updated with the JSON file ``path`` when it exists; ConfigError when the
    file is not a JSON object."""
    import json

    cfg = dict(DEFAULT_CONFIG)
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        text = None
    if text is not None:
        try:
            data = json.loads(text)
        except ValueError:
            raise ConfigError(path + " is not valid JSON") from None
        if not isinstance(data, dict):
            raise ConfigError(path + " must hold a JSON object")
        cfg.update(data)
    if not cfg["led_count"] and isinstance(cfg["size"], int):
        cfg["led_count"] = cfg["size"] * cfg["size"]
    return cfg


def _pin_list(cfg, key, need):
    # type: (dict[str, Any], str, int) -> list[int]
    pins = cfg[key]
    if not isinstance(pins, list) or not all(isinstance(p, int) for p in pins):
        raise ConfigError("%s must be a list of GPIO numbers" % key)
    if len(pins) < need:
        raise ConfigError(
            "%s lists %d pins; mode %s on the %dx%d board needs %d"
            % (key, len(pins), cfg["mode"], cfg["size"], cfg["size"], need)
        )
    return pins


def check_config(cfg):
    # type: (dict[str, Any]) -> None
    """Raise ConfigError naming the first thing in ``cfg`` the firmware cannot run with."""
    size = cfg["size"]
    if not isinstance(size, int) or not 3 <= size <= 19:
        raise ConfigError("size must be a whole number from 3 to 19, not %r" % (size,))
    mode = cfg["mode"]
    if mode not in MODES:
        raise ConfigError("mode must be one of %s, not %r" % (", ".join(MODES), mode))
    for key in ("scan_ms", "debounce", "snapshot_ms", "heartbeat_ms", "host_timeout_ms"):
        if not isinstance(cfg[key], int) or cfg[key] < 0:
            raise ConfigError("%s must be a whole number >= 0" % key)
    if not isinstance(cfg["led_count"], int) or cfg["led_count"] < 0:
        raise ConfigError("led_count must be a whole number >= 0")
    used = []
    if mode in ("matrix", "matrix165"):
        used += _pin_list(cfg, "row_pins", size)[:size]
    if mode == "matrix":
        used += _pin_list(cfg, "col_pins", size)[:size]
    if mode == "hall":
        nmux = (size * size + 15) // 16
        used += _pin_list(cfg, "mux_select", 4)[:4] + _pin_list(cfg, "mux2_select", 4)[:4]
        used += _pin_list(cfg, "adc_pins", (nmux + 15) // 16)[: (nmux + 15) // 16]
    if mode in ("matrix165", "shift"):
        used += [cfg["sr_load"], cfg["sr_clock"], cfg["sr_data"]]
    used.append(cfg["led_pin"])
    try:
        used += [pin for _, pin in B.check_buttons(cfg)]
    except ValueError as e:
        raise ConfigError(str(e)) from None
    for i in range(len(used)):
        if used[i] in used[i + 1 :]:
            raise ConfigError("GPIO %r is given two jobs" % (used[i],))


class Console:
    """Non-blocking byte I/O on stdin/stdout (USB CDC on the Pico, a pty under CPython)."""

    def __init__(self):
        # type: () -> None
        self.cpython = sys.implementation.name != "micropython"
        if self.cpython:
            import os
            import select

            self._os = os
            self._select = select
            self._fd_in = sys.stdin.fileno()
            self._fd_out = sys.stdout.fileno()
        else:
            import select

            self._kbd_intr(-1)  # a stray 0x03 byte is data, not Ctrl-C; see REPL_REQUEST
            self._poll = select.poll()
            self._poll.register(sys.stdin, select.POLLIN)
            self._in = getattr(sys.stdin, "buffer", sys.stdin)
            self._out = getattr(sys.stdout, "buffer", sys.stdout)  # type: Any

    def _kbd_intr(self, code):
        # type: (int) -> None
        try:
            import micropython

            micropython.kbd_intr(code)
        except ImportError:
            pass

    def release(self):
        # type: () -> None
        """Give stdin back to the REPL (Ctrl-C works again)."""
        if not self.cpython:
            self._kbd_intr(3)

    def read(self):
        # type: () -> bytes
        """Whatever bytes are waiting (possibly none)."""
        if self.cpython:
            try:
                ready = self._select.select([self._fd_in], [], [], 0)[0]
                if ready:
                    return self._os.read(self._fd_in, 1024)
            except OSError:  # no host on the other end of the pty
                pass
            return b""
        out = bytearray()
        while len(out) < 512 and self._poll.poll(0):
            b = self._in.read(1)
            if not b:
                break
            out.extend(b if isinstance(b, bytes) else b.encode())
        return bytes(out)

    def write(self, data):
        # type: (bytes) -> None
        """Send bytes (a complete line)."""
        if self.cpython:
            view = memoryview(data)
            while view:
                try:
                    n = self._os.write(self._fd_out, view)
                except BlockingIOError:
                    time.sleep_ms(1)
                    continue
                except OSError:
                    return
                view = view[n:]
            return
        self._out.write(data)


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


class Leds:
    """WS2812 strip; frames come from the host, capped to ``led_max_ma`` as a last safety net."""

    def __init__(self, cfg):
        # type: (dict[str, Any]) -> None
        self.count = cfg["led_count"]
        self.max_ma = cfg["led_max_ma"]
        self.np = neopixel.NeoPixel(machine.Pin(cfg["led_pin"]), self.count)
        self.lit = False
        self.blank()

    def blank(self):
        # type: () -> None
        self.np.fill((0, 0, 0))
        self.np.write()
        self.lit = False

    def show(self, pixels):
        # type: (list[tuple[int, int, int, int]]) -> None
        total = 0
        for p in pixels:
            total += p[1] + p[2] + p[3]
        ma = total * 20 // 255 + self.count  # 20 mA per channel at full, ~1 mA idle per LED
        num, den = 1, 1
        if ma > self.max_ma and total:
            num, den = max(0, self.max_ma - self.count) * 255, total * 20
        self.np.fill((0, 0, 0))
        for idx, r, g, b in pixels:
            self.np[idx] = (r * num // den, g * num // den, b * num // den)
        self.np.write()
        self.lit = bool(pixels)


class Bridge:
    """The firmware's main loop: scan, debounce, report, obey LED frames."""

    def __init__(self, cfg, console=None):
        # type: (dict[str, Any], Any) -> None
        self.cfg = cfg
        self.size = cfg["size"]
        self.n = self.size * self.size
        self.console = console or Console()
        mode = cfg["mode"]
        if mode in ("matrix", "matrix165"):
            self.scanner = MatrixScanner(cfg)  # type: MatrixScanner | ShiftScanner | HallScanner
        elif mode == "shift":
            self.scanner = ShiftScanner(cfg)
        elif mode == "hall":
            self.scanner = HallScanner(cfg)
        else:
            raise ValueError("unknown mode " + str(mode))
        self.polarity = mode == "hall"
        self.leds = Leds(cfg)
        self.buttons = B.Buttons(cfg)
        self.deb = Debouncer(self.n, cfg["debounce"])
        self.raw = bytearray(self.n)
        self.rx = P.LineBuffer()
        self.seq = 0  # from boot on, never restarted: the host drops lines that are not ahead
        self.host_seq = None  # type: int | None
        # the last host line taken; HOST starts it afresh
        self.scans = 0
        self.bad = 0
        self.stuck_reported = []  # type: list[int]
        self.primed = False
        self.stopped = False
        self.tail = b""
        self.boot = "%04x" % boot_id()
        now = time.ticks_ms()
        self.t_scan = now
        self.t_snap = now
        self.t_hb = now
        self.t_host = now
        self.t_sync = time.ticks_add(now, -SYNC_MIN_MS)

    def send(self, kind, payload=""):
        # type: (str, str) -> None
        self.console.write(P.device_line(self.seq, kind, payload, self.boot))
        self.seq = P.next_seq(self.seq)

    def hello(self, nonce=""):
        # type: (str) -> None
        """HELLO (echoing the nonce of the HOST it answers) and a snapshot."""
        fields = [
            ("fw", FW_VERSION),
            ("proto", P.PROTO_VERSION),
            ("size", self.size),
            ("sensors", "polarity" if self.polarity else "switch"),
            ("leds", self.leds.count),
            ("boot", self.boot),
        ]
        if nonce:
            fields.append(("nonce", nonce))
        self.send(P.HELLO, P.encode_kv(fields))
        self.snapshot()

    def snapshot(self):
        # type: () -> None
        if not self.primed:
            return
        stable = self.deb.stable
        occ = P.encode_bitmap([s != EMPTY for s in stable])
        if self.polarity:
            occ = occ + " " + P.encode_bitmap([s == ATTACKER for s in stable])
        self.send(P.SNAP, occ)
        self.t_snap = time.ticks_ms()

    def heartbeat(self):
        # type: () -> None
        stuck = self.scanner.stuck
        faults = ",".join(["col%d" % c for c in stuck]) if stuck else "-"
        self.send(
            P.HB,
            P.encode_kv(
                [
                    ("up", time.ticks_ms()),
                    ("scans", self.scans),
                    ("bad", self.bad),
                    ("faults", faults),
                ]
            ),
        )

    def handle(self, line):
        # type: (bytes) -> None
        try:
            seq, kind, args = P.decode_line(line, P.HOST_TYPES)
            last = self.host_seq
            if kind != P.HOST and last is not None:
                if not P.seq_ahead(last, seq):
                    raise P.ProtocolError("stale seq")
                if P.seq_jump(last, seq):
                    raise P.ProtocolError("seq jump")
            nonce = ""
            if kind == P.HOST:
                nonce = P.decode_kv(args).get("nonce", "")
                if nonce and not P.valid_nonce(nonce):
                    raise P.ProtocolError("bad payload", "nonce")
            self.host_seq = seq
            if kind == P.LED:
                pixels = P.decode_leds(args, self.leds.count)
                self.leds.show(pixels)
                self.send(P.ACK, "%d" % seq)
        except P.ProtocolError as e:
            self.bad += 1
            self.send(P.ERR, "badline " + e.reason.replace(" ", "_"))
            return
        self.t_host = time.ticks_ms()
        if kind == P.HOST:
            self.hello(nonce)
        elif kind == P.SYNC:
            now = time.ticks_ms()
            if time.ticks_diff(now, self.t_sync) >= SYNC_MIN_MS:
                self.t_sync = now
                self.snapshot()

    def step(self):
        # type: () -> None
        """One pass of the main loop."""
        now = time.ticks_ms()
        cfg = self.cfg
        if time.ticks_diff(now, self.t_scan) >= cfg["scan_ms"]:
            self.t_scan = now
            self.scanner.scan(self.raw, self.deb.stable)
            self.scans += 1
            changed = self.deb.update(self.raw)
            if self.scanner.stuck != self.stuck_reported:
                self.stuck_reported = list(self.scanner.stuck)
                if self.stuck_reported:
                    files = ",".join([chr(97 + c) for c in self.stuck_reported])
                    text = "stuck files " + files + " read closed with every row released"
                    self.send(P.ERR, text)
            if changed:
                self.snapshot()
            for name, event in self.buttons.scan(now):
                self.send(P.BTN, name + " " + event)
        if time.ticks_diff(now, self.t_snap) >= cfg["snapshot_ms"]:
            self.snapshot()
        if time.ticks_diff(now, self.t_hb) >= cfg["heartbeat_ms"]:
            self.t_hb = now
            self.heartbeat()
        data = self.console.read()
        if data:
            if REPL_REQUEST in self.tail + data:
                self.stopped = True
                return
            self.tail = data[-1:]
            for line in self.rx.feed(data):
                self.handle(line)
        if self.leds.lit and time.ticks_diff(time.ticks_ms(), self.t_host) > cfg["host_timeout_ms"]:
            self.leds.blank()

    def prime(self):
        # type: () -> None
        """Scan until ``debounce`` identical readings in a row, and take that as the stable state:
        no snapshot is ever sent before the board has really been read."""
        same = 0
        last = None
        while same < self.deb.need:
            self.scanner.scan(self.raw, self.deb.stable)
            self.scans += 1
            if last is not None and self.raw == last:
                same += 1
            else:
                same = 1
                last = bytearray(self.raw)
            time.sleep_ms(self.cfg["scan_ms"])
        for i in range(self.n):
            self.deb.stable[i] = self.raw[i]
        self.buttons.prime(time.ticks_ms())
        self.primed = True

    def run(self):
        # type: () -> None
        """Serve until a tool asks for the REPL (``\r`` then Ctrl-C, as mpremote sends)."""
        self.prime()
        self.hello()
        while not self.stopped:
            self.step()
            time.sleep_ms(1)
        self.leds.blank()
        self.console.release()


class Fault:
    """What runs instead of the bridge when the configuration cannot work: an ERR line naming
    the problem every second and after every HOST, and the REPL hand-over, nothing else."""

    def __init__(self, message, console=None):
        # type: (str, Any) -> None
        self.message = message
        self.console = console or Console()
        self.rx = P.LineBuffer()
        self.boot = "%04x" % boot_id()
        self.seq = 0
        self.stopped = False
        self.tail = b""

    def report(self):
        # type: () -> None
        self.console.write(P.device_line(self.seq, P.ERR, "config " + self.message, self.boot))
        self.seq = P.next_seq(self.seq)

    def run(self, period_ms=1000):
        # type: (int) -> None
        last = None
        while not self.stopped:
            now = time.ticks_ms()
            data = self.console.read()
            if data:
                if REPL_REQUEST in self.tail + data:
                    break
                self.tail = data[-1:]
                for line in self.rx.feed(data):
                    try:
                        if P.decode_line(line, P.HOST_TYPES)[1] == P.HOST:
                            last = None
                    except P.ProtocolError:
                        pass
            if last is None or time.ticks_diff(now, last) >= period_ms:
                last = now
                self.report()
            time.sleep_ms(5)
        self.console.release()


def boot_id():
    # type: () -> int
    """16 random bits naming this boot (the hardware RNG where there is one)."""
    try:
        import os

        b = os.urandom(2)
        return b[0] << 8 | b[1]
    except (ImportError, AttributeError, OSError):
        pass
    try:
        import random

        return random.getrandbits(16)
    except (ImportError, AttributeError):
        return int(time.ticks_ms()) & 0xFFFF


def main(cfg=None):
    # type: (dict[str, Any] | None) -> None
    """Start the bridge with ``cfg`` (default: load_config()); a configuration it cannot run is
    reported in ERR lines instead (no crash, so the host can say what is wrong)."""
    try:
        if cfg is None:
            cfg = load_config()
        check_config(cfg)
    except ConfigError as e:
        Fault(str(e)).run()
        return
    Bridge(cfg).run()


if __name__ == "__main__":
    main()
