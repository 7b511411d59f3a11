"""The systemd notification protocol (``sd_notify``), without a library.

Under ``Type=notify`` systemd passes ``$NOTIFY_SOCKET`` (a unix datagram socket; a leading ``@``
means the abstract namespace) and, with ``WatchdogSec=``, ``$WATCHDOG_USEC``. The daemon sends
``READY=1`` once it serves, ``WATCHDOG=1`` from its scan loop, ``STOPPING=1`` on the way out.
"""

from __future__ import annotations

import logging
import os
import socket

log = logging.getLogger("companion.daemon")


class Notifier:
    """``sd_notify`` over ``$NOTIFY_SOCKET`` (a unix datagram socket); a no-op without it."""

    def __init__(self) -> None:
        addr = os.environ.get("NOTIFY_SOCKET", "")
        self._addr = "\0" + addr[1:] if addr.startswith("@") else addr
        self._sock: socket.socket | None = None
        usec = os.environ.get("WATCHDOG_USEC", "")
        pid = os.environ.get("WATCHDOG_PID", "")
        wanted = usec.isdigit() and (not pid or pid == str(os.getpid()))
        #: seconds between watchdog pings (half the watchdog timeout), None if not wanted
        self.watchdog_every = min(int(usec) / 2e6, 5.0) if wanted and int(usec) else None
        self._last_ping = 0.0

    def notify(self, message: str) -> bool:
        """Send one message (``READY=1``, ``WATCHDOG=1``, ``STATUS=...``); True if sent."""
        if not self._addr:
            return False
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._sock.sendto(message.encode(), self._addr)
            return True
        except OSError as exc:
            log.debug("sd_notify failed: %s", exc)
            return False

    def ping(self, now: float) -> None:
        """``WATCHDOG=1`` if due (called from the scan loop)."""
        if self.watchdog_every is not None and now - self._last_ping >= self.watchdog_every:
            self._last_ping = now
            self.notify("WATCHDOG=1")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
