"""The online client: one network thread that logs in to a hnefatafl.org server, keeps the
lobby, opens and joins games, plays the board's game and reconnects by itself.

Every other thread only enqueues (:meth:`OnlineService.call`) and reads the published
snapshot (:meth:`OnlineService.status`): nothing here ever blocks the session's loop thread
or a web thread. What happens in the board's game goes to the session as
:data:`~companion.session.remote.RemoteEvent`s (:mod:`companion.online.player`).

Login discipline (the server's own rules): one connection per account; after a failed login
the server makes the next attempt wait 1, 2, 4, 8, 16 s and then 30 minutes, so a failing
login is retried on exactly that schedule and a refused one (wrong password, wrong protocol
version) is not retried at all until the owner logs in again.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import select
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

from companion.session.remote import RemoteEvent, RemoteStatus

from .account import Account, AccountFile, OnlineConfig
from .connection import LineConnection, LinkError, split_address
from .lobby import Lobby
from .protocol import SIZE_OF_VARIANT, clean_chat, login_line, parse_time_control
from .table import GameTable

log = logging.getLogger("companion.online")

#: The server's waits after 1, 2, 3, 4, 5, 6+ failed logins (seconds).
LOGIN_WAITS = (1.0, 2.0, 4.0, 8.0, 16.0, 1800.0)
#: Waits between attempts to reach a server that does not answer at all.
CONNECT_WAITS = (2.0, 4.0, 8.0, 15.0, 30.0, 60.0)
MARGIN = 0.5


class OnlineService:
    """The client of one server for one account (see the module's docstring)."""

    def __init__(self, config: OnlineConfig, data_dir: Path | None = None, *,
                 login_waits: tuple[float, ...] = LOGIN_WAITS,
                 connect_waits: tuple[float, ...] = CONNECT_WAITS,
                 ping_every: float = 10.0, silence: float = 30.0,
                 answer_timeout: float = 15.0) -> None:
        self.config = config
        self.server = config.server
        self.host, self.port = split_address(config.server)
        self.accounts = AccountFile(data_dir)
        stored = self.accounts.load()
        if stored is None and config.user is not None:
            stored = Account(config.user, config.password or "")
        self.account: Account | None = stored
        self._create = False
        self.login_waits, self.connect_waits = login_waits, connect_waits
        self.ping_every, self.silence, self.answer_timeout = ping_every, silence, answer_timeout
        self.lobby = Lobby()
        self.conn: LineConnection | None = None
        self.logged_in = False
        self.state = "off" if stored is None else "connecting"
        self.error: str | None = None
        self.message: str | None = None
        self.failures = 0           # failed logins since the last success
        self.unreachable = 0        # failed connects in a row
        self.next_try: float | None = time.monotonic() if stored else None
        self.lag = 0.0
        self._ping_sent: float | None = None
        self._last_ping = 0.0
        self._login_sent: float | None = None
        self._commands: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._lock = threading.Lock()
        self._snapshot: dict[str, object] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._inbox: Callable[[RemoteEvent], None] | None = None
        self._early: list[RemoteEvent] = []
        self.table = GameTable(self)
        self._publish()

    # -- any thread -----------------------------------------------------------------------
    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="online", daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Stop the thread and close the connection cleanly (the server then frees the
        account at once, instead of answering the next login ``logged_in_already``)."""
        self._stop.set()
        self._wake()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._drop(None)
        for sock in (self._wake_r, self._wake_w):
            sock.close()

    def call(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the network thread (never blocks)."""
        self._commands.put(fn)
        self._wake()

    def connect_inbox(self, inbox: Callable[[RemoteEvent], None]) -> None:
        self.call(lambda: self._set_inbox(inbox))

    def status(self) -> dict[str, object]:
        """The published snapshot (GET /api/online)."""
        with self._lock:
            return dict(self._snapshot)

    def login(self, user: str, password: str, create: bool = False) -> None:
        """Log in (or create the account) with new credentials; checked by the caller."""
        def apply() -> None:
            self.account, self._create = Account(user, password), create
            self.error = None
            self._drop(None)
            self.lobby.clear()
            self.state = "connecting"
            self.next_try = max(time.monotonic(), self.next_try or 0.0)
            self._publish()
        self.call(apply)

    def seek(self, side: str, variant: str, rated: bool, time_control: str) -> None:
        """Open a game on the server (ValueError naming a bad field)."""
        if side not in ("attackers", "defenders"):
            raise ValueError("side must be attackers or defenders")
        if variant not in SIZE_OF_VARIANT:
            raise ValueError(f"variant must be one of {', '.join(SIZE_OF_VARIANT)}")
        if not isinstance(rated, bool):
            raise ValueError("rated must be true or false")
        control = parse_time_control(time_control)
        self._need_login()
        size = SIZE_OF_VARIANT[variant]
        self.call(lambda: self.table.seek(side, size, rated, control))

    def join(self, game_id: int) -> None:
        """Ask for the free seat of an open game."""
        if isinstance(game_id, bool) or not isinstance(game_id, int) or game_id < 0:
            raise ValueError("id must be the number of an open game")
        self._need_login()
        self.call(lambda: self.table.join(game_id))

    def leave(self) -> None:
        """Withdraw a seek or a request to join."""
        self.call(self.table.leave)

    def chat(self, text: str) -> None:
        """Say something in the game's chat."""
        message = clean_chat(text)
        if message:
            self.call(lambda: self.table.play.send_chat(message))

    def _need_login(self) -> None:
        if self.status().get("status") not in ("lobby", "seeking"):
            raise ValueError("log in first (and finish the game being played)")

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            self._wake_w.send(b"x")

    # -- the network thread -----------------------------------------------------------------
    def _set_inbox(self, inbox: Callable[[RemoteEvent], None]) -> None:
        self._inbox = inbox
        early, self._early = self._early, []
        for event in early:
            inbox(event)

    def emit(self, event: RemoteEvent) -> None:
        if self._inbox is None:
            if len(self._early) < 1000:
                self._early.append(event)
            return
        self._inbox(event)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._step()
            except Exception:  # noqa: BLE001  (the thread must survive anything)
                log.exception("online: unexpected error; reconnecting")
                self._drop("an unexpected error in the online client (see the log)")

    def _step(self) -> None:
        while True:
            try:
                self._commands.get_nowait()()
            except queue.Empty:
                break
        now = time.monotonic()
        if self.conn is None and self.account is not None and self.next_try is not None \
                and now >= self.next_try:
            self._open()
        self._timers(time.monotonic())
        readers: list[socket.socket | LineConnection] = [self._wake_r]
        writers: list[LineConnection] = []
        if self.conn is not None:
            readers.append(self.conn)
            if self.conn.wants_write:
                writers.append(self.conn)
        timeout = 0.25
        if self.conn is None and self.next_try is not None:
            timeout = min(timeout, max(0.0, self.next_try - time.monotonic()))
        readable, writable, _ = select.select(readers, writers, [], timeout)
        if self._wake_r in readable:
            try:
                while self._wake_r.recv(4096):
                    pass
            except (BlockingIOError, InterruptedError):
                pass
        conn = self.conn
        if conn is None:
            return
        try:
            if conn in writable:
                conn.flush()
            if conn in readable:
                dropped = conn.dropped
                for line in conn.receive():
                    self.table.handle_line(line)
                    if self.conn is not conn:
                        return
                if conn.dropped != dropped:
                    self.note("dropped a line longer than 4 MiB from the server")
            conn.flush()
        except LinkError as exc:
            if self.conn is conn:
                self._lost(str(exc))

    def _timers(self, now: float) -> None:
        conn = self.conn
        if conn is None:
            return
        if not self.logged_in:
            if self._login_sent is not None and now - self._login_sent > self.answer_timeout:
                self._lost("the server did not answer the login")
            return
        if self._ping_sent is not None and now - self._ping_sent > self.silence:
            self._lost(f"the server stopped answering (no answer for {self.silence:.0f} s)")
            return
        if self._ping_sent is None and now - self._last_ping >= self.ping_every:
            self._ping_sent = self._last_ping = now
            self.send("ping")
        self.table.timers(now)

    def _open(self) -> None:
        assert self.account is not None
        self.next_try = None
        self.state = "connecting" if self.failures == 0 else "reconnecting"
        self.message = f"connecting to {self.server}"
        self._publish()
        try:
            self.conn = LineConnection(self.host, self.port, timeout=10.0)
        except LinkError as exc:
            wait = self.connect_waits[min(self.unreachable, len(self.connect_waits) - 1)]
            self.unreachable += 1
            self._retry_in(wait, f"{exc}; trying again in {wait:.0f} s", "unreachable")
            return
        self.unreachable = 0
        self.logged_in = False
        self._ping_sent = None
        self._login_sent = time.monotonic()
        self.conn.send(login_line(self.config.version, self.account.user, self.account.password,
                                  self._create))

    def send(self, line: str) -> None:
        """Queue a line for the server (dropped, with a status, when there is no link)."""
        if self.conn is None:
            return
        try:
            self.conn.send(line)
        except LinkError as exc:
            self._lost(str(exc))

    def _retry_in(self, wait: float, message: str, code: str) -> None:
        self.next_try = time.monotonic() + wait
        self.state = "reconnecting"
        self.message = message
        self.emit(RemoteStatus("reconnecting", message, code, {"retry_in": wait}))
        self._publish()

    def _drop(self, reason: str | None) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None
        self.logged_in = False
        self._ping_sent = None
        self._login_sent = None
        if reason:
            self.message = reason

    def _lost(self, reason: str) -> None:
        """The link broke: reconnect after a short wait (a login back-off applies later)."""
        log.info("online: %s", reason)
        self._drop(reason)
        self.table.link_lost()
        if self.account is not None and not self._stop.is_set():
            self._retry_in(1.0 + MARGIN, f"{reason}; reconnecting", "link_lost")

    def login_failed(self, code: str, message: str, retry: bool, until: float | None = None
                     ) -> None:
        """A refused login: retry on the server's schedule, or stop with a clear message."""
        self._drop(None)
        if not retry:
            self.state, self.error, self.message = "error", message, message
            self.next_try = None
            self.emit(RemoteStatus("error", message, code))
            self._publish()
            return
        if until is not None:  # retried_too_soon: wait until then; this attempt did not count
            wait = max(0.0, until - time.time()) + MARGIN
        else:
            wait = self.login_waits[min(self.failures, len(self.login_waits) - 1)] + MARGIN
            self.failures += 1
        self._retry_in(wait, f"{message}; trying again in {wait:.0f} s", code)

    def logged_in_ok(self) -> None:
        self.logged_in = True
        self.failures = 0
        self.error = None
        self._login_sent = None
        self._last_ping = time.monotonic()
        if self.account is not None:
            try:
                self.accounts.save(self.account)
            except OSError as exc:
                self.note(f"could not keep the account in the data directory: {exc.strerror}")
        self._create = False
        self.message = f"logged in to {self.server} as {self.user}"
        self.emit(RemoteStatus("connected", self.message, "logged_in"))

    def pong(self) -> None:
        if self._ping_sent is not None:
            rtt = time.monotonic() - self._ping_sent
            self.lag = rtt / 2 if self.lag == 0.0 else 0.7 * self.lag + 0.3 * rtt / 2
            self._ping_sent = None

    @property
    def user(self) -> str | None:
        return self.account.user if self.account else None

    def note(self, message: str) -> None:
        """A message for the page about something the client ignored or dropped."""
        log.info("online: %s", message)
        self.message = message
        self._publish()

    def publish(self) -> None:
        self._publish()

    def _publish(self) -> None:
        rating = self.lobby.ratings.get(self.user) if self.user else None
        snap: dict[str, object] = {
            "status": self.state, "server": self.server, "user": self.user, "rating": rating,
            "open_games": self.lobby.open_games(self.user) if self.logged_in else [],
            "game": self.table.game_status(), "error": self.error, "message": self.message,
            "retry_in": (round(max(0.0, self.next_try - time.monotonic()), 1)
                         if self.next_try is not None and self.conn is None else None),
            "lag_ms": round(self.lag * 1000), "unencrypted": True,
        }
        snap.update(self.table.extra_status())
        with self._lock:
            self._snapshot = snap


def open_online(config: OnlineConfig, data_dir: Path | None) -> OnlineService:
    """The daemon's online client, started (idle until an account is known)."""
    service = OnlineService(config, data_dir)
    service.start()
    return service
