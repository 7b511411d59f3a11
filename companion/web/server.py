"""The daemon's HTTP server: one asyncio thread for every socket, a few threads for the app.

Why not a stock WSGI server: a thread-per-connection server (waitress) ties a thread and an
ever-growing buffer to every live page, and a connection that trickles its request head holds a
slot until a long idle timeout. Here every connection is a small state machine on one event loop:

- a request head must arrive whole within ``head_timeout`` (slowloris gets a 408 and the door),
  at most ``max_head`` bytes; a body is read only with a ``Content-Length`` up to ``max_body``;
- each client address (IPv6: its /64) may hold ``per_address`` connections; when all
  ``max_connections`` are taken, the connection that has waited longest for a request head is
  closed to admit the new one, so trickling connections cannot lock out a real page;
- a complete request goes to the Flask app (WSGI) on a pool of ``workers`` threads, its
  response is collected and written by the loop; the next request on the connection is read only
  once that response is in the socket (bounded memory per connection);
- ``GET /api/events`` (Server-Sent Events) is served by :class:`~companion.web.stream.EventStream`
  without a thread: each new state is encoded once and written to every live socket; ``HEAD``
  takes no slot, and a closed connection frees its slot at once;
- the ``Host`` header must name this daemon (:class:`~companion.web.auth.HostCheck`).

Everything the server refuses gets a short JSON ``{"error": ...}`` and the connection closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import re
import socket
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from email.utils import formatdate
from typing import Any
from urllib.parse import unquote_to_bytes

from companion.web.auth import address_key
from companion.web.errors import ErrorLog
from companion.web.stream import EventStream

log = logging.getLogger("companion.web")

EVENTS_PATH = "/api/events"


@dataclass(frozen=True)
class Limits:
    """The server's bounds (seconds, bytes, counts)."""

    max_connections: int = 512
    per_address: int = 32
    head_timeout: float = 10.0
    body_timeout: float = 10.0
    idle_timeout: float = 30.0
    write_timeout: float = 30.0
    max_head: int = 8192
    max_headers: int = 64
    max_body: int = 16 * 1024
    max_response: int = 16 * 1024 * 1024
    workers: int = 6
    max_pending: int = 64
    max_streams: int = 400
    streams_per_address: int = 16
    keepalive: float = 15.0
    stall_timeout: float = 60.0


DEFAULT_LIMITS = Limits()

_TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+\Z")
_TARGET = re.compile(rb"/[\x21-\x7e]*\Z")
_REASONS = {200: "OK", 400: "Bad Request", 403: "Forbidden", 404: "Not Found",
            408: "Request Timeout", 413: "Content Too Large",
            431: "Request Header Fields Too Large", 500: "Internal Server Error",
            501: "Not Implemented", 503: "Service Unavailable", 505: "HTTP Version Not Supported"}


class HeadError(Exception):
    """A request head the server refuses: answered with ``status`` and the connection closed."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Request:
    """A parsed request head."""

    method: str
    target: str
    path: bytes
    query: bytes
    version: str
    headers: list[tuple[str, str]]
    length: int
    keep_alive: bool
    expect_continue: bool
    host: str | None


def parse_head(head: bytes, max_headers: int) -> Request:
    """Parse a request head (without the blank line) strictly; HeadError if it is bad."""
    lines = head.split(b"\r\n")
    parts = lines[0].split(b" ")
    if len(parts) != 3:
        raise HeadError(400, "malformed request line")
    method, target, version = parts
    if not _TOKEN.match(method):
        raise HeadError(400, "malformed request method")
    if version not in (b"HTTP/1.1", b"HTTP/1.0"):
        raise HeadError(505 if version.startswith(b"HTTP/") else 400, "HTTP/1.1 only")
    if not _TARGET.match(target) or len(target) > 4096:
        raise HeadError(400, "the request target must be a path such as /api/state")
    if len(lines) - 1 > max_headers:
        raise HeadError(431, f"more than {max_headers} header fields")
    headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if not sep or not _TOKEN.match(name):
            raise HeadError(400, "malformed header field")
        if any(c < 0x20 and c != 0x09 or c == 0x7F for c in value):
            raise HeadError(400, "control character in a header field")
        headers.append((name.decode("ascii").lower(), value.strip(b" \t").decode("latin-1")))
    one: dict[str, str] = {}
    for key, text in headers:
        if key in ("host", "content-length") and key in one and one[key] != text:
            raise HeadError(400, f"conflicting {key} header fields")
        one.setdefault(key, text)
    if "transfer-encoding" in one:
        raise HeadError(501, "chunked request bodies are not accepted: send Content-Length")
    length = 0
    if "content-length" in one:
        raw = one["content-length"]
        if not raw.isdigit() or not raw.isascii() or len(raw) > 12:
            raise HeadError(400, "malformed Content-Length")
        length = int(raw)
    tokens = {t.strip().lower() for t in one.get("connection", "").split(",")}
    keep = "close" not in tokens if version == b"HTTP/1.1" else "keep-alive" in tokens
    host = one.get("host")
    if version == b"HTTP/1.1" and host is None:
        raise HeadError(400, "HTTP/1.1 requests need a Host header field")
    path, _, query = target.partition(b"?")
    return Request(method.decode("ascii"), target.decode("ascii"), path, query,
                   version.decode("ascii"), headers, length, keep,
                   one.get("expect", "").lower() == "100-continue", host)


def run_app(app: Callable[..., Any], environ: dict[str, Any],
            max_response: int) -> tuple[str, list[tuple[str, str]], bytes]:
    """Call the WSGI ``app`` and collect its whole response (on a worker thread)."""
    started: list[Any] = []
    chunks: list[bytes] = []

    def start_response(status: str, headers: list[tuple[str, str]],
                       exc_info: Any = None) -> Callable[[bytes], None]:
        started[:] = [status, headers]
        return chunks.append

    result = app(environ, start_response)
    try:
        size = 0
        for chunk in result:
            if chunk:
                chunks.append(chunk)
                size += len(chunk)
                if size > max_response:
                    raise RuntimeError(f"response larger than {max_response} bytes")
    finally:
        close = getattr(result, "close", None)
        if close is not None:
            close()
    if not started:
        raise RuntimeError("the app did not start a response")
    return started[0], started[1], b"".join(chunks)


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host`` (an IPv4 or IPv6 address or a name; ``::`` also takes
    IPv4 where the system allows it); OSError if it cannot be had."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    dual = host == "::" and socket.has_dualstack_ipv6()
    return socket.create_server((host, port), family=family, backlog=256, dualstack_ipv6=dual)


def error_body(message: str) -> bytes:
    return json.dumps({"error": message}).encode()


# connection states
IDLE, HEAD, BODY, APP, WRITE, STREAM, CLOSING = range(7)


class Connection(asyncio.Protocol):
    """One client connection (see the module docstring for its life)."""

    def __init__(self, server: WebServer) -> None:
        self.server = server
        self.limits = server.limits
        self.loop = server.loop
        self.transport: asyncio.Transport | None = None
        self.addr = "?"
        self.port = 0
        self.key = "?"
        self.buf = bytearray()
        self.state = IDLE
        self.timer: asyncio.TimerHandle | None = None
        self.paused = False  # the socket's send buffer is full
        self.paused_at = 0.0
        self.stale = False  # (event streams) a state was left out while paused
        self.request: Request | None = None
        self.close_after = False
        self.eof = False
        self.stream_in = 0

    # -- asyncio callbacks --------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        peer = transport.get_extra_info("peername")
        if peer:
            self.addr, self.port = str(peer[0]), int(peer[1])
        self.key = address_key(self.addr)
        if self.server.admit(self):
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
        if self.state in (IDLE, HEAD, BODY):
            self._advance()
        elif len(self.buf) > self.limits.max_head + self.limits.max_body:
            self.transport.pause_reading()  # type: ignore[union-attr]

    def eof_received(self) -> bool:
        self.eof = True
        if self.state in (APP, WRITE):  # half-closed after the request: still answer it
            self.close_after = True
            return True
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_timer()
        if self.state == STREAM:
            self.server.stream.remove(self)
        self.state = CLOSING
        self.server.forget(self)

    def pause_writing(self) -> None:
        self.paused = True
        self.paused_at = self.loop.time()

    def resume_writing(self) -> None:
        self.paused = False
        if self.state == STREAM and self.stale:
            self.stale = False
            self.write(self.server.stream.frame)
        elif self.state == WRITE:
            self._response_sent()

    # -- reading requests ---------------------------------------------------------------------

    def _wait_request(self) -> None:
        self.state = IDLE
        self.request = None
        self.server.waiting(self, True)
        self._arm(self.limits.idle_timeout, self._idle_expired)
        if self.buf:
            self._advance()

    def _advance(self) -> None:
        limits = self.limits
        if self.state == IDLE:
            while self.buf.startswith(b"\r\n"):  # tolerated before a request line
                del self.buf[:2]
            if not self.buf:
                return
            self.state = HEAD
            self._arm(limits.head_timeout, self._head_expired)
        if self.state == HEAD:
            end = self.buf.find(b"\r\n\r\n", 0, limits.max_head + 4)
            if end < 0:
                if len(self.buf) > limits.max_head:
                    self.fail(431, f"the request head is larger than {limits.max_head} bytes")
                return
            head = bytes(self.buf[:end])
            del self.buf[:end + 4]
            try:
                req = parse_head(head, limits.max_headers)
            except HeadError as exc:
                self.fail(exc.status, exc.message)
                return
            self.request = req
            self.server.waiting(self, False)
            if not self.server.hosts_allow(req.host):
                self.fail(403, f"this server does not answer to the name {req.host!r}: "
                               "add it to allowed_hosts in the [web] section of the config")
                return
            if req.length > limits.max_body:
                self.fail(413, f"the request body is larger than {limits.max_body} bytes")
                return
            if req.length:
                self.state = BODY
                self._arm(limits.body_timeout, self._body_expired)
                if req.expect_continue and len(self.buf) < req.length:
                    self.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        current = self.request
        assert current is not None
        if len(self.buf) < current.length:  # (state BODY) the rest of the body is to come
            return
        body = bytes(self.buf[:current.length])
        del self.buf[:current.length]
        self._dispatch(current, body)

    def _dispatch(self, req: Request, body: bytes) -> None:
        self.state = APP
        self._cancel_timer()
        self.transport.pause_reading()  # type: ignore[union-attr]
        if req.path == EVENTS_PATH.encode() and req.method in ("GET", "HEAD"):
            self.server.stream.open(self, head_only=req.method == "HEAD")
            return
        self.server.call_app(self, req, body)

    # -- writing responses --------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def respond(self, status: str, headers: list[tuple[str, str]], body: bytes,
                close: bool = False) -> None:
        """Send one whole response to the current request."""
        if self.state == CLOSING or self.transport is None:
            return
        req = self.request
        close = close or self.close_after or req is None or not req.keep_alive
        code = int(status[:3])
        out = [f"HTTP/1.1 {status}\r\n"]
        length = None
        for name, value in headers:
            low = name.lower()
            if low in ("connection", "keep-alive", "transfer-encoding"):
                continue
            if low == "content-length":
                length = value
                continue
            out.append(f"{name}: {value}\r\n")
        bodiless = code < 200 or code in (204, 304)
        head_only = req is not None and req.method == "HEAD"
        if not bodiless:
            if head_only:
                if length is not None:
                    out.append(f"Content-Length: {length}\r\n")
            else:
                out.append(f"Content-Length: {len(body)}\r\n")
        out.append(f"Date: {formatdate(usegmt=True)}\r\n")
        if close:
            out.append("Connection: close\r\n")
        out.append("\r\n")
        data = "".join(out).encode("latin-1")
        if not bodiless and not head_only:
            data += body
        self.write(data)
        if close:
            self.close()
            return
        self.state = WRITE
        if self.paused:  # wait until the client has taken most of it
            self._arm(self.limits.write_timeout, self.abort)
        else:
            self._response_sent()

    def _response_sent(self) -> None:
        self.transport.resume_reading()  # type: ignore[union-attr]
        self._wait_request()

    def fail(self, status: int, message: str) -> None:
        """Answer a refused request with a JSON error and close the connection."""
        self.respond(f"{status} {_REASONS.get(status, 'Error')}",
                     [("Content-Type", "application/json"), ("Cache-Control", "no-store"),
                      ("X-Content-Type-Options", "nosniff")],
                     error_body(message), close=True)

    def close(self) -> None:
        """Close once what was written has gone out (or abort after ``write_timeout``)."""
        if self.state == STREAM:
            self.server.stream.remove(self)
        self.state = CLOSING
        self.server.waiting(self, False)
        if self.transport is not None:
            self.transport.close()
            self._arm(self.limits.write_timeout, self.abort)

    def abort(self) -> None:
        """Drop the connection now, whatever is unsent."""
        if self.state == STREAM:
            self.server.stream.remove(self)
        self.state = CLOSING
        self.server.forget(self)  # at once: its place is free for the next one
        self._cancel_timer()
        if self.transport is not None:
            self.transport.abort()

    # -- timers -------------------------------------------------------------------------------

    def _arm(self, delay: float, action: Callable[[], None]) -> None:
        self._cancel_timer()
        self.timer = self.loop.call_later(delay, action)

    def _cancel_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _idle_expired(self) -> None:
        self.close()

    def _head_expired(self) -> None:
        self.fail(408, f"the request head did not arrive within {self.limits.head_timeout:g} s")

    def _body_expired(self) -> None:
        self.fail(408, f"the request body did not arrive within {self.limits.body_timeout:g} s")


class WebServer:
    """Serves the WSGI ``app`` and the live event stream of ``hub`` on ``host``:``port``.

    The socket is bound in the constructor (OSError if it cannot be); :meth:`start` runs the
    server in a thread "web", :meth:`close` stops it."""

    def __init__(self, app: Callable[..., Any], hub: Any, host: str, port: int, *,
                 limits: Limits | None = None,
                 allow_host: Callable[[str | None], bool] | None = None) -> None:
        self.app = app
        self.hub = hub
        self.limits = limits or DEFAULT_LIMITS
        self.allow_host = allow_host
        self.errors = ErrorLog(log)
        self.sock = bind(host, port)
        self.sock.setblocking(False)
        self.host = host
        self.port = int(self.sock.getsockname()[1])
        self.loop = asyncio.new_event_loop()
        self.pool = ThreadPoolExecutor(max_workers=self.limits.workers,
                                       thread_name_prefix="web-app")
        self.stream = EventStream(self, hub)
        self.connections: set[Connection] = set()
        self.per_address: dict[str, int] = {}
        self._waiting: OrderedDict[Connection, None] = OrderedDict()
        self.pending = 0  # requests queued or running in the app pool
        self._server: asyncio.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    # -- running --------------------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="web", daemon=True)
        self._thread.start()
        self._ready.wait(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)

        async def serve() -> None:
            self._server = await self.loop.create_server(lambda: Connection(self), sock=self.sock)
            self.stream.start()
            self._ready.set()

        self.loop.run_until_complete(serve())
        try:
            self.loop.run_forever()
        finally:
            with contextlib.suppress(Exception):
                self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.close()

    def close(self) -> None:
        """Stop accepting, drop every connection, stop the loop and the app threads."""
        if self._thread is None or not self._thread.is_alive():
            self.sock.close()
            self.pool.shutdown(wait=False, cancel_futures=True)
            return
        done = threading.Event()

        def shut() -> None:
            self.stream.stop()
            if self._server is not None:
                self._server.close()
            for conn in list(self.connections):
                conn.abort()
            self.loop.call_soon(self.loop.stop)
            done.set()

        self.loop.call_soon_threadsafe(shut)
        done.wait(5)
        self._thread.join(5)
        self.pool.shutdown(wait=False, cancel_futures=True)
        with contextlib.suppress(OSError):
            self.sock.close()

    def cpu_seconds(self) -> float:
        """CPU time used so far by the server's event-loop thread (not the app threads)."""
        if self._thread is None or self._thread.ident is None:
            return 0.0
        return time.clock_gettime(time.pthread_getcpuclockid(self._thread.ident))

    @property
    def live_streams(self) -> int:
        """How many event-stream clients are connected now."""
        return len(self.stream.clients)

    # -- connections ---------------------------------------------------------------------------

    def admit(self, conn: Connection) -> bool:
        """Count a new connection in, or refuse it (per-address and global limits)."""
        limits = self.limits
        n = self.per_address.get(conn.key, 0)
        if n >= limits.per_address:
            conn.fail(503, "too many connections from your address")
            return False
        if len(self.connections) >= limits.max_connections:
            if self._waiting:  # the one that has waited longest for a request head goes
                victim = next(iter(self._waiting))
                victim.abort()
            if len(self.connections) >= limits.max_connections:
                conn.fail(503, "the server is full: try again shortly")
                return False
        self.connections.add(conn)
        self.per_address[conn.key] = n + 1
        return True

    def forget(self, conn: Connection) -> None:
        if conn in self.connections:
            self.connections.discard(conn)
            n = self.per_address.get(conn.key, 1) - 1
            if n > 0:
                self.per_address[conn.key] = n
            else:
                self.per_address.pop(conn.key, None)
        self._waiting.pop(conn, None)

    def waiting(self, conn: Connection, yes: bool) -> None:
        """Track connections waiting for a request head (oldest first)."""
        if yes and conn in self.connections:
            self._waiting[conn] = None
            self._waiting.move_to_end(conn)
        else:
            self._waiting.pop(conn, None)

    def hosts_allow(self, host: str | None) -> bool:
        return self.allow_host is None or self.allow_host(host)

    # -- the app -------------------------------------------------------------------------------

    def environ(self, conn: Connection, req: Request, body: bytes) -> dict[str, Any]:
        env: dict[str, Any] = {
            "REQUEST_METHOD": req.method,
            "SCRIPT_NAME": "",
            "PATH_INFO": unquote_to_bytes(req.path).decode("latin-1"),
            "QUERY_STRING": req.query.decode("latin-1"),
            "RAW_URI": req.target,
            "REQUEST_URI": req.target,
            "SERVER_NAME": self.host,
            "SERVER_PORT": str(self.port),
            "SERVER_PROTOCOL": req.version,
            "REMOTE_ADDR": conn.addr,
            "REMOTE_PORT": str(conn.port),
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(body),
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
            "wsgi.input_terminated": True,
        }
        for name, value in req.headers:
            if "_" in name:  # X_Tafl_Pin must not pass for X-Tafl-Pin
                continue
            if name == "content-type":
                env["CONTENT_TYPE"] = value
            elif name == "content-length":
                env["CONTENT_LENGTH"] = value
            else:
                key = "HTTP_" + name.upper().replace("-", "_")
                env[key] = f"{env[key]}, {value}" if key in env else value
        return env

    def call_app(self, conn: Connection, req: Request, body: bytes) -> None:
        if self.pending >= self.limits.max_pending:
            conn.fail(503, "the server is busy: try again shortly")
            return
        self.pending += 1
        env = self.environ(conn, req, body)
        fut = self.loop.run_in_executor(self.pool, run_app, self.app, env,
                                        self.limits.max_response)
        fut.add_done_callback(lambda f: self._app_done(conn, req, f))

    def _app_done(self, conn: Connection, req: Request,
                  fut: asyncio.Future[tuple[str, list[tuple[str, str]], bytes]] | Future[Any]
                  ) -> None:
        self.pending -= 1
        if conn.state != APP or conn.request is not req:
            return  # the client has gone
        try:
            status, headers, body = fut.result()
        except Exception as exc:
            self.errors.error(f"app {type(exc).__name__}", f"error serving {req.method} "
                              f"{req.target[:200]}: {type(exc).__name__}: {exc}", exc)
            conn.fail(500, f"internal error: {type(exc).__name__}")
            return
        conn.respond(status, headers, body)
