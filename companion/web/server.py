"""The daemon's HTTP server: h11 for HTTP/1.1, one asyncio thread for every socket, a few threads
for the Flask app.

The protocol (parsing, framing, keep-alive) is h11's (:mod:`companion.web.connection`); what is
the project's own is the admission policy that held under attack:

- each client address (IPv6: its /64) may hold ``per_address`` connections; when all
  ``max_connections`` are taken, one connection is closed to admit the new one, whatever it is
  doing: of the address that holds the most connections, the one blocked the longest (a
  response its client does not read, a request waiting for its turn, a connection waiting for
  or trickling a request), so neither trickling connections nor pipelined requests that are
  never read can lock out a real page; a response whose client takes nothing for
  ``write_stall`` seconds is dropped;
- a complete request goes to the Flask app (WSGI) on a pool of ``workers`` threads (never on the
  event loop); its response is written as the app produces it, in slices that wait for the
  client to take them (bounded memory per connection, however large the answer);
- ``GET /api/events`` (Server-Sent Events) is served by :class:`~companion.web.stream.EventStream`
  without a thread: each new state is encoded once and written to every live socket; ``HEAD``
  takes no slot, and a closed connection frees its slot at once;
- the ``Host`` header must name this daemon (:class:`~companion.web.auth.HostCheck`).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote_to_bytes

from companion.token_bucket import TokenBucket
from companion.web.connection import APP, Connection, Request
from companion.web.errors import ErrorLog
from companion.web.limits import DEFAULT_LIMITS, Limits
from companion.web.stream import EventStream, Hub

__all__ = ["DEFAULT_LIMITS", "EVENTS_PATH", "Limits", "WebServer", "bind"]

if TYPE_CHECKING:  # PEP 3333's environ: the CGI variables and wsgi.* (a dict of any values)
    from _typeshed.wsgi import WSGIEnvironment

log = logging.getLogger("companion.web")

EVENTS_PATH = b"/api/events"
SWITCH_INTERVAL = 0.001  # seconds (sys.setswitchinterval), see WebServer.start
THIS_MACHINE = frozenset({"127.0.0.1", "::/64"})  # address keys of this machine's own clients
WsgiApp = Callable[["WSGIEnvironment", Callable[..., Any]], Iterable[bytes]]


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host`` (an IPv4 or IPv6 address or a name; ``::`` also takes
    IPv4 where the system allows it); OSError if it cannot be had."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    dual = host == "::" and socket.has_dualstack_ipv6()
    return socket.create_server((host, port), family=family, backlog=256, dualstack_ipv6=dual)


class AppCall:
    """One call of the WSGI app: :meth:`start` runs it to its first chunk, :meth:`more` pulls
    the next ones (both on a worker thread)."""

    def __init__(self, app: WsgiApp, environ: WSGIEnvironment) -> None:
        self.app = app
        self.environ = environ
        self.status = ""
        self.headers: list[tuple[str, str]] = []
        self.result: Iterable[bytes] = ()
        self.chunks: Iterator[bytes] = iter(())

    def _start_response(self, status: str, headers: list[tuple[str, str]],
                        exc_info: object = None) -> Callable[[bytes], None]:
        self.status, self.headers = status, headers

        def write(data: bytes) -> None:  # the legacy write() callable: not used by Flask
            raise RuntimeError("write() is not supported: return the body")

        return write

    def start(self) -> bytes:
        self.result = self.app(self.environ, self._start_response)
        self.chunks = iter(self.result)
        first = self.more()
        if not self.status:
            raise RuntimeError("the app did not start a response")
        return first

    def more(self) -> bytes:
        for chunk in self.chunks:
            if chunk:
                return chunk
        return b""

    def close(self) -> None:
        close = getattr(self.result, "close", None)
        if close is not None:
            close()


class Turns:
    """Each address's turns at the app: at most ``limits.app_per_address`` of its requests
    running, ``limits.requests_rate`` a second after a burst; the rest wait in order (their
    connections read nothing meanwhile), so one device's flood neither fills the app's threads
    nor costs CPU to refuse, and the other devices' requests go first. The machine's own
    loopback address (:data:`THIS_MACHINE`) has no rate: it is not a device on the network."""

    def __init__(self, loop: asyncio.AbstractEventLoop, limits: Limits,
                 start: Callable[[Connection, Request, bytes], None]) -> None:
        self.loop = loop
        self.limits = limits
        self.start = start
        self.waiting: dict[str, deque[tuple[Connection, Request, bytes]]] = {}
        self.running: dict[str, int] = {}
        self.tokens: dict[str, TokenBucket] = {}  # by address
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self.delayed = 0  # requests that waited for their turn (for tests and the bench)

    def add(self, conn: Connection, req: Request, body: bytes) -> None:
        queue = self.waiting.setdefault(conn.key, deque())
        queue.append((conn, req, body))
        if len(queue) > 1 or not self._go(conn.key):
            self.delayed += 1

    def done(self, key: str) -> None:
        """A request of ``key`` has finished: start its next one if it may."""
        self.release(key)
        self._go(key)

    def release(self, key: str) -> None:
        n = self.running.get(key, 1) - 1
        if n > 0:
            self.running[key] = n
        else:
            self.running.pop(key, None)

    def _go(self, key: str) -> bool:
        """Start what ``key`` may start now; True if its queue emptied."""
        queue = self.waiting.get(key)
        limits = self.limits
        while queue:
            conn, req, body = queue[0]
            if conn.state != APP:  # the client left while waiting
                queue.popleft()
                continue
            if self.running.get(key, 0) >= limits.app_per_address:
                return False
            now = self.loop.time()
            bucket = self.tokens.get(key)
            if bucket is None or key in THIS_MACHINE:  # (its own scripts, a watchdog, the
                # benches: no rate)
                bucket = self.tokens[key] = TokenBucket.full(
                    float(limits.requests_burst), limits.requests_rate, now)
            if bucket.refill(now) < 1.0:
                if key not in self._timers:
                    self._timers[key] = self.loop.call_later(bucket.wait(1.0), self._timer, key)
                return False
            bucket.take(1.0)
            queue.popleft()
            self.running[key] = self.running.get(key, 0) + 1
            self.start(conn, req, body)
        self.waiting.pop(key, None)
        if len(self.tokens) > 4 * self.limits.max_connections:
            self._forget_full()
        return True

    def _timer(self, key: str) -> None:
        self._timers.pop(key, None)
        self._go(key)

    def _forget_full(self) -> None:
        """Drop the buckets that have refilled (a device that comes back starts full anyway)."""
        now = self.loop.time()
        for key, bucket in list(self.tokens.items()):
            if bucket.is_full(now):
                del self.tokens[key]


class WebServer:
    """Serves the WSGI ``app`` and the live event stream of ``hub`` on ``host``:``port``.

    The socket is bound in the constructor (OSError if it cannot be); :meth:`start` runs the
    server in a thread "web", :meth:`close` stops it."""

    def __init__(self, app: WsgiApp, hub: Hub, host: str, port: int, *,
                 limits: Limits | None = None,
                 allow_host: Callable[[str | None], bool] | None = None) -> None:
        self.app = app
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
        self.stream = EventStream(self.loop, self.limits, hub)
        self.connections: set[Connection] = set()
        self.per_address: dict[str, int] = {}
        self.pending = 0  # requests queued or running in the app pool
        self._large: set[Connection] = set()  # connections holding a large (import) body
        self.turns = Turns(self.loop, self.limits, self._start_app)
        self._tasks: set[asyncio.Task[None]] = set()
        self._server: asyncio.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    # -- running --------------------------------------------------------------------------------

    def start(self) -> None:
        # A thread that computes (a Flask request making a QR code) holds the interpreter for
        # up to the switch interval whenever another wants it: 5 ms by default, half a tick of
        # the 100 Hz scan loop. 1 ms gives the loop and the event loop their turn sooner.
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
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
            if not self.loop.is_closed() and not self.loop.is_running():
                self.loop.close()
            return
        done = threading.Event()

        def shut() -> None:
            self.stream.stop()
            if self._server is not None:
                self._server.close()
            for conn in list(self.connections):
                conn.abort()
            for task in list(self._tasks):
                task.cancel()
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
            victim = self._eviction_victim()
            if victim is not None:
                victim.abort(reset=True)
            if len(self.connections) >= limits.max_connections:
                conn.fail(503, "the server is full: try again shortly")
                return False
        self.connections.add(conn)
        self.per_address[conn.key] = n + 1
        return True

    def _eviction_victim(self) -> Connection | None:
        """The connection to close for a new one, whatever its state: of the addresses holding
        the most connections (what an address costs), the connection that has been blocked the
        longest (:meth:`Connection.blocked_for`: a writer whose client reads nothing, a request
        waiting for its turn, a connection waiting for a request). A connection that is getting
        somewhere is closed only for an address that holds more than its share (``per_address``
        / 4), so a few devices with many slow connections cannot keep a new one out."""
        now = self.loop.time()
        best: Connection | None = None
        rank = (0, 0.0)
        for conn in self.connections:
            mine = (self.per_address.get(conn.key, 0), conn.blocked_for(now))
            if mine > rank:
                best, rank = conn, mine
        if best is None or (rank[1] <= 0.0 and rank[0] <= self.limits.per_address // 4):
            return None
        return best

    def forget(self, conn: Connection) -> None:
        if conn in self.connections:
            self.connections.discard(conn)
            n = self.per_address.get(conn.key, 1) - 1
            if n > 0:
                self.per_address[conn.key] = n
            else:
                self.per_address.pop(conn.key, None)
        self.stream.remove(conn)

    def hold_large(self, conn: Connection, yes: bool) -> bool:
        """Take (``yes``) or give back one of the ``limits.large_bodies`` places for a body over
        ``max_body`` (an import); False when none is free."""
        if not yes:
            self._large.discard(conn)
            return True
        if conn not in self._large and len(self._large) >= self.limits.large_bodies:
            return False
        self._large.add(conn)
        return True

    def hosts_allow(self, host: str | None) -> bool:
        return self.allow_host is None or self.allow_host(host)

    def stream_resumed(self, conn: Connection) -> None:
        self.stream.resumed(conn)

    # -- requests --------------------------------------------------------------------------------

    def dispatch(self, conn: Connection, req: Request, body: bytes) -> None:
        """A whole request has arrived on ``conn`` (on the loop)."""
        if req.path == EVENTS_PATH and req.method in ("GET", "HEAD"):
            self.stream.open(conn, head_only=req.method == "HEAD")
            return
        self.turns.add(conn, req, body)

    def _start_app(self, conn: Connection, req: Request, body: bytes) -> None:
        if self.pending >= self.limits.max_pending:
            conn.fail(503, "the server is busy: try again shortly")
            self.turns.release(conn.key)
            return
        self.pending += 1
        conn.running = True
        task = self.loop.create_task(self._serve_app(conn, req, body))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _serve_app(self, conn: Connection, req: Request, body: bytes) -> None:
        call = AppCall(self.app, self.environ(conn, req, body))
        try:
            try:
                chunk = await self.loop.run_in_executor(self.pool, call.start)
            except Exception as exc:
                self.errors.error(f"app {type(exc).__name__}", f"error serving {req.method} "
                                  f"{req.target[:200]}: {type(exc).__name__}: {exc}", exc)
                conn.fail(500, f"internal error: {type(exc).__name__}")
                return
            code, _, reason = call.status.partition(" ")
            if not conn.start_response(int(code), reason, call.headers):
                return  # the client has gone
            while chunk:
                if not await conn.send_body(chunk):
                    return
                try:
                    chunk = await self.loop.run_in_executor(self.pool, call.more)
                except Exception as exc:  # the head is out: all that is left is to hang up
                    self.errors.error(f"app body {type(exc).__name__}", "error in the body of "
                                      f"{req.method} {req.target[:200]}: {exc}", exc)
                    conn.abort()
                    return
            conn.end_response()
        finally:
            self.pending -= 1
            with contextlib.suppress(Exception):
                call.close()
            self.turns.done(conn.key)

    def environ(self, conn: Connection, req: Request, body: bytes) -> WSGIEnvironment:
        env: WSGIEnvironment = {
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
