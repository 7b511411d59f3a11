"""Tafl board bridge firmware for a Raspberry Pi Pico (MicroPython): its main loop.

Copy ``protocol.py``, ``buttons.py``, ``config.py``, ``console.py``, ``sensors.py``, ``leds.py``
and ``main.py`` (and optionally ``bridge_config.json``) to the Pico. It scans the board's sensors,
debounces them, and reports full snapshots to the host over USB serial (stdin/stdout) with the
line protocol in ``protocol.py``; it drives the WS2812 LEDs with the frames the host sends. See
``firmware_bridge/README.md`` for wiring and configuration.

Sensor modes (``"mode"`` in the config, read by ``sensors.py``):
    ``matrix``     reed switches + diodes in a row/column matrix on GPIO (up to 11x11)
    ``matrix165``  rows on GPIO, columns read through a 74HC165 chain (13x13, 19x19)
    ``shift``      one 74HC165 input per square (digital Hall sensors, any size)
    ``hall``       linear Hall sensors through CD74HC4067 multiplexers into the ADC (polarity)

The same files run under CPython with the shims in ``firmware_bridge/sim`` (tests, development).
"""

# ruff: noqa: UP031 - %-formatting on purpose: it is the one string formatting every MicroPython
# build has, and the cheapest on the Pico.

try:
    import utime as time
except ImportError:  # pragma: no cover - CPython without the shim on the path
    import time

try:
    from firmware_bridge import buttons as B
    from firmware_bridge import protocol as P
    from firmware_bridge.config import ConfigError, check_config, load_config
    from firmware_bridge.console import REPL_REQUEST, Console
    from firmware_bridge.leds import Leds
    from firmware_bridge.sensors import ATTACKER, EMPTY, Debouncer, scanner_for
except ImportError:  # on the Pico, where the files are top-level modules
    import buttons as B  # type: ignore[no-redef]
    import protocol as P  # type: ignore[no-redef]
    from config import ConfigError, check_config, load_config  # type: ignore[no-redef]
    from console import REPL_REQUEST, Console  # type: ignore[no-redef]
    from leds import Leds  # type: ignore[no-redef]
    from sensors import ATTACKER, EMPTY, Debouncer, scanner_for  # type: ignore[no-redef]

MYPY = False  # the types are in comments: MicroPython has no typing module
if MYPY:
    from typing import Any  # noqa: F401 - used in type comments

FW_VERSION = "1.2"
SYNC_MIN_MS = 50  # a SYNC is answered with a SNAP at most this often


class Bridge:
    """The firmware's main loop: scan, debounce, report, obey LED frames."""

    def __init__(self, cfg, console=None, clock=None):
        # type: (dict[str, Any], Any, Any) -> None
        """``clock``: what the loop reads and sleeps by, ``ticks_ms()`` and ``sleep_ms(ms)``
        (default the ``utime`` module; a check steps a clock of its own)."""
        self.cfg = cfg
        self.clock = clock or time
        self.size = cfg["size"]
        self.n = self.size * self.size
        self.console = console or Console()
        self.scanner = scanner_for(cfg)
        self.polarity = cfg["mode"] == "hall"
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
        now = self.clock.ticks_ms()
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
        self.t_snap = self.clock.ticks_ms()

    def heartbeat(self):
        # type: () -> None
        stuck = self.scanner.stuck
        faults = ",".join(["col%d" % c for c in stuck]) if stuck else "-"
        self.send(
            P.HB,
            P.encode_kv(
                [
                    ("up", self.clock.ticks_ms()),
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
        self.t_host = self.clock.ticks_ms()
        if kind == P.HOST:
            self.hello(nonce)
        elif kind == P.SYNC:
            now = self.clock.ticks_ms()
            if time.ticks_diff(now, self.t_sync) >= SYNC_MIN_MS:
                self.t_sync = now
                self.snapshot()

    def step(self):
        # type: () -> None
        """One pass of the main loop."""
        now = self.clock.ticks_ms()
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
        quiet = time.ticks_diff(self.clock.ticks_ms(), self.t_host)
        if self.leds.lit and quiet > cfg["host_timeout_ms"]:
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
            self.clock.sleep_ms(self.cfg["scan_ms"])
        for i in range(self.n):
            self.deb.stable[i] = self.raw[i]
        self.buttons.prime(self.clock.ticks_ms())
        self.primed = True

    def run(self):
        # type: () -> None
        """Serve until a tool asks for the REPL (``\r`` then Ctrl-C, as mpremote sends)."""
        self.prime()
        self.hello()
        while not self.stopped:
            self.step()
            self.clock.sleep_ms(1)
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
