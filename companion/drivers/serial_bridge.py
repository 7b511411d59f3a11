"""Host side of the Pico serial bridge: a :class:`BoardSource` fed by USB serial.

A background thread owns the port: it finds the Pico (``/dev/serial/by-id`` or the Raspberry Pi
USB vendor id 2e8a), opens it, reconnects with exponential backoff, checks every line (CRC,
sequence, type, payload) and keeps the latest valid snapshot. ``scan(now)`` only ever returns a
snapshot that arrived whole and valid from a Pico that said hello for the configured board size;
while the link is down or silent it returns None. LED frames given to :meth:`set_pixels` are sent
from the same thread, re-sent after every HELLO (the Pico rebooted) and until acknowledged.

Its parts: the port (:mod:`companion.drivers.pico_port`), the Pico's lines checked and what they
said (:mod:`companion.drivers.pico_lines`) and the LED frame (:class:`LedFrame`). Protocol:
``firmware_bridge/protocol.py``.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from companion.drivers.base import SourceStatus
from companion.drivers.pico_lines import PicoLines
from companion.drivers.pico_port import PicoPort
from companion.drivers.pico_port import find_pico as find_pico  # the default finder
from companion.scan import Scan
from firmware_bridge import protocol as P

if TYPE_CHECKING:
    import serial

log = logging.getLogger(__name__)

Pixel = tuple[int, int, int]
# Sent when the Pico does not answer hello requests: at the MicroPython prompt (left there by
# mpremote) it leaves raw-REPL mode (Ctrl-B) and soft-resets into main.py (Ctrl-D); to the running
# firmware it is just a line fragment it drops.
SOFT_RESET = b"\r\x02\x04"
SOFT_RESET_EVERY = 3  # unanswered hello requests
CONFIRM_EVERY = 0.25  # s between HOSTs asking the Pico to confirm a HELLO we did not ask for
ButtonListener = Callable[[str, str], None]


def file_letter_faults(tokens: list[str]) -> list[str]:
    """The firmware's fault tokens (``col2``) as sentences that name files by letter."""
    out = []
    for t in tokens:
        if t.startswith("col") and t[3:].isdigit():
            out.append(
                f"file {chr(ord('a') + int(t[3:]))} reads closed with every row released: "
                "short to ground, or a switch shorted past its diode"
            )
        else:
            out.append(t)
    return out


class SerialStatus(SourceStatus):
    """The Pico link's health (:meth:`SerialBoard.status`): besides the board's, the port, the
    Pico's firmware and boot id, the last sequence number, its size and sensors, and counters
    of dropped lines (by reason), gaps, syncs, reconnects and hellos; the last errors."""

    port: str | None
    firmware: str | None
    boot: str | None
    seq: int | None
    size: int
    sensors: str
    dropped_lines: int
    drop_reasons: dict[str, int]
    gaps: int
    syncs: int
    reconnects: int
    hellos: int
    last_error: str | None
    last_device_error: str | None


class LedFrame:
    """The LED frame for the Pico: the one to show, the one sent last and whether the Pico
    acknowledged it (the bridge's lock held)."""

    def __init__(self) -> None:
        self.pixels: dict[int, Pixel] = {}
        self._sent: dict[int, Pixel] | None = None
        self._seq: int | None = None
        self._sent_at = 0.0
        self._acked = False

    def due(self, now: float) -> dict[int, Pixel] | None:
        """The frame to send now: it changed, or the Pico has not acknowledged it for a
        second; None when nothing is to be sent."""
        changed = self.pixels != self._sent
        unacked = not self._acked and now - self._sent_at > 1.0
        return self.pixels if changed or unacked else None

    def sent(self, seq: int, pixels: dict[int, Pixel], now: float) -> None:
        """``pixels`` went out in the host line ``seq``."""
        self._sent = dict(pixels)
        self._seq = seq
        self._acked = False
        self._sent_at = now

    def acked(self, seq: int) -> None:
        """The Pico acknowledged the host line ``seq``."""
        if self._seq is not None and seq == self._seq:
            self._acked = True

    def resend(self) -> None:
        """The Pico has lost its LEDs (it rebooted, the port reopened): send the frame again."""
        self._sent = None


class SerialBridge:
    """A board read through the Pico bridge firmware (see module docstring): the port and its
    reader thread, what goes out (hello requests, heartbeats, SYNCs, the LED frame) and the
    Pico's lines, taken by :attr:`lines` (:class:`~companion.drivers.pico_lines.PicoLines`)."""

    kind = "serial"

    def __init__(
        self,
        size: int,
        port: str = "auto",
        baud: int = 115200,
        sensors: str = "switch",
        *,
        finder: Callable[[], str | None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        stale_after: float = 3.0,
        backoff: tuple[float, float] = (0.25, 8.0),
        hello_interval: float = 1.0,
        sync_interval: float = 0.5,
        resync_after: float = 1.5,
        start: bool = True,
    ) -> None:
        self.size = size
        self.sensors = sensors
        self._clock = clock
        self.stale_after = stale_after
        self._backoff_min, self._backoff_max = backoff
        self._hello_interval = hello_interval
        self.sync_interval = sync_interval
        self.resync_after = resync_after
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._link = PicoPort(port, baud, finder or find_pico, self._lock, clock)
        self._rx = P.LineBuffer()
        self.lines = PicoLines(size, sensors, clock)  # guarded by _lock
        self._frame = LedFrame()  # guarded by _lock
        self.button_listener: ButtonListener | None = None  # BTN lines (button, event)
        self._sync_sent_at = -1e9
        self.syncs = 0
        self.soft_resets = 0
        self.button_presses = 0  # BTN lines taken
        self.led_frames_sent = 0
        self._hello_requests = 0
        self._tx_seq = 0
        self._hello_sent_at = -1e9
        self._hb_sent_at = 0.0
        self._thread = threading.Thread(target=self._run, name="pico-bridge", daemon=True)
        if start:
            self._thread.start()

    # -- BoardSource -------------------------------------------------------------------------
    def scan(self, now: float) -> Scan | None:
        """The latest valid snapshot as a Scan at ``now``; None when the link is down, silent
        for ``stale_after`` seconds, has no hello yet, or reports another board size."""
        with self._lock:
            snapshot = self.lines.snapshot
            if snapshot is None or not self._usable_locked():
                return None
            occupied, colours = snapshot
        return Scan(now, occupied, dict(colours) if colours is not None else None)

    def _usable_locked(self) -> bool:
        lines = self.lines
        return (
            self._link.ser is not None
            and lines.hello is not None
            and lines.size_error is None
            and lines.snapshot is not None
            and lines.last_rx is not None
            and self._clock() - lines.last_rx <= self.stale_after
        )

    def status(self) -> SerialStatus:
        """Link health: ``connected``, a one-line ``detail``, counters of dropped lines, gaps,
        reconnects, and faults the firmware reported (stuck columns)."""
        with self._lock:
            now = self._clock()
            lines, link = self.lines, self._link
            connected = self._usable_locked()
            hello = lines.hello or {}
            if connected:
                detail = "Pico fw {} on {}".format(hello.get("fw", "?"), link.device)
            elif lines.size_error:
                detail = lines.size_error
            elif link.ser is not None and lines.hello is None:
                detail = f"{link.device} open, waiting for the Pico's hello"
            elif link.ser is not None and lines.snapshot is None:
                detail = f"{link.device} open, waiting for the first snapshot"
            elif link.ser is not None:
                silent = now - (lines.last_rx or now)
                detail = f"no valid line from the Pico on {link.device} for {silent:.0f} s"
            else:
                detail = link.closed_detail(now)
            if not connected and lines.device_error and now - lines.device_error_at < 5.0:
                detail += "; the Pico reports: " + lines.device_error
            return {
                "kind": self.kind,
                "connected": connected,
                "detail": detail,
                "port": link.device,
                "firmware": hello.get("fw"),
                "boot": lines.boot,
                "seq": lines.last_seq,
                "size": self.size,
                "sensors": hello.get("sensors", self.sensors),
                "dropped_lines": lines.dropped,
                "drop_reasons": dict(lines.drop_reasons),
                "gaps": lines.gaps,
                "syncs": self.syncs,
                "reconnects": link.reconnects,
                "hellos": lines.hellos,
                "faults": file_letter_faults(lines.device_faults),
                "last_error": link.last_error,
                "last_device_error": lines.device_error,
            }

    def close(self) -> None:
        """Stop the reader thread and close the port."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=3)
        self._link.close(None)

    # -- LEDs ----------------------------------------------------------------------------------
    def set_pixels(self, pixels: dict[int, Pixel]) -> None:
        """The LED frame to show: ``{led_index: (r, g, b)}``; unlisted LEDs are off. Sent by the
        reader thread when it changes, after each HELLO, and until the Pico acknowledges it."""
        lit = {i: p for i, p in pixels.items() if any(p)}
        with self._lock:
            self._frame.pixels = lit

    # -- reader thread -------------------------------------------------------------------------
    def _run(self) -> None:
        delay = self._backoff_min
        while not self._stop.is_set():
            if self._link.ser is None:
                if self._open():
                    delay = self._backoff_min
                else:
                    self._stop.wait(delay)
                    delay = min(delay * 2, self._backoff_max)
                    continue
            try:
                self._pump()
            except Exception as e:  # serial.SerialException, OSError, or anything unexpected
                self._link.close(f"{e}")
                self._stop.wait(delay)
                delay = min(delay * 2, self._backoff_max)

    def _open(self) -> bool:
        """Open the port once; from then on nothing the Pico said before counts."""
        opened = self._link.connect()
        if opened is None:
            return False
        ser, path = opened
        with self._lock:
            self._link.opened(ser, path)
            self.lines.reset()
            self._frame.resend()
        self._rx.clear()
        self._hello_sent_at = -1e9
        self._hello_requests = 0
        self._hb_sent_at = self._clock()
        log.info("serial bridge: opened %s", path)
        return True

    def _port(self) -> serial.Serial:
        ser = self._link.ser
        if ser is None:
            raise OSError("port closed")
        return ser

    def _send_host(self, now: float) -> None:
        """A hello request with a fresh nonce; the HELLO that echoes it is the live Pico."""
        nonce = secrets.token_hex(4)
        with self._lock:
            self.lines.asked(nonce)
        self._send(P.HOST, P.encode_kv([("proto", P.PROTO_VERSION), ("nonce", nonce)]))
        self._hello_requests += 1
        self._hello_sent_at = now

    def _send(self, kind: str, payload: str = "") -> int:
        seq = self._tx_seq
        self._port().write(P.encode_line(seq, kind, payload))
        self._tx_seq = P.next_seq(seq)
        return seq

    def _pump(self) -> None:
        ser = self._port()
        data = ser.read(max(1, min(ser.in_waiting, 8192)))
        for line in self._rx.feed(data):
            self._handle(line)
        with self._lock:
            overflow = self._rx.overflows
            if overflow:
                self._rx.overflows = 0
                self.lines.count_drops("too long", overflow)
        now = self._clock()
        with self._lock:
            have_hello = self.lines.hello is not None
            last_rx = self.lines.last_rx
            confirm = self.lines.confirm_due
            heard_at = self.lines.heard_at
        silent = last_rx is not None and now - last_rx > 2 * self.stale_after
        if silent:
            raise OSError("no valid line for %.0f s" % (2 * self.stale_after))
        # No HELLO yet, or lines come but none in sequence (a HELLO of an old boot replayed, a
        # huge loss): ask for a HELLO, which puts the host back in step with the Pico.
        out_of_step = have_hello and last_rx is not None and now - last_rx > self.resync_after
        since_hello = now - self._hello_sent_at
        if confirm and since_hello >= CONFIRM_EVERY:
            self._send_host(now)
        elif (not have_hello or out_of_step) and since_hello >= self._hello_interval:
            firmware_talks = heard_at is not None and now - heard_at < 2.0
            if (
                not firmware_talks
                and self._hello_requests
                and self._hello_requests % SOFT_RESET_EVERY == 0
            ):
                log.info("serial bridge: no hello from %s; soft-resetting the Pico",
                         self._link.device)
                ser.write(SOFT_RESET)
                self.soft_resets += 1
            self._send_host(now)
        if now - self._hb_sent_at >= 1.0:
            self._send(P.HB)
            self._hb_sent_at = now
        if have_hello:
            self._send_leds(now)

    def _send_leds(self, now: float) -> None:
        with self._lock:
            pixels = self._frame.due(now)
        if pixels is None:
            return
        payload = P.encode_leds([(i, r, g, b) for i, (r, g, b) in pixels.items()])
        seq = self._send(P.LED, payload)
        with self._lock:
            self._frame.sent(seq, pixels, now)
            self.led_frames_sent += 1

    def _handle(self, line: bytes) -> None:
        """One line from the Pico (without its newline): taken by :attr:`lines`, then a SYNC
        asked for when lines were lost, and a button press handed to the listener."""
        with self._lock:
            taken = self.lines.take(line)
            if taken is None:
                return
            if taken.new_boot:
                self._frame.resend()  # the Pico rebooted and went dark
            elif taken.kind == P.ACK:
                self._frame.acked(int(taken.args[0]))
            gap = taken.gap
            now = self._clock()
            sync = gap > 0 and now - self._sync_sent_at >= self.sync_interval
            if sync:
                self._sync_sent_at = now
                self.syncs += 1
        if gap:
            log.info("serial bridge: %d line(s) lost before seq %d", gap, taken.seq)
        if sync:
            self._send(P.SYNC)
        if taken.kind == P.BTN:
            self.button_presses += 1
            listener = self.button_listener
            if listener is not None:
                button, event = P.decode_button(taken.args)  # checked by lines.take
                listener(button, event)
