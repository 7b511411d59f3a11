"""One client connection of the web server: h11 parses and frames HTTP/1.1, this class keeps time.

`h11 <https://h11.readthedocs.io>`_ is a sans-I/O HTTP/1.1 state machine (python-hyper; under
uvicorn, httpcore and hypercorn): it parses request heads, checks framing and keep-alive
(HTTP/1.0 clients are answered with ``Connection: close``) and frames responses (Content-Length,
chunked, or up to the close). What it leaves to the caller is what the project's admission policy
is about, so this class does it:

- a request's head must be whole within ``head_timeout`` and the whole request (head and body)
  within ``request_timeout``, both counted from its first byte and never extended (``408``);
- heads are screened before h11 sees them: a bare LF, a control character, an obsolete line
  fold, more than ``max_headers`` fields or ``max_head`` bytes, a target that is not a path, a
  version other than HTTP/1.0 or 1.1: refused at once (``400``/``431``/``505``);
- a body is read only with a ``Content-Length`` up to ``max_body`` (``413``; chunked ``501``),
  and only as many bytes as it declares are given to h11 (pipelined requests wait their turn);
- a response is written in slices of ``SLICE`` bytes, each after the previous one has drained
  below the transport's high-water mark, so a large response never sits whole in a buffer.

Every refusal is a short JSON ``{"error": ...}`` and the connection closes. The owner (the
:class:`~companion.web.server.WebServer`) admits connections, runs the app and the event stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
import struct
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import formatdate
from typing import Protocol

import h11

from companion.web.auth import address_key
from companion.web.limits import Limits

SLICE = 64 * 1024  # bytes of a response body handed to the transport at a time
#: The kernel's send buffer of a connection. Linux grows it up to tcp_wmem's maximum (4 MiB):
#: 512 clients that never read would pin 2 GiB of a Pi's memory, and a client with a tiny
#: window would seem to take whole responses. 128 KiB still fills a LAN's bandwidth.
SEND_BUFFER = 128 * 1024
_RESET = struct.pack("ii", 1, 0)  # SO_LINGER on, 0 s: close() resets the connection
REASONS = {200: "OK", 400: "Bad Request", 403: "Forbidden", 404: "Not Found",
           408: "Request Timeout", 413: "Content Too Large", 429: "Too Many Requests",
           431: "Request Header Fields Too Large", 500: "Internal Server Error",
           501: "Not Implemented", 503: "Service Unavailable", 505: "HTTP Version Not Supported"}
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection"}

_BARE_LF = re.compile(rb"(?<!\r)\n")
_CONTROL = re.compile(rb"[\x00-\x08\x0a-\x1f\x7f]")  # in a line (CR LF already split off)
_TARGET = re.compile(rb"/[\x21-\x7e]*\Z")
_TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+\Z")

# connection states
WAITING, READING, APP, STREAM, CLOSING = range(5)


class Refused(Exception):
    """A request the server refuses: answered with ``status`` and the connection closed."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Request:
    """A request head, checked by :func:`screen_head` and parsed by h11."""

    method: str
    target: str
    path: bytes
    query: bytes
    version: str
    headers: list[tuple[str, str]]  # names in lower case, in the order sent
    length: int
    host: str | None


class Owner(Protocol):
    """What a connection needs of its server."""

    limits: Limits
    loop: asyncio.AbstractEventLoop

    def admit(self, conn: Connection) -> bool: ...
    def forget(self, conn: Connection) -> None: ...
    def hosts_allow(self, host: str | None) -> bool: ...
    def dispatch(self, conn: Connection, req: Request, body: bytes) -> None: ...
    def stream_resumed(self, conn: Connection) -> None: ...


def error_body(message: str) -> bytes:
    return json.dumps({"error": message}).encode()


def screen_head(head: bytes, limits: Limits) -> None:
    """Refuse what h11 would let through or answer less precisely (``head`` ends with the blank
    line): bare LFs, control characters, line folds, too many fields, odd targets and versions."""
    if _BARE_LF.search(head):
        raise Refused(400, "a request head's lines must end with CR LF")
    lines = head[:-4].split(b"\r\n")
    parts = lines[0].split(b" ")
    if len(parts) != 3 or not _TOKEN.match(parts[0]):
        raise Refused(400, "malformed request line")
    _method, target, version = parts
    if version not in (b"HTTP/1.1", b"HTTP/1.0"):
        raise Refused(505 if version.startswith(b"HTTP/") else 400, "HTTP/1.1 only")
    if not _TARGET.match(target) or len(target) > 4096:
        raise Refused(400, "the request target must be a path such as /api/state")
    if len(lines) - 1 > limits.max_headers:
        raise Refused(431, f"more than {limits.max_headers} header fields")
    for line in lines[1:]:
        if line[:1] in (b" ", b"\t"):
            raise Refused(400, "folded header lines are not accepted")
        if _CONTROL.search(line):
            raise Refused(400, "control character in a header field")


def parse_head(head: bytes, limits: Limits) -> tuple[h11.Connection, Request]:
    """Screen and parse one request head; its h11 connection (for the body and the response)
    and the request. Refused if the head is bad."""
    screen_head(head, limits)
    h = h11.Connection(h11.SERVER, max_incomplete_event_size=limits.max_head + 4)
    h.receive_data(head)
    try:
        event = h.next_event()
    except h11.RemoteProtocolError as exc:
        raise Refused(exc.error_status_hint, f"malformed request: {exc}") from None
    if not isinstance(event, h11.Request):
        raise Refused(400, "malformed request")
    headers = [(bytes(k).decode("ascii"), bytes(v).decode("latin-1")) for k, v in event.headers]
    names = {k for k, _ in headers}
    if "transfer-encoding" in names:
        raise Refused(501, "chunked request bodies are not accepted: send Content-Length")
    length = next((int(v) for k, v in headers if k == "content-length"), 0)
    target = bytes(event.target)
    path, _, query = target.partition(b"?")
    return h, Request(bytes(event.method).decode("ascii"), target.decode("ascii"), path, query,
                      "HTTP/" + bytes(event.http_version).decode("ascii"), headers, length,
                      next((v for k, v in headers if k == "host"), None))


class Connection(asyncio.Protocol):
    """One client connection (see the module docstring for its life)."""

    def __init__(self, owner: Owner) -> None:
        self.owner = owner
        self.limits = owner.limits
        self.loop = owner.loop
        self.transport: asyncio.Transport | None = None
        self.addr = "?"
        self.port = 0
        self.key = "?"
        self.buf = bytearray()
        self.state = WAITING
        self.timer: asyncio.TimerHandle | None = None
        self.started = 0.0  # loop time of the current request's first byte
        self.h: h11.Connection | None = None
        self.request: Request | None = None
        self.body = bytearray()
        self.paused = False  # the transport's buffer is above its high-water mark
        self.paused_at = 0.0
        self.since = self.loop.time()  # when it last got anywhere (see blocked_for)
        self.running = False  # its request is in the app (not waiting for its turn)
        self.stale = False  # (event streams) a frame was left out while paused
        self.close_after = False
        self.stream_in = 0
        self._drained: asyncio.Future[None] | None = None

    # -- asyncio callbacks --------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        peer = transport.get_extra_info("peername")
        if peer:
            self.addr, self.port = str(peer[0]), int(peer[1])
        self.key = address_key(self.addr)
        sock = transport.get_extra_info("socket")
        if sock is not None:  # the kernel's share of what a client has not read yet
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        if self.owner.admit(self):
            self._wait_request()

    def data_received(self, data: bytes) -> None:
        if self.state == STREAM:  # an event stream's client has nothing to say
            self.stream_in += len(data)
            if self.stream_in > 4096:
                self.abort()
            return
        if self.state == CLOSING:
            return
        self.buf += data
        if self.state in (WAITING, READING):
            try:
                self._advance()
            except Refused as exc:
                self.fail(exc.status, exc.message)
        elif len(self.buf) > self.limits.max_head + self.limits.max_body:
            self._transport().pause_reading()

    def eof_received(self) -> bool:
        if self.state == APP:  # half-closed after the request: still answer it
            self.close_after = True
            return True
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_timer()
        self.state = CLOSING
        self.owner.forget(self)
        self._wake_writer()

    def pause_writing(self) -> None:
        self.paused = True
        self.paused_at = self.loop.time()

    def resume_writing(self) -> None:
        self.paused = False
        self.since = self.loop.time()
        if self.state == STREAM:
            self.owner.stream_resumed(self)
        self._wake_writer()

    # -- reading requests ---------------------------------------------------------------------

    def blocked_for(self, now: float) -> float:
        """How long the connection has been holding its slot without getting anywhere: a
        writer whose client takes nothing, since its buffer filled; a request waiting for its
        turn at the app, since it arrived; a connection waiting for or reading a request, since
        it began to wait; a closing connection, since it began to close. A response being
        produced or drained, and a live event stream, are getting somewhere: 0."""
        if self.paused and self.state in (APP, STREAM, CLOSING):
            return now - self.paused_at
        if self.state == STREAM or (self.state == APP and self.running):
            return 0.0
        return now - self.since

    def _wait_request(self) -> None:
        self.state = WAITING
        self.running = False
        self.since = self.loop.time()
        self.h = None
        self.request = None
        self.body = bytearray()
        self._arm(self.limits.idle_timeout, self.close)
        if self.buf:
            try:
                self._advance()
            except Refused as exc:
                self.fail(exc.status, exc.message)

    def _advance(self) -> None:
        limits = self.limits
        if self.state == WAITING:
            while self.buf[:2] == b"\r\n":  # tolerated before a request line
                del self.buf[:2]
            if not self.buf:
                return
            self.state = READING
            self.started = self.loop.time()
            self._arm(limits.head_timeout, self._head_expired)
        if self.request is None:
            end = self.buf.find(b"\r\n\r\n", 0, limits.max_head + 4)
            seen = self.buf[:end] if end >= 0 else self.buf[:limits.max_head + 4]
            if _BARE_LF.search(seen):
                raise Refused(400, "a request head's lines must end with CR LF")
            if end < 0:
                if len(self.buf) > limits.max_head:
                    raise Refused(431, f"the request head is larger than {limits.max_head} bytes")
                return
            head = bytes(self.buf[:end + 4])
            del self.buf[:end + 4]
            self.h, self.request = parse_head(head, limits)
            self._admit_request(self.request)
        self._read_body()

    def _admit_request(self, req: Request) -> None:
        limits = self.limits
        if not self.owner.hosts_allow(req.host):
            raise Refused(403, f"this server does not answer to the name {req.host!r}: "
                               "add it to allowed_hosts in the [web] section of the config")
        if req.length > limits.max_body:
            raise Refused(413, f"the request body is larger than {limits.max_body} bytes")
        if req.length:
            left = self.started + limits.request_timeout - self.loop.time()
            self._arm(max(0.0, left), self._request_expired)
            assert self.h is not None
            if self.h.they_are_waiting_for_100_continue and len(self.buf) < req.length:
                go_on = h11.InformationalResponse(status_code=100, headers=[])
                self.write(self.h.send(go_on) or b"")

    def _read_body(self) -> None:
        h, req = self.h, self.request
        assert h is not None and req is not None
        take = min(len(self.buf), req.length - len(self.body))
        if take:
            h.receive_data(bytes(self.buf[:take]))
            del self.buf[:take]
        while True:
            try:
                event = h.next_event()
            except h11.RemoteProtocolError as exc:
                raise Refused(exc.error_status_hint, f"malformed request: {exc}") from None
            if event is h11.NEED_DATA:
                return
            if isinstance(event, h11.Data):
                self.body += event.data
            elif isinstance(event, h11.EndOfMessage):
                break
        self.state = APP
        self.since = self.loop.time()
        self._cancel_timer()
        self._transport().pause_reading()
        self.owner.dispatch(self, req, bytes(self.body))

    # -- writing responses --------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        if data and self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def start_response(self, status: int, reason: str, headers: list[tuple[str, str]]) -> bool:
        """Send the head of the response to the current request (its body follows with
        :meth:`send_body`, then :meth:`end_response`). False if the connection is gone."""
        if self.state != APP or self.h is None:
            return False
        out = [(k, v) for k, v in headers if k.lower() not in HOP_BY_HOP and k.lower() != "date"]
        out.append(("Date", formatdate(usegmt=True)))
        if self.close_after:
            out.append(("Connection", "close"))
        self.write(self.h.send(h11.Response(status_code=status, headers=out,
                                            reason=reason.encode("latin-1"))) or b"")
        return True

    async def send_body(self, data: bytes) -> bool:
        """Write ``data`` in slices, waiting for the client to take each; False if the
        connection is gone (or the client took no data for ``write_stall``)."""
        req = self.request
        if req is None or req.method == "HEAD" or self.h is None:
            return self.state == APP
        for at in range(0, len(data), SLICE):
            if self.state != APP:
                return False
            self.write(self.h.send(h11.Data(data=data[at:at + SLICE])) or b"")
            if self.paused and not await self._drain():
                return False
        return self.state == APP

    def end_response(self) -> None:
        """The response is complete: read the next request or close."""
        if self.state != APP or self.h is None:
            return
        self.write(self.h.send(h11.EndOfMessage()) or b"")
        if self.close_after or self.h.our_state is not h11.DONE or \
                self.h.their_state is not h11.DONE:
            self.close()
            return
        self._transport().resume_reading()
        self._wait_request()

    async def respond(self, status: str, headers: list[tuple[str, str]], body: bytes) -> None:
        """One whole response from a WSGI-style status line."""
        code, _, reason = status.partition(" ")
        if self.start_response(int(code), reason, headers) and await self.send_body(body):
            self.end_response()

    async def _drain(self) -> bool:
        """Wait for the client to take what was written; a client that takes nothing for
        ``write_stall`` seconds is a slow reader (or none: a tiny window, never read) and is
        dropped, its slot and its turn at the app freed."""
        self._drained = self.loop.create_future()
        try:
            await asyncio.wait_for(self._drained, self.limits.write_stall)
        except TimeoutError:
            self.abort(reset=True)
            return False
        finally:
            self._drained = None
        return self.state == APP

    def _wake_writer(self) -> None:
        if self._drained is not None and not self._drained.done():
            self._drained.set_result(None)

    def fail(self, status: int, message: str) -> None:
        """Answer a refused request with a JSON error and close the connection."""
        if self.state == CLOSING or self.transport is None:
            return
        body = b"" if self.request is not None and self.request.method == "HEAD" \
            else error_body(message)
        head = (f"HTTP/1.1 {status} {REASONS.get(status, 'Error')}\r\n"
                "Content-Type: application/json\r\nCache-Control: no-store\r\n"
                f"X-Content-Type-Options: nosniff\r\nContent-Length: {len(error_body(message))}"
                f"\r\nDate: {formatdate(usegmt=True)}\r\nConnection: close\r\n\r\n")
        self.write(head.encode("latin-1") + body)
        self.close()

    def close(self) -> None:
        """Close once what was written has gone out (or abort after ``write_timeout``)."""
        if self.state != CLOSING:
            self.since = self.loop.time()
        self.state = CLOSING
        self._wake_writer()
        if self.transport is not None:
            self.transport.close()
            self._arm(self.limits.write_timeout, lambda: self.abort(reset=True))

    def abort(self, reset: bool = False) -> None:
        """Drop the connection now, whatever is unsent. ``reset``: for a client that does not
        read, with a reset, so that the kernel too frees what the client did not take (a
        plain close would keep it, and retry it, for minutes behind a window that stays
        shut)."""
        self.state = CLOSING
        self.owner.forget(self)  # at once: its place is free for the next one
        self._cancel_timer()
        self._wake_writer()
        if self.transport is not None:
            sock = self.transport.get_extra_info("socket") if reset else None
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _RESET)
            self.transport.abort()

    def become_stream(self) -> None:
        """From now on the connection carries an event stream (no more requests)."""
        self.state = STREAM
        self.h = None

    # -- timers -------------------------------------------------------------------------------

    def _transport(self) -> asyncio.Transport:
        assert self.transport is not None
        return self.transport

    def _arm(self, delay: float, action: Callable[[], None]) -> None:
        self._cancel_timer()
        self.timer = self.loop.call_later(delay, action)

    def _cancel_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _head_expired(self) -> None:
        self.fail(408, f"the request head did not arrive within {self.limits.head_timeout:g} s")

    def _request_expired(self) -> None:
        self.fail(408, "the request (head and body) did not arrive within "
                       f"{self.limits.request_timeout:g} s")
