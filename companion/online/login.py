"""The account's login on the server: the connection it runs on, logging in (or creating the
account), the server's login back-off, the keepalive ping (the link's lag, a silent server)
and dropping the connection. Runs on the network thread of
:class:`~companion.online.service.OnlineService` (its ``client``).

Login discipline (the server's own rules): one connection per account; after a failed login
the server makes the next attempt wait 1, 2, 4, 8, 16 s and then 30 minutes, so a failing
login is retried on exactly that schedule and a refused one (wrong password, wrong protocol
version) is not retried at all until the owner logs in again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from companion.session.remote import RemoteEvent, RemoteStatus

from .account import Account, AccountFile, OnlineConfig
from .connection import LineConnection, LinkError, split_address
from .protocol import login_line

log = logging.getLogger("companion.online")

#: The server's waits after 1, 2, 3, 4, 5, 6+ failed logins (seconds).
LOGIN_WAITS = (1.0, 2.0, 4.0, 8.0, 16.0, 1800.0)
#: Waits between attempts to reach a server that does not answer at all.
CONNECT_WAITS = (2.0, 4.0, 8.0, 15.0, 30.0, 60.0)
MARGIN = 0.5


class LoginClient(Protocol):
    """What the login needs of the client that owns it: the page's status, the session's
    inbox, and the client's handling of a broken link."""

    state: str
    message: str | None
    code: str | None

    def emit(self, event: RemoteEvent) -> None: ...
    def note(self, message: str, code: str | None = None) -> None: ...
    def publish(self) -> None: ...
    def lost(self, reason: str) -> None: ...


class ServerLogin:
    """One account's login on one server (see the module's docstring)."""

    def __init__(self, config: OnlineConfig, data_dir: Path | None, client: LoginClient, *,
                 login_waits: tuple[float, ...], connect_waits: tuple[float, ...],
                 ping_every: float, silence: float, answer_timeout: float,
                 clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time) -> None:
        # every wait here (back-off, ping, silence, the login's answer) reads these clocks
        # (a fake one in the tests, which then count ``attempts`` to prove a login NOT retried)
        self.clock, self.wall = clock, wall
        self.config = config
        self.server = config.server
        self.host, self.port = split_address(config.server)
        self.client = client
        self.accounts = AccountFile(data_dir)
        stored = self.accounts.load()
        if stored is None and config.user is not None:
            stored = Account(config.user, config.password or "")
        self.account: Account | None = stored
        self._create = False
        self.login_waits, self.connect_waits = login_waits, connect_waits
        self.ping_every, self.silence, self.answer_timeout = ping_every, silence, answer_timeout
        self.conn: LineConnection | None = None
        self.logged_in = False
        self.error: str | None = None
        self.error_code: str | None = None
        self.failures = 0           # failed logins since the last success
        self.unreachable = 0        # failed connects in a row
        self.attempts = 0           # connections opened (or tried), ever
        self.next_try: float | None = clock() if stored else None
        self.lag = 0.0
        self._ping_sent: float | None = None
        self._last_ping = 0.0
        self._login_sent: float | None = None

    @property
    def user(self) -> str | None:
        return self.account.user if self.account else None

    def use(self, account: Account, create: bool) -> None:
        """New credentials (from the page): the connection is dropped and opened again."""
        self.account, self._create = account, create
        self.error = self.error_code = None
        self.drop(None)
        self.next_try = max(self.clock(), self.next_try or 0.0)

    def due(self, now: float) -> bool:
        """Whether a connection is to be opened now."""
        return self.conn is None and self.account is not None and self.next_try is not None \
            and now >= self.next_try

    def open(self) -> None:
        """Connect and send the login (a failed connect is tried again later)."""
        assert self.account is not None
        client = self.client
        self.next_try = None
        client.state = "connecting" if self.failures == 0 else "reconnecting"
        client.message, client.code = f"connecting to {self.server}", "connecting"
        client.publish()
        self.attempts += 1
        try:
            self.conn = LineConnection(self.host, self.port, timeout=10.0)
        except LinkError as exc:
            wait = self.connect_waits[min(self.unreachable, len(self.connect_waits) - 1)]
            self.unreachable += 1
            self.retry_in(wait, f"{exc}; trying again in {wait:.0f} s", "unreachable")
            return
        self.unreachable = 0
        self.logged_in = False
        self._ping_sent = None
        self._login_sent = self.clock()
        self.conn.send(login_line(self.config.version, self.account.user, self.account.password,
                                  self._create))

    def send(self, line: str) -> None:
        """Queue a line for the server (dropped when there is no link; a broken one is lost)."""
        if self.conn is None:
            return
        try:
            self.conn.send(line)
        except LinkError as exc:
            self.client.lost(str(exc))

    def keepalive(self, now: float) -> bool:
        """The login's answer and the ping: False while not logged in or once the server fell
        silent (the link is then lost)."""
        if not self.logged_in:
            if self._login_sent is not None and now - self._login_sent > self.answer_timeout:
                self.client.lost("the server did not answer the login")
            return False
        if self._ping_sent is not None and now - self._ping_sent > self.silence:
            self.client.lost(f"the server stopped answering (no answer for {self.silence:.0f} s)")
            return False
        if self._ping_sent is None and now - self._last_ping >= self.ping_every:
            self._ping_sent = self._last_ping = now
            self.send("ping")
        return True

    def pong(self) -> None:
        """``= ping``: the round trip updates the link's lag (half of it, smoothed)."""
        if self._ping_sent is not None:
            rtt = self.clock() - self._ping_sent
            self.lag = rtt / 2 if self.lag == 0.0 else 0.7 * self.lag + 0.3 * rtt / 2
            self._ping_sent = None

    def retry_in(self, wait: float, message: str, code: str) -> None:
        """Open the connection again in ``wait`` seconds (said on the page and to the session)."""
        self.next_try = self.clock() + wait
        client = self.client
        client.state = "reconnecting"
        client.message, client.code = message, code
        client.emit(RemoteStatus("reconnecting", message, code, {"retry_in": wait}))
        client.publish()

    def drop(self, reason: str | None) -> None:
        """Close the connection (``reason``: the page's message)."""
        if self.conn is not None:
            self.conn.close()
            self.conn = None
        self.logged_in = False
        self._ping_sent = None
        self._login_sent = None
        if reason:
            self.client.message, self.client.code = reason, None

    def failed(self, code: str, message: str, retry: bool, until: float | None = None) -> None:
        """A refused login: retry on the server's schedule, or stop with a clear message."""
        self.drop(None)
        client = self.client
        if not retry:
            client.state, self.error, client.message = "error", message, message
            self.error_code = client.code = code
            self.next_try = None
            client.emit(RemoteStatus("error", message, code))
            client.publish()
            return
        if until is not None:  # retried_too_soon: wait until then; this attempt did not count
            wait = max(0.0, until - self.wall()) + MARGIN
        else:
            wait = self.login_waits[min(self.failures, len(self.login_waits) - 1)] + MARGIN
            self.failures += 1
        self.retry_in(wait, f"{message}; trying again in {wait:.0f} s", code)

    def succeeded(self) -> None:
        """``= login``: the account is kept in the data directory; the failures are forgiven."""
        self.logged_in = True
        self.failures = 0
        self.error = self.error_code = None
        self._login_sent = None
        self._last_ping = self.clock()
        if self.account is not None:
            try:
                self.accounts.save(self.account)
            except OSError as exc:
                self.client.note(
                    f"could not keep the account in the data directory: {exc.strerror}")
        self._create = False
        client = self.client
        client.message = f"logged in to {self.server} as {self.user}"
        client.code = "logged_in"
        client.emit(RemoteStatus("connected", client.message, "logged_in"))
