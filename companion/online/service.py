"""The online client: one network thread that logs in to a hnefatafl.org server, keeps the
lobby, opens and joins games, plays the board's game (or follows a game of two others on the
board) and reconnects by itself.

Every other thread only enqueues (:meth:`OnlineService.call`) and reads the published
snapshot (:meth:`OnlineService.status`): nothing here ever blocks the session's loop thread
or a web thread. What happens in the board's game goes to the session as
:data:`~companion.session.remote.RemoteEvent`s (:mod:`companion.online.player`). The
account's login, its connection and the server's login back-off are
:class:`~companion.online.login.ServerLogin`'s; the lines are read by
:class:`~companion.online.table.GameTable`.
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

from companion.session.remote import RemoteEvent

from .account import Account, OnlineConfig
from .connection import MAX_LINE, LineConnection, LinkError
from .lobby import Lobby
from .login import CONNECT_WAITS, LOGIN_WAITS, MARGIN, ServerLogin
from .protocol import SIZE_OF_VARIANT, clean_chat, parse_time_control
from .table import GameTable

log = logging.getLogger("companion.online")

#: The share of the time the client's thread may spend handling the server's lines, and the
#: CPU time it handles them in one go before it rests (see OnlineService._handle_lines).
PARSE_SHARE = 0.2
PARSE_SLICE = 0.01


class OnlineService:
    """The client of one server for one account (see the module's docstring)."""

    def __init__(self, config: OnlineConfig, data_dir: Path | None = None, *,
                 login_waits: tuple[float, ...] = LOGIN_WAITS,
                 connect_waits: tuple[float, ...] = CONNECT_WAITS,
                 ping_every: float = 10.0, silence: float = 30.0,
                 answer_timeout: float = 15.0, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time) -> None:
        # the login's waits run on ``clock``/``wall`` (a fake clock in the tests); the games'
        # clocks (companion.online.server_game) read the real ones
        self.clock = clock
        self.config = config
        self.server = config.server
        self.state = "connecting"
        self.message: str | None = None
        self.code: str | None = None        # the message's id (the page's words for it)
        self.server_login = ServerLogin(
            config, data_dir, self, login_waits=login_waits, connect_waits=connect_waits,
            ping_every=ping_every, silence=silence, answer_timeout=answer_timeout,
            clock=clock, wall=wall)
        if self.server_login.account is None:
            self.state = "off"
        self.lobby = Lobby()
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
        self._rest_until = 0.0          # handle no lines before (the parse budget)
        self.lines_handled = 0
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
        self.server_login.drop(None)
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
            self.server_login.use(Account(user, password), create)
            self.lobby.clear()
            self.state = "connecting"
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

    def watch(self, game_id: int) -> None:
        """Follow a game in progress on the board (both sides' moves as moves to make)."""
        if isinstance(game_id, bool) or not isinstance(game_id, int) or game_id < 0:
            raise ValueError("id must be the number of a game in progress")
        self._need_login(("lobby", "seeking", "watching"))
        self.call(lambda: self.table.watch_game(game_id))

    def unwatch(self) -> None:
        """Stop following the watched game (the board is free again)."""
        self.call(self.table.watch.stop)

    def chat(self, text: str) -> None:
        """Say something in the game's chat."""
        message = clean_chat(text)
        if message:
            self.call(lambda: self.table.play.send_chat(message))

    def _need_login(self, states: tuple[str, ...] = ("lobby", "seeking")) -> None:
        status = self.status().get("status")
        if status == "watching" and status not in states:
            raise ValueError("stop watching the game first")
        if status not in states:
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
                self.server_login.drop("an unexpected error in the online client (see the log)")

    def _step(self) -> None:
        while True:
            try:
                self._commands.get_nowait()()
            except queue.Empty:
                break
        login = self.server_login
        if login.due(self.clock()):
            login.open()
        now = self.clock()
        if login.conn is not None and login.keepalive(now):
            self.table.timers(now)
        readers: list[socket.socket | LineConnection] = [self._wake_r]
        writers: list[LineConnection] = []
        # the parse budget's rest is real time (a share of the CPU), never the login's clock
        real_now = time.monotonic()
        resting = real_now < self._rest_until
        timeout = 0.25
        if login.conn is not None:
            if login.conn.wants_read and not resting:
                readers.append(login.conn)
            if login.conn.wants_write:
                writers.append(login.conn)
            if resting:
                timeout = min(timeout, self._rest_until - real_now)
            elif not login.conn.wants_read:
                timeout = 0.0          # lines read and not handled yet: handle them first
        if login.conn is None and login.next_try is not None:
            timeout = min(timeout, max(0.0, login.next_try - self.clock()))
        readable, writable, _ = select.select(readers, writers, [], timeout)
        if self._wake_r in readable:
            try:
                while self._wake_r.recv(4096):
                    pass
            except (BlockingIOError, InterruptedError):
                pass
        conn = login.conn
        if conn is None:
            return
        try:
            if conn in writable:
                conn.flush()
            if conn in readable or conn.ended:
                dropped = conn.dropped
                conn.read()
                if conn.dropped != dropped:
                    self.note(f"dropped a line longer than {MAX_LINE // 2**20} MiB from the "
                              "server (the link goes on)", "line_too_long")
            if not resting:
                self._handle_lines(conn)
            if login.conn is conn:
                conn.flush()
        except LinkError as exc:
            if login.conn is conn:
                self.lost(str(exc))

    def _handle_lines(self, conn: LineConnection) -> None:
        """Handle the lines read, for at most :data:`PARSE_SLICE` of this thread's CPU time,
        then rest (neither reading nor handling) long enough that handling lines takes at most
        :data:`PARSE_SHARE` of the time: a server that floods the client with huge lines gets
        them read at the pace the client can afford, and the board's scan loop (another thread
        of the same interpreter) keeps its rate."""
        t0 = time.thread_time()
        spent = 0.0
        while (line := conn.next_line()) is not None:
            self.table.handle_line(line)
            self.lines_handled += 1
            spent = time.thread_time() - t0
            if self.server_login.conn is not conn or spent >= PARSE_SLICE:
                break
        if spent > 0.0:
            self._rest_until = time.monotonic() + spent * (1.0 / PARSE_SHARE - 1.0)

    def send(self, line: str) -> None:
        """Queue a line for the server (dropped, with a status, when there is no link)."""
        self.server_login.send(line)

    def lost(self, reason: str) -> None:
        """The link broke: reconnect after a short wait (a login back-off applies later)."""
        log.info("online: %s", reason)
        self.server_login.drop(reason)
        self.table.link_lost()
        if self.server_login.account is not None and not self._stop.is_set():
            self.server_login.retry_in(1.0 + MARGIN, f"{reason}; reconnecting", "link_lost")

    # -- the login, for the game's parts (network thread) ------------------------------------
    @property
    def logged_in(self) -> bool:
        return self.server_login.logged_in

    @property
    def lag(self) -> float:
        return self.server_login.lag

    @property
    def user(self) -> str | None:
        return self.server_login.user

    def logged_in_ok(self) -> None:
        self.server_login.succeeded()

    def login_failed(self, code: str, message: str, retry: bool, until: float | None = None
                     ) -> None:
        self.server_login.failed(code, message, retry, until)

    def pong(self) -> None:
        self.server_login.pong()

    def note(self, message: str, code: str | None = None) -> None:
        """A message for the page about something the client did, ignored or dropped."""
        log.info("online: %s", message)
        self.message, self.code = message, code
        self._publish()

    def publish(self) -> None:
        self._publish()

    def _publish(self) -> None:
        login = self.server_login
        rating = self.lobby.ratings.get(self.user) if self.user else None
        snap: dict[str, object] = {
            "status": self.state, "server": self.server, "user": self.user, "rating": rating,
            "open_games": self.lobby.open_games(self.user) if self.logged_in else [],
            "live_games": self.lobby.live_games(self.user) if self.logged_in else [],
            "game": self.table.game_status(), "error": login.error, "message": self.message,
            "code": self.code, "error_code": login.error_code,
            "retry_in": (round(max(0.0, login.next_try - self.clock()), 1)
                         if login.next_try is not None and login.conn is None else None),
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
