"""Helpers for the online tests: the test server with its accounts, a daemon process pointed at
it, a scripted second account speaking the protocol on a raw socket (the opponent), and an inbox
that records the client's RemoteEvents."""

from __future__ import annotations

import json
import queue
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from hnefatafl_double import HnefataflDouble
from test_daemon_support import PATIENCE, PIN, DaemonProcess, control, http, spawn_daemon, wait_for

from companion.session.remote import RemoteEvent

VERSION_ID = "32d9a140"


def serving(*accounts: tuple[str, str] | tuple[str, str, float]) -> Iterator[HnefataflDouble]:
    """The protocol-faithful test server with these accounts (user, password[, rating]), for a
    fixture to ``yield from``: it stops when the fixture ends."""
    double = HnefataflDouble().start()
    for account in accounts:
        double.add_account(*account)
    try:
        yield double
    finally:
        double.stop()


def spawn_online_daemon(tmp_path: Path, server: HnefataflDouble, *args: str,
                        login: tuple[str, str] | None = None,
                        variant: str | None = None) -> tuple[DaemonProcess, str]:
    """A daemon process (its config and data in ``tmp_path``, its web on a free loopback port)
    whose online client talks to ``server``, logging in at start as ``login`` (user, password)
    when given; ``args`` are more of its command line."""
    config = tmp_path / "config.toml"
    text = f'pin = "{PIN}"\n'
    if variant is not None:
        text += f'variant = "{variant}"\n'
    text += f'[web]\nhost = "127.0.0.1"\nport = 0\n[online]\nserver = "{server.address}"\n'
    if login is not None:
        text += f'user = "{login[0]}"\npassword = "{login[1]}"\n'
    config.write_text(text)
    return spawn_daemon(["--config", str(config), "--data-dir", str(tmp_path / "data"), *args])


def online(base: str) -> dict:
    """The daemon's ``GET /api/online``."""
    return json.loads(http(base + "api/online")[2])


def log_in(base: str, user: str = "alice", password: str = "pw alice") -> None:
    """The owner logs in through the API; back once the client is in the lobby."""
    assert control(base, "api/online/login", {"user": user, "password": password})[0] == 200
    wait_for(lambda: online(base)["status"] == "lobby", what="the lobby")


class Opponent:
    """Another account on the server, driven line by line by a test."""

    def __init__(self, address: str, user: str, password: str = "pw",
                 create: bool = False) -> None:
        host, port = address.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=5)
        # no timeout on reading: a quiet spell (a daemon restarting on a loaded machine) must not
        # end the reader thread (it did, after 5 s: every later line was lost to the test)
        self.sock.settimeout(None)
        self.user = user
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        self.send(f"{VERSION_ID} {'create_account' if create else 'login'} {user} {password}")
        self.expect(lambda line: line == "= login")

    def _read(self) -> None:
        buf = b""
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return
                buf += chunk
                while b"\n" in buf:
                    raw, buf = buf.split(b"\n", 1)
                    self.lines.put(raw.decode())
        except OSError:
            return

    def send(self, line: str) -> None:
        self.sock.sendall(line.encode() + b"\n")

    def expect(self, pred: Callable[[str], bool], timeout: float = PATIENCE) -> str:
        """The first line (after the last one taken) that satisfies ``pred``."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{self.user}: no such line; seen last: {self.seen[-8:]}")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            self.seen.append(line)
            if pred(line):
                return line

    def close(self) -> None:
        self.sock.close()


def join_seek(base: str, opponent: Opponent, seek: str) -> int:
    """``opponent`` seeks a game (``seek``: the JSON of its ``new_game`` line), the daemon at
    ``base`` joins it through the API and the opponent accepts: the server's id of the game."""
    opponent.send(f"new_game {seek}")
    game_id = int(opponent.expect(lambda line: line.startswith("= new_game")).split()[2])
    wait_for(lambda: any(g["id"] == game_id for g in online(base)["open_games"]),
             what=f"{opponent.user}'s seek")
    assert control(base, "api/online/join", {"id": game_id})[0] == 200
    opponent.expect(lambda line: line.startswith("= challenge_requested"))
    opponent.send(f"join_game {game_id}")
    return game_id


class Inbox:
    """Records the RemoteEvents handed in (thread-safe), as the session's inbox would."""

    def __init__(self) -> None:
        self.events: list[RemoteEvent] = []
        self.cond = threading.Condition()

    def __call__(self, event: RemoteEvent) -> None:
        with self.cond:
            self.events.append(event)
            self.cond.notify_all()

    def wait_for(self, kind: type, pred: Callable[[object], bool] = lambda e: True,
                 timeout: float = PATIENCE) -> RemoteEvent:
        end = time.monotonic() + timeout
        with self.cond:
            while True:
                for event in self.events:
                    if isinstance(event, kind) and pred(event):
                        self.events.remove(event)
                        return event
                left = end - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no {kind.__name__}; got {self.events[-8:]}")
                self.cond.wait(left)

    def of(self, kind: type) -> list[RemoteEvent]:
        with self.cond:
            return [e for e in self.events if isinstance(e, kind)]


def settle(service) -> None:
    """Two whole turns of the online client's network thread: what it had to do when this was
    called (its commands, whatever fell due on its clock) is done."""
    for _ in range(2):
        turned = threading.Event()
        service.call(turned.set)
        assert turned.wait(PATIENCE), "the online client's thread did not turn"


_syncs = iter(range(1, 1 << 30))


def flushed(service, server, user: str = "alice") -> None:
    """Every line the client was asked to send before this call has reached ``server`` (or was
    never sent): a ``ping`` queued behind them, on the same connection and so in order, is in
    the server's log. A test proves a line NOT sent by looking after this, never by sleeping."""
    mark = f"ping sync-{next(_syncs)}"
    service.call(lambda: service.send(mark))
    wait_until(lambda: mark in server.received(user), what=f"{mark!r} at the server")


def handled(service, server, user: str = "alice") -> None:
    """Every line ``server`` sent ``user`` before this call has been handled by the client: a
    line it does not know, sent behind them on the same connection (and so read after them),
    has been counted as ignored. A test proves an event NOT raised by looking after this,
    never by sleeping."""
    before = service.status()["ignored"]
    server.inject(user, f"tafl-test-sync {next(_syncs)}")
    wait_until(lambda: service.status()["ignored"] > before, what="the sync line handled")


def wait_until(pred: Callable[[], object], timeout: float = PATIENCE, what: str = "") -> object:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = pred()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what or pred}")
