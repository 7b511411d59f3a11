"""The USB serial port to the Pico: found (``/dev/serial/by-id`` links, then any port with the
Raspberry Pi USB vendor id 2e8a), opened exclusively, lost, and why it is not open now, in
words for ``hwtest`` and the page."""

from __future__ import annotations

import contextlib
import glob
import logging
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import serial

log = logging.getLogger("companion.drivers.serial_bridge")  # the bridge's log, as before

PICO_USB_VID = 0x2E8A
BY_ID_DIR = "/dev/serial/by-id"
BY_ID_PATTERNS = ("usb-MicroPython_Board_in_FS_mode_*", "usb-Raspberry_Pi_Pico*")


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


class PicoPort:
    """The port ``port`` (a device path, or ``"auto"``: :func:`find_pico`) at ``baud``. Its
    fields are guarded by ``lock`` (the bridge's): :meth:`connect` and :meth:`close` take it,
    :meth:`opened` and :meth:`closed_detail` are called with it held."""

    def __init__(self, port: str, baud: int, finder: Callable[[], str | None],
                 lock: threading.Lock, clock: Callable[[], float]) -> None:
        self.port = port
        self.baud = baud
        self._finder = finder
        self._lock = lock
        self._clock = clock
        self.ser: serial.Serial | None = None
        self.device: str | None = None  # the path opened last
        self.lost_at: float | None = None
        self.lost_reason: str | None = None
        self.last_error: str | None = None  # why the last attempt to open failed
        self.reconnects = 0

    def connect(self) -> tuple[serial.Serial, str] | None:
        """Find the port and open it once: the open port and its path, or None (why:
        :attr:`last_error`). The caller then calls :meth:`opened` with its lock held."""
        import serial

        path = self.port if self.port != "auto" else self._finder()
        if path is None:
            with self._lock:
                if self.lost_at is None:
                    self.last_error = None
            return None
        try:
            ser = serial.Serial(path, self.baud, timeout=0.05, write_timeout=1.0, exclusive=True)
        except (serial.SerialException, OSError, ValueError) as e:
            with self._lock:
                reason = _open_error(e)
                self.last_error = f"{path}: {reason}" if self.port == "auto" else reason
            return None
        return ser, path

    def opened(self, ser: serial.Serial, path: str) -> None:
        """``ser`` (from :meth:`connect`) is the port from now on (lock held)."""
        self.ser = ser
        self.device = path
        if self.lost_at is not None:
            self.reconnects += 1

    def close(self, error: str | None) -> None:
        """Close the port; ``error`` says why it was lost (None: closed on purpose)."""
        with self._lock:
            ser, self.ser = self.ser, None
            if ser is not None and error is not None:
                self.lost_at = self._clock()
                self.lost_reason = error
                log.warning("serial bridge: link lost on %s: %s", self.device, error)
        if ser is not None:
            with contextlib.suppress(Exception):  # the port is gone anyway
                ser.close()

    def closed_detail(self, now: float) -> str:
        """Why no port is open, in one line (lock held)."""
        if self.lost_at is not None:
            return "link lost {:.0f} s ago ({}); retrying".format(
                now - self.lost_at,
                self.lost_reason or "?",
            )
        if self.port == "auto":
            detail = f"no Pico found (looked in {BY_ID_DIR} and for USB id 2e8a)"
            if self.last_error:
                detail += "; " + self.last_error
            return detail
        if self.last_error:
            return f"cannot open {self.port}: {self.last_error}"
        return f"opening {self.port}"
