"""Host side of the Pico serial bridge: a :class:`BoardSource` fed by USB serial.

A background thread owns the port: it finds the Pico (``/dev/serial/by-id`` or the Raspberry Pi
USB vendor id 2e8a), opens it, reconnects with exponential backoff, checks every line (CRC,
sequence, type, payload) and keeps the latest valid snapshot. ``scan(now)`` only ever returns a
snapshot that arrived whole and valid from a Pico that said hello for the configured board size;
while the link is down or silent it returns None. LED frames given to :meth:`set_pixels` are sent
from the same thread, re-sent after every HELLO (the Pico rebooted) and until acknowledged.

Protocol: ``firmware_bridge/protocol.py``.
"""

from __future__ import annotations

import contextlib
import glob
import logging
import os
import secrets
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from companion.scan import ATTACKER_COLOUR, DEFENDER_COLOUR, Scan
from companion.squares import a_board
from companion.squares import square_names as _names
from firmware_bridge import protocol as P

if TYPE_CHECKING:
    import serial

log = logging.getLogger(__name__)

PICO_USB_VID = 0x2E8A
BY_ID_DIR = "/dev/serial/by-id"
BY_ID_PATTERNS = ("usb-MicroPython_Board_in_FS_mode_*", "usb-Raspberry_Pi_Pico*")

Pixel = tuple[int, int, int]
# Sent when the Pico does not answer hello requests: at the MicroPython prompt (left there by
# mpremote) it leaves raw-REPL mode (Ctrl-B) and soft-resets into main.py (Ctrl-D); to the running
# firmware it is just a line fragment it drops.
SOFT_RESET = b"\r\x02\x04"
SOFT_RESET_EVERY = 3  # unanswered hello requests
KNOWN_BOOTS = 64  # boot ids remembered: a HELLO of any of them but the current one is refused
OPEN_NONCES = 4  # HOST nonces a HELLO may still answer (the latest ones sent)
CONFIRM_EVERY = 0.25  # s between HOSTs asking the Pico to confirm a HELLO we did not ask for
ButtonListener = Callable[[str, str], None]


def find_pico(by_id_dir: str = BY_ID_DIR, scan_usb: bool = True) -> str | None:
    """Device path of the first Pico found, or None: ``by_id_dir`` links first, then (when
    ``scan_usb``) any serial port whose USB vendor id is 2e8a."""
    for pattern in BY_ID_PATTERNS:
        found = sorted(glob.glob(os.path.join(by_id_dir, pattern)))
        if found:
            return found[0]
    if scan_usb:
        try:
            from serial.tools import list_ports
        except ImportError:  # pragma: no cover - pyserial is a dependency
            return None
        for info in sorted(list_ports.comports(), key=lambda p: p.device):
            if info.vid == PICO_USB_VID:
                return info.device
    return None


def _open_error(e: Exception) -> str:
    """A short reason a port did not open ("No such file or directory", "Permission denied")."""
    errno = getattr(e, "errno", None)
    if isinstance(errno, int):
        reason = os.strerror(errno)
        if errno == 13:
            reason += " (add the user to the dialout group)"
        return reason
    return str(e)


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


def square_names(size: int) -> list[str]:
    """Square name of each bitmap index ``i = rank * size + file``."""
    return list(_names(size))


class SerialBridge:
    """A board read through the Pico bridge firmware (see module docstring)."""

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
        self.port = port
        self.baud = baud
        self.sensors = sensors
        self._finder = finder or find_pico
        self._clock = clock
        self.stale_after = stale_after
        self._backoff_min, self._backoff_max = backoff
        self._hello_interval = hello_interval
        self.sync_interval = sync_interval
        self.resync_after = resync_after
        self._names = square_names(size)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ser: serial.Serial | None = None
        self._rx = P.LineBuffer()
        # link state (guarded by _lock)
        self._device: str | None = None
        self._hello: dict[str, str] | None = None
        self._size_error: str | None = None
        self._snapshot: tuple[frozenset[str], dict[str, str] | None] | None = None
        self._last_rx: float | None = None
        self._lost_at: float | None = None
        self._lost_reason: str | None = None
        self._last_error: str | None = None
        self._device_faults: list[str] = []
        self._device_error: str | None = None
        self._device_error_at = -1e9
        self._boot: str | None = None  # the boot id of the Pico's last HELLO: the CRC key
        # every boot id heard, the current one last: a HELLO of an earlier one is a replay
        self._boots: deque[str] = deque(maxlen=KNOWN_BOOTS)
        self._last_seq: int | None = None  # SEQ of the last line accepted from this boot
        # nonces of the latest HOST lines: a HELLO echoing one is the live Pico's answer, which
        # is trusted whatever its boot id and sequence number (it puts the host back in step)
        self._nonces: deque[str] = deque(maxlen=OPEN_NONCES)
        self._confirm_due = False  # a HELLO we did not ask for came: ask the Pico to confirm
        self.button_listener: ButtonListener | None = None  # BTN lines (button, event)
        self._sync_sent_at = -1e9
        self.dropped = 0
        self.drop_reasons: Counter[str] = Counter()
        self.gaps = 0  # lines lost: sequence numbers skipped by accepted lines of one boot
        self.syncs = 0
        self.hellos = 0
        self.reconnects = 0
        self.snapshots = 0
        self.soft_resets = 0
        self.button_presses = 0  # BTN lines taken
        self._hello_requests = 0
        self._heard_at: float | None = None  # the last line that checked out, in order or not
        # LED frame (guarded by _lock)
        self._pixels: dict[int, Pixel] = {}
        self._led_sent: dict[int, Pixel] | None = None
        self._led_seq: int | None = None
        self._led_sent_at = 0.0
        self._led_acked = False
        self.led_frames_sent = 0
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
            snapshot = self._snapshot
            if snapshot is None or not self._usable_locked():
                return None
            occupied, colours = snapshot
        return Scan(now, occupied, dict(colours) if colours is not None else None)

    def _usable_locked(self) -> bool:
        return (
            self._ser is not None
            and self._hello is not None
            and self._size_error is None
            and self._snapshot is not None
            and self._last_rx is not None
            and self._clock() - self._last_rx <= self.stale_after
        )

    def status(self) -> dict[str, Any]:
        """Link health: ``connected``, a one-line ``detail``, counters of dropped lines, gaps,
        reconnects, and faults the firmware reported (stuck columns)."""
        with self._lock:
            now = self._clock()
            connected = self._usable_locked()
            hello = self._hello or {}
            if connected:
                detail = "Pico fw {} on {}".format(hello.get("fw", "?"), self._device)
            elif self._size_error:
                detail = self._size_error
            elif self._ser is not None and self._hello is None:
                detail = f"{self._device} open, waiting for the Pico's hello"
            elif self._ser is not None and self._snapshot is None:
                detail = f"{self._device} open, waiting for the first snapshot"
            elif self._ser is not None:
                silent = now - (self._last_rx or now)
                detail = f"no valid line from the Pico on {self._device} for {silent:.0f} s"
            elif self._lost_at is not None:
                detail = "link lost {:.0f} s ago ({}); retrying".format(
                    now - self._lost_at,
                    self._lost_reason or "?",
                )
            elif self.port == "auto":
                detail = f"no Pico found (looked in {BY_ID_DIR} and for USB id 2e8a)"
                if self._last_error:
                    detail += "; " + self._last_error
            else:
                if self._last_error:
                    detail = f"cannot open {self.port}: {self._last_error}"
                else:
                    detail = f"opening {self.port}"
            if not connected and self._device_error and now - self._device_error_at < 5.0:
                detail += "; the Pico reports: " + self._device_error
            return {
                "kind": self.kind,
                "connected": connected,
                "detail": detail,
                "port": self._device,
                "firmware": hello.get("fw"),
                "boot": self._boot,
                "seq": self._last_seq,
                "size": self.size,
                "sensors": hello.get("sensors", self.sensors),
                "dropped_lines": self.dropped,
                "drop_reasons": dict(self.drop_reasons),
                "gaps": self.gaps,
                "syncs": self.syncs,
                "reconnects": self.reconnects,
                "hellos": self.hellos,
                "faults": file_letter_faults(self._device_faults),
                "last_error": self._last_error,
                "last_device_error": self._device_error,
            }

    def close(self) -> None:
        """Stop the reader thread and close the port."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=3)
        self._close_port(None)

    # -- LEDs ----------------------------------------------------------------------------------
    def set_pixels(self, pixels: dict[int, Pixel]) -> None:
        """The LED frame to show: ``{led_index: (r, g, b)}``; unlisted LEDs are off. Sent by the
        reader thread when it changes, after each HELLO, and until the Pico acknowledges it."""
        lit = {i: p for i, p in pixels.items() if any(p)}
        with self._lock:
            self._pixels = lit

    # -- reader thread -------------------------------------------------------------------------
    def _run(self) -> None:
        delay = self._backoff_min
        while not self._stop.is_set():
            if self._ser is None:
                if self._open():
                    delay = self._backoff_min
                else:
                    self._stop.wait(delay)
                    delay = min(delay * 2, self._backoff_max)
                    continue
            try:
                self._pump()
            except Exception as e:  # serial.SerialException, OSError, or anything unexpected
                self._close_port(f"{e}")
                self._stop.wait(delay)
                delay = min(delay * 2, self._backoff_max)

    def _resolve_port(self) -> str | None:
        if self.port != "auto":
            return self.port
        return self._finder()

    def _open(self) -> bool:
        import serial

        path = self._resolve_port()
        if path is None:
            with self._lock:
                if self._lost_at is None:
                    self._last_error = None
            return False
        try:
            ser = serial.Serial(path, self.baud, timeout=0.05, write_timeout=1.0, exclusive=True)
        except (serial.SerialException, OSError, ValueError) as e:
            with self._lock:
                reason = _open_error(e)
                self._last_error = f"{path}: {reason}" if self.port == "auto" else reason
            return False
        with self._lock:
            self._ser = ser
            self._device = path
            self._hello = None
            self._snapshot = None
            self._size_error = None
            self._boot = None
            self._last_seq = None
            self._nonces.clear()
            self._confirm_due = False
            self._device_error = None
            self._last_rx = None
            self._led_sent = None
            if self._lost_at is not None:
                self.reconnects += 1
        self._rx.clear()
        self._hello_sent_at = -1e9
        self._hello_requests = 0
        self._heard_at = None
        self._hb_sent_at = self._clock()
        log.info("serial bridge: opened %s", path)
        return True

    def _close_port(self, error: str | None) -> None:
        with self._lock:
            ser, self._ser = self._ser, None
            if ser is not None and error is not None:
                self._lost_at = self._clock()
                self._lost_reason = error
                log.warning("serial bridge: link lost on %s: %s", self._device, error)
        if ser is not None:
            with contextlib.suppress(Exception):  # the port is gone anyway
                ser.close()

    def _port(self) -> serial.Serial:
        ser = self._ser
        if ser is None:
            raise OSError("port closed")
        return ser

    def _send_host(self, now: float) -> None:
        """A hello request with a fresh nonce; the HELLO that echoes it is the live Pico."""
        nonce = secrets.token_hex(4)
        with self._lock:
            self._nonces.append(nonce)
            self._confirm_due = False
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
                self.dropped += overflow
                self.drop_reasons["too long"] += overflow
        now = self._clock()
        with self._lock:
            have_hello = self._hello is not None
            last_rx = self._last_rx
            confirm = self._confirm_due
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
            firmware_talks = self._heard_at is not None and now - self._heard_at < 2.0
            if (
                not firmware_talks
                and self._hello_requests
                and self._hello_requests % SOFT_RESET_EVERY == 0
            ):
                log.info("serial bridge: no hello from %s; soft-resetting the Pico", self._device)
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
            pixels = self._pixels
            changed = pixels != self._led_sent
            unacked = not self._led_acked and now - self._led_sent_at > 1.0
        if not (changed or unacked):
            return
        payload = P.encode_leds([(i, r, g, b) for i, (r, g, b) in pixels.items()])
        seq = self._send(P.LED, payload)
        with self._lock:
            self._led_sent = dict(pixels)
            self._led_seq = seq
            self._led_acked = False
            self._led_sent_at = now
            self.led_frames_sent += 1

    def _drop(self, reason: str, line: bytes) -> None:
        self.dropped += 1
        self.drop_reasons[reason] += 1
        log.debug("serial bridge: dropped line (%s): %r", reason, line[:80])

    def _handle(self, line: bytes) -> None:
        with self._lock:
            boot = self._boot
            earlier = [b for b in list(self._boots)[-8:] if b != boot]
        try:
            seq, kind, args = P.decode_line(line, P.DEVICE_TYPES, boot or "")
            self._heard_at = self._clock()
        except P.ProtocolError as e:
            reason = e.reason
            if reason == "bad crc" and boot is None:
                reason = "no hello"  # keyed by a boot id we have not been told yet
            elif reason == "bad crc":
                for old in earlier:
                    with contextlib.suppress(P.ProtocolError):
                        P.decode_line(line, P.DEVICE_TYPES, old)
                        reason = "old boot"
                        break
            with self._lock:
                self._drop(reason, line)
            return
        with self._lock:
            try:
                gap = self._accept(seq, kind, args)
            except P.ProtocolError as e:
                self._drop(e.reason, line)
                return
            now = self._clock()
            sync = gap > 0 and now - self._sync_sent_at >= self.sync_interval
            if sync:
                self._sync_sent_at = now
                self.syncs += 1
        if gap:
            log.info("serial bridge: %d line(s) lost before seq %d", gap, seq)
        if sync:
            self._send(P.SYNC)
        listener = self.button_listener
        if kind == P.BTN and listener is not None:
            button, event = P.decode_button(args)  # checked in _apply
            listener(button, event)

    def _accept(self, seq: int, kind: str, args: list[str]) -> int:
        """Take one checked line if it is in sequence (lock held); returns the number of lines
        lost before it. ProtocolError for a line to drop: replayed or reordered (``stale seq``),
        implausibly far ahead (``seq jump``), from an earlier boot (``old boot``), a HELLO of an
        unknown boot we did not ask for (``unconfirmed hello``: we ask), before any HELLO
        (``no hello``), or with a payload that makes no sense."""
        if kind == P.HELLO:
            info = P.decode_kv(args)
            boot = info.get("boot", "")
            if not P.is_hex(boot) or len(boot) > 8:
                raise P.ProtocolError("bad payload", "hello without boot id")
            if info.get("nonce", "") in self._nonces:
                # the live Pico answering our HOST: in step from here, whatever came before
                self._nonces.clear()
                self._confirm_due = False
                gap = 0
                if boot != self._boot:
                    self._hello_new_boot(info, boot, seq, args)
                else:
                    self._apply(kind, args)  # the same boot: nothing is lost
                    ahead = P.seq_ahead(self._last_seq, seq) if self._last_seq is not None else 0
                    if 0 < ahead <= P.MAX_AHEAD:  # lines lost before it still count as lost
                        gap = ahead - 1
                        self.gaps += gap
                    self._last_seq = seq
                self._last_rx = self._clock()
                return gap
            if boot != self._boot:
                if boot in self._boots:
                    raise P.ProtocolError("old boot")
                # the Pico rebooted, or a boot we never knew is replayed: only the Pico's
                # answer to a fresh nonce says which
                self._confirm_due = True
                raise P.ProtocolError("unconfirmed hello")
        elif kind == P.ERR and (self._boot is None or not P.seq_ahead(self._last_seq or 0, seq)):
            # Before any HELLO (the firmware cannot run its configuration), or out of step (it
            # rebooted into that state): worth showing all the same; it changes no state.
            self._apply(kind, args)
            return 0
        elif self._boot is None:
            raise P.ProtocolError("no hello")
        last = self._last_seq
        if last is None:  # pragma: no cover - a boot id always comes with a HELLO's SEQ
            raise P.ProtocolError("no hello")
        ahead = P.seq_ahead(last, seq)
        if not ahead:
            raise P.ProtocolError("stale seq")
        if ahead > P.MAX_AHEAD:
            raise P.ProtocolError("seq jump")
        self._apply(kind, args)
        self._last_seq = seq
        self._last_rx = self._clock()
        self.gaps += ahead - 1
        return ahead - 1

    def _hello_new_boot(self, info: dict[str, str], boot: str, seq: int, args: list[str]
                        ) -> None:
        """A HELLO from a boot of the Pico we have not heard from (lock held)."""
        self._check_hello(info)
        self._boot = boot
        if boot in self._boots:
            self._boots.remove(boot)
        self._boots.append(boot)
        self._last_seq = seq
        self._hello = info
        self.hellos += 1
        self._snapshot = None  # only a SNAP from this boot counts
        self._led_sent = None  # the Pico lost its LEDs: send the frame again
        self._device_faults = []
        size = int(info["size"])
        if size != self.size:
            self._size_error = f"Pico reports {a_board(size)} but [board] size = {self.size}"
            log.error("serial bridge: %s", self._size_error)
        else:
            self._size_error = None
        if info.get("sensors", "switch") != self.sensors:
            log.warning(
                "serial bridge: the Pico reads %s sensors but [board] sensors = %s",
                info.get("sensors"),
                self.sensors,
            )
        log.info("serial bridge: hello %s", " ".join(args))

    def _check_hello(self, info: dict[str, str]) -> None:
        size_text = info.get("size", "")
        if not size_text.isdigit():
            raise P.ProtocolError("bad payload", "hello without size")
        proto = info.get("proto", "")
        if proto != P.PROTO_VERSION:
            self._size_error = (
                f"the Pico's firmware speaks protocol {proto or '?'}, this companion "
                f"{P.PROTO_VERSION}: copy firmware_bridge/main.py and protocol.py of this version "
                "to the Pico"
            )
            log.error("serial bridge: %s", self._size_error)
            raise P.ProtocolError("protocol version")

    def _apply(self, kind: str, args: list[str]) -> None:
        """Act on one checked line (lock held); ProtocolError for a payload that makes no sense."""
        if kind == P.HELLO:  # again from the same boot (we asked with HOST): nothing is lost
            info = P.decode_kv(args)
            self._check_hello(info)
            self._hello = info
        elif kind == P.SNAP:
            if self._hello is None or self._size_error is not None:
                raise P.ProtocolError("no hello")
            n = self.size * self.size
            if len(args) not in (1, 2):
                raise P.ProtocolError("bad payload", "snap fields")
            occ = P.decode_bitmap(args[0], n)
            names = self._names
            occupied = frozenset(names[i] for i in range(n) if occ >> i & 1)
            colours = None
            if len(args) == 2:
                att = P.decode_bitmap(args[1], n)
                if att & ~occ:
                    raise P.ProtocolError("bad payload", "colour on an empty square")
                colours = {
                    names[i]: ATTACKER_COLOUR if att >> i & 1 else DEFENDER_COLOUR
                    for i in range(n)
                    if occ >> i & 1
                }
            self._snapshot = (occupied, colours)
            self.snapshots += 1
        elif kind == P.HB:
            info = P.decode_kv(args)
            faults = info.get("faults", "-")
            self._device_faults = [] if faults == "-" else faults.split(",")
        elif kind == P.BTN:
            if self._hello is None or self._size_error is not None:
                raise P.ProtocolError("no hello")
            P.decode_button(args)
            self.button_presses += 1
        elif kind == P.ACK:
            if len(args) != 1 or not args[0].isdigit():
                raise P.ProtocolError("bad payload", "ack")
            if self._led_seq is not None and int(args[0]) == self._led_seq:
                self._led_acked = True
        elif kind == P.ERR:
            text = " ".join(args)
            if text != self._device_error:  # a fault the firmware repeats is logged once
                log.warning("Pico reports: %s", text)
            self._device_error = text
            self._device_error_at = self._clock()
            if args[:1] == ["config"]:  # the firmware cannot run: it reads no board at all
                self._hello = self._boot = self._last_seq = None
                self._snapshot = None
