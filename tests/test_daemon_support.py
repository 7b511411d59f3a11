"""Shared helpers for the daemon, web and crash tests (imported by them), plus tests of the
helpers themselves: a running in-process daemon (with the real tracker), subprocess daemons,
and clean sensor traces made from move lists."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

from companion.config import DaemonConfig, with_overrides
from companion.rules import get_variant
from companion.simulator import tidy_trace

PIN = "2468"

#: How long a wait may last before the test fails. A wait ends as soon as its condition holds, so
#: this costs nothing when things work; on a machine busy with other work (CI, a shared developer
#: machine) a daemon may take many seconds to start, answer or move on, and a test must not fail
#: for that. Tests never assert how fast something happens: that is bench/'s work.
PATIENCE = 120.0
#: How long a daemon process may take to listen: at load 25 on two cores (a CPU hog, the suite's
#: four workers and more beside it) starting one took 50 s of wall clock for ~1 s of CPU.
START_PATIENCE = 240.0


def wait_for(pred: Callable[[], object], timeout: float = PATIENCE, every: float = 0.01,
             what: str = "condition") -> object:
    """Poll ``pred`` until it returns something truthy; AssertionError after ``timeout``."""
    end = time.monotonic() + timeout
    while True:
        got = pred()
        if got:
            return got
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(every)


def test_config(tmp_path: Path, **kw) -> DaemonConfig:
    """A loopback config on a free port with a fixed PIN, data in ``tmp_path``."""
    kw.setdefault("pin", PIN)
    return with_overrides(DaemonConfig(), data_dir=str(tmp_path), port=0, host="127.0.0.1", **kw)


test_config.__test__ = False  # a helper, not a test


@contextlib.contextmanager
def running_daemon(tmp_path: Path, **kw) -> Iterator:
    """An in-process Daemon (real store, real tracker, real web server on loopback)."""
    from companion.daemon import Daemon

    board = kw.pop("board", None)
    d = Daemon(test_config(tmp_path, **kw), board=board)
    d.start()
    try:
        yield d
    finally:
        d.stop()


def http(url: str, method: str = "GET", body: object = None, headers: dict | None = None,
         raw: bytes | None = None, timeout: float = PATIENCE) -> tuple[int, dict, bytes]:
    """``(status, headers, body)`` of one request (no exception on 4xx/5xx)."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def control(base: str, path: str, body: object = None, pin: str | None = PIN,
            extra: dict | None = None, player: str | None = None) -> tuple[int, dict]:
    """POST a control the way the page does (as the owner, or with a player-link token as a
    player, or with neither as a spectator); ``(status, json)``."""
    headers = {"Content-Type": "application/json", "X-Tafl-Request": "1"}
    if pin is not None and player is None:
        headers["X-Tafl-Pin"] = pin
    if player is not None:
        headers["X-Tafl-Player"] = player
    headers.update(extra or {})
    status, _, data = http(base + path, "POST", body if body is not None else {}, headers)
    return status, json.loads(data or b"{}")


def base(d) -> str:
    """The web address of the in-process daemon ``d`` (:func:`running_daemon`)."""
    return f"http://127.0.0.1:{d.port}/"


def state(base: str) -> dict:
    return json.loads(http(base + "api/state")[2])


def board_reads(base: str, before: list[str], lifted: list[str], placed: list[str]) -> None:
    """Wait until the board's sensed squares show the pieces ``lifted`` from and ``placed`` on
    the squares ``before`` showed: a follow-the-LEDs loop acts on guidance that has caught up
    with its clicks (a click on a square it already acted on would lift the piece again)."""
    expected = (set(before) - set(lifted)) | set(placed)
    wait_for(lambda: set(state(base)["occupied"]) == expected,
             what=f"the board reading {sorted(lifted)} lifted and {sorted(placed)} placed")


def click_move(base: str, frm: str, to: str) -> dict:
    """Click ``frm`` then ``to`` on the daemon's simulated board: the state once it has the
    move."""
    n = len(state(base)["moves"])
    for square in (frm, to):
        assert control(base, "api/click", {"square": square})[0] == 200
    return wait_for(lambda: (st := state(base))["moves"][n:] and st,  # type: ignore[return-value]
                    what=f"the move {frm}-{to}")


def clean_trace(path: Path, variant: str, moves: list[str], step: float = 1.0,
                scan_hz: int = 100) -> Path:
    """Write the trace of a tidy player playing ``moves`` (see ``simulator.tidy_trace``)."""
    lines, _ = tidy_trace(get_variant(variant), moves, step=step, scan_hz=scan_hz)
    path.write_text("".join(line + "\n" for line in lines))
    return path


class HeldBoard:
    """A board standing on the opening position whose reading can be held: with ``release``
    cleared the loop thread waits inside its step (as on a stuck bus) and ``held`` is set. It
    counts its close() calls; a close lets a held reading go."""

    kind = "gpio"

    def __init__(self) -> None:
        from companion.rules.game import Game

        self.size = 11
        self.occupied = Game(get_variant("copenhagen")).board.occupied_names()
        self.release = threading.Event()
        self.release.set()
        self.held = threading.Event()
        self.closed = 0

    def scan(self, now: float):
        from companion.scan import Scan

        if not self.release.is_set():
            self.held.set()
            self.release.wait()
        return Scan(now, self.occupied)

    def status(self) -> dict:
        return {"kind": self.kind, "connected": True, "detail": "test board"}

    def close(self) -> None:
        self.closed += 1
        self.release.set()


class DaemonProcess:
    """``tafl-companion run ARGS`` as a real process; its output is collected by a thread."""

    def __init__(self, args: list[str], env: dict | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "run", *args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
        )
        self.lines: list[str] = []
        self.url: str | None = None
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line)
            m = re.search(r"tafl-companion on (http://\S+/)", line)
            if m:
                self.url = m.group(1)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = PATIENCE) -> str:
        """Signal the daemon, wait for it, and return everything it printed."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        self.proc.wait(timeout=timeout)
        self._reader.join(timeout=5)
        return self.output


def spawn_daemon(args: list[str], env: dict | None = None) -> tuple[DaemonProcess, str]:
    """Start a daemon process; return it and its base URL once it listens."""
    d = DaemonProcess(args, env)
    end = time.monotonic() + START_PATIENCE
    while d.url is None:
        if time.monotonic() > end or d.proc.poll() is not None:
            d.stop(signal.SIGKILL)
            raise AssertionError("daemon did not start:\n" + d.output)
        time.sleep(0.02)
    return d, d.url


def test_clean_trace_is_well_formed(tmp_path: Path) -> None:
    from companion.trace import read_trace

    trace = read_trace(clean_trace(tmp_path / "t.jsonl", "copenhagen",
                                   ["d1-d4", "f4-e4", "f2-f4xe4"]))
    assert trace.rules.size == 11 and trace.end > trace.scans[-1].t
    assert "e4" not in trace.scans[-1].occupied and "f4" in trace.scans[-1].occupied
