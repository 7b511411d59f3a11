"""Live page state for many phones: Server-Sent Events fanned out from one encoded frame.

The hub tells the stream that a new state exists (from the scan loop's thread, which only
schedules a call on the web server's event loop and returns). On the loop, the state is encoded
once as ``data: {json}\\n\\n`` and the same bytes are written to every live socket: no thread,
no queue and no copy per client.

A client that stops reading cannot make the daemon buffer for it: once its socket's buffer
holds more than ``HIGH_WATER`` bytes it is skipped and marked stale; when it drains, it is sent
the *latest* state only (every frame is a full snapshot, so intermediate states can be dropped
safely). A client that has not drained for ``stall_timeout`` seconds is disconnected, freeing
its slot. Closed connections leave at once (the server reads each stream socket and sees the
EOF). ``HEAD /api/events`` answers the headers and takes no slot.

The stream knows its clients only by the small :class:`Client` protocol (the server's
connections satisfy it), so it imports nothing of the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable
from email.utils import formatdate
from typing import Protocol

from companion.web.limits import Limits

HIGH_WATER = 16 * 1024  # bytes queued in the process for one client before it is skipped
LOW_WATER = 4 * 1024
SEND_BUFFER = 32 * 1024  # the kernel's send buffer for a stream socket (it doubles it)
USER_TIMEOUT_MS = 60_000  # unacknowledged data for this long: the peer is gone (Linux)
RETRY_MS = 2000
HEADERS = [("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-store"),
           ("X-Accel-Buffering", "no"), ("X-Content-Type-Options", "nosniff")]
FULL = "too many live connections: poll /api/state instead"


class Hub(Protocol):
    """The state hub the stream listens to (:class:`~companion.web.hub.StateHub`)."""

    def current(self) -> tuple[int, str]: ...
    def subscribe(self, listener: Callable[[], None]) -> None: ...
    def unsubscribe(self, listener: Callable[[], None]) -> None: ...


class Client(Protocol):
    """What the stream needs of a connection (:class:`~companion.web.connection.Connection`)."""

    key: str
    paused: bool
    paused_at: float
    stale: bool
    transport: asyncio.Transport | None

    def write(self, data: bytes) -> None: ...
    def abort(self) -> None: ...
    def fail(self, status: int, message: str) -> None: ...
    def become_stream(self) -> None: ...
    async def respond(self, status: str, headers: list[tuple[str, str]], body: bytes) -> None: ...


class EventStream:
    """The live ``/api/events`` clients of a web server (all calls on its event loop)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, limits: Limits, hub: Hub) -> None:
        self.hub = hub
        self.loop = loop
        self.limits = limits
        self.clients: set[Client] = set()
        self.per_address: dict[str, int] = {}
        self.version = -1
        self.frame = b""
        self.frames_sent = 0  # frames written to sockets (for tests and the bench)
        self.frames_skipped = 0  # frames left out for clients that were not reading
        self._scheduled = False
        self._tasks: set[asyncio.Task[None]] = set()
        self._timer: asyncio.TimerHandle | None = None

    # -- life -----------------------------------------------------------------------------------

    def start(self) -> None:
        """Listen to the hub (call on the loop)."""
        self._refresh()
        self.hub.subscribe(self._published)
        self._timer = self.loop.call_later(self.limits.keepalive, self._keepalive)

    def stop(self) -> None:
        self.hub.unsubscribe(self._published)
        if self._timer is not None:
            self._timer.cancel()
        for conn in list(self.clients):
            conn.abort()

    def _published(self) -> None:
        """The hub has a new state (any thread): fan it out on the loop, once per burst."""
        if self._scheduled:
            return
        self._scheduled = True
        with contextlib.suppress(RuntimeError):  # the loop is closed: the server stopped
            self.loop.call_soon_threadsafe(self._fanout)

    def _refresh(self) -> bool:
        version, text = self.hub.current()
        if version == self.version:
            return False
        self.version = version
        self.frame = b"data: " + text.encode() + b"\n\n"
        return True

    def _fanout(self) -> None:
        self._scheduled = False  # before reading the state: a later publish schedules again
        if not self._refresh():
            return
        frame = self.frame
        for conn in self.clients:
            if conn.paused:
                conn.stale = True
                self.frames_skipped += 1
            else:
                conn.write(frame)
                self.frames_sent += 1

    def _keepalive(self) -> None:
        """A comment to every reading client; clients stalled too long are dropped."""
        now = self.loop.time()
        for conn in list(self.clients):
            if not conn.paused:
                conn.write(b": keep-alive\n\n")
            elif now - conn.paused_at > self.limits.stall_timeout:
                conn.abort()
        self._timer = self.loop.call_later(self.limits.keepalive, self._keepalive)

    # -- clients ------------------------------------------------------------------------------

    def open(self, conn: Client, head_only: bool) -> None:
        """Answer ``GET``/``HEAD /api/events`` on ``conn`` (on the loop)."""
        if head_only:
            task = self.loop.create_task(conn.respond("200 OK", HEADERS, b""))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            return
        limits = self.limits
        mine = self.per_address.get(conn.key, 0)
        if len(self.clients) >= limits.max_streams or mine >= limits.streams_per_address:
            conn.fail(503, FULL)
            return
        self._refresh()
        transport = conn.transport
        assert transport is not None
        transport.set_write_buffer_limits(high=HIGH_WATER, low=LOW_WATER)
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
                if hasattr(socket, "TCP_USER_TIMEOUT"):
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, USER_TIMEOUT_MS)
        conn.become_stream()
        self.clients.add(conn)
        self.per_address[conn.key] = mine + 1
        head = "".join(f"{k}: {v}\r\n" for k, v in HEADERS)
        conn.write(f"HTTP/1.1 200 OK\r\n{head}Date: {formatdate(usegmt=True)}\r\n"
                   f"Connection: close\r\n\r\nretry: {RETRY_MS}\n".encode() + self.frame)
        self.frames_sent += 1
        transport.resume_reading()  # to see the client leave at once

    def resumed(self, conn: Client) -> None:
        """``conn``'s buffer drained: send it the latest frame if it missed one."""
        if conn in self.clients and conn.stale:
            conn.stale = False
            conn.write(self.frame)

    def remove(self, conn: Client) -> None:
        if conn in self.clients:
            self.clients.discard(conn)
            n = self.per_address.get(conn.key, 1) - 1
            if n > 0:
                self.per_address[conn.key] = n
            else:
                self.per_address.pop(conn.key, None)
