"""Shared helpers for the daemon, web and crash tests (imported by them), plus tests of the
helpers themselves: a fake tracker with the tracker's contract, a running in-process daemon,
subprocess daemons, and clean sensor traces made from move lists."""

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
from companion.rules.board import MoveError
from companion.rules.game import Game
from companion.simulator import tidy_trace
from companion.tracker.events import Event

PIN = "2468"


class FakeTracker:
    """A minimal tracker with the real one's contract, for tests of the daemon's wiring: one
    lift plus one placement is a move; captured pieces must then be lifted; an illegal
    placement lights ``illegal`` until the piece goes back; ``reset`` guides the set-up."""

    def __init__(self, game: Game, settle: float = 0.0) -> None:
        self.game = game.copy()  # a private model, like the real tracker's
        self.leds: dict[str, str] = {}
        self.message = ""
        self.state = "idle"
        self.pending: set[str] = set()
        self.setup = False
        self.resets = 0

    def _expected(self) -> frozenset[str]:
        return self.game.board.occupied_names() | self.pending

    def reset(self, game: Game, t: float) -> list[Event]:
        self.game, self.pending, self.setup, self.state = game.copy(), set(), True, "setup"
        self.resets += 1
        self.leds, self.message = {}, "Set up the position shown."
        return [Event(t, "setup", {"message": self.message})]

    def tick(self, t: float) -> list[Event]:
        return []

    def feed(self, scan) -> list[Event]:
        occ, exp = scan.occupied, self._expected()
        if self.setup:
            if occ == exp:
                self.setup, self.state, self.leds, self.message = False, "idle", {}, ""
                return [Event(scan.t, "ready", {"turn": self.game.turn})]
            self.leds = {s: "setup" for s in exp ^ occ}
            return []
        events = []
        for sq in sorted(self.pending - occ):
            self.pending.discard(sq)
            events.append(Event(scan.t, "removed", {"square": sq}))
            if not self.pending:
                self.leds = {k: v for k, v in self.leds.items() if v != "capture"}
                self.message = ""
        exp = self._expected()
        lifted, added = exp - occ, occ - exp
        if len(lifted) == 1 and len(added) == 1 and not self.pending:
            frm, to = next(iter(lifted)), next(iter(added))
            try:
                played = self.game.play(f"{frm}-{to}")
            except MoveError as exc:
                self.leds = {to: "illegal", frm: "target"}
                self.message = f"Illegal: {exc} - put the piece back on {frm}"
                return [*events, Event(scan.t, "illegal", {"reason": str(exc)})]
            self.pending = set(played.captured) & occ
            self.leds = {frm: "from", to: "to", **{c: "capture" for c in self.pending}}
            self.message = f"Lift the captured piece on {', '.join(sorted(self.pending))}" \
                if self.pending else ""
            events.append(Event(scan.t, "move", {
                "move": played.text, "side": played.side, "captured": list(played.captured),
                "from": played.frm, "to": played.to, "ply": len(self.game.played),
                "placed_at": scan.t}))
            if self.game.is_over():
                events.append(Event(scan.t, "game_over", {"result": self.game.result}))
        elif not lifted and not added and "illegal" in self.leds.values():
            self.leds, self.message = {}, ""
        return events


def wait_for(pred: Callable[[], object], timeout: float = 5.0, every: float = 0.01,
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
def running_daemon(tmp_path: Path, tracker=FakeTracker, **kw) -> Iterator:
    """An in-process Daemon (real store, real web server on loopback) with ``tracker``."""
    from companion.daemon import Daemon

    board = kw.pop("board", None)
    d = Daemon(test_config(tmp_path, **kw), board=board, tracker_factory=tracker)
    d.start()
    try:
        yield d
    finally:
        d.stop()


def http(url: str, method: str = "GET", body: object = None, headers: dict | None = None,
         raw: bytes | None = None, timeout: float = 5) -> tuple[int, dict, bytes]:
    """``(status, headers, body)`` of one request (no exception on 4xx/5xx)."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def control(base: str, path: str, body: object = None, pin: str | None = PIN,
            extra: dict | None = None) -> tuple[int, dict]:
    """POST a control the way the page does; ``(status, json)``."""
    headers = {"Content-Type": "application/json", "X-Tafl-Request": "1"}
    if pin is not None:
        headers["X-Tafl-Pin"] = pin
    headers.update(extra or {})
    status, _, data = http(base + path, "POST", body if body is not None else {}, headers)
    return status, json.loads(data or b"{}")


def state(base: str) -> dict:
    return json.loads(http(base + "api/state")[2])


def clean_trace(path: Path, variant: str, moves: list[str], step: float = 1.0,
                scan_hz: int = 100) -> Path:
    """Write the trace of a tidy player playing ``moves`` (see ``simulator.tidy_trace``)."""
    lines, _ = tidy_trace(get_variant(variant), moves, step=step, scan_hz=scan_hz)
    path.write_text("".join(line + "\n" for line in lines))
    return path


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

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15) -> str:
        """Signal the daemon, wait for it, and return everything it printed."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        self.proc.wait(timeout=timeout)
        self._reader.join(timeout=5)
        return self.output


def spawn_daemon(args: list[str], env: dict | None = None) -> tuple[DaemonProcess, str]:
    """Start a daemon process; return it and its base URL once it listens."""
    d = DaemonProcess(args, env)
    end = time.monotonic() + 20
    while d.url is None:
        if time.monotonic() > end or d.proc.poll() is not None:
            d.stop(signal.SIGKILL)
            raise AssertionError("daemon did not start:\n" + d.output)
        time.sleep(0.02)
    return d, d.url


def test_fake_tracker_plays_and_captures() -> None:
    from companion.scan import Scan

    game = Game(get_variant("copenhagen"))
    tr = FakeTracker(game)
    occ = set(game.board.occupied_names())
    for text, t in (("d1-d4", 1), ("f4-e4", 2), ("f2-f4", 3)):
        frm, to = text.split("-")
        occ.discard(frm)
        tr.feed(Scan(t, frozenset(occ)))
        occ.add(to)
        events = tr.feed(Scan(t + 0.5, frozenset(occ)))
    assert [e.kind for e in events] == ["move"] and tr.game.moves[-1] == "f2-f4xe4"
    assert game.moves == []  # the caller's game is never changed
    assert tr.leds["e4"] == "capture"
    occ.discard("e4")
    assert [e.kind for e in tr.feed(Scan(4, frozenset(occ)))] == ["removed"]


def test_clean_trace_is_well_formed(tmp_path: Path) -> None:
    from companion.trace import read_trace

    trace = read_trace(clean_trace(tmp_path / "t.jsonl", "copenhagen",
                                   ["d1-d4", "f4-e4", "f2-f4xe4"]))
    assert trace.rules.size == 11 and trace.end > trace.scans[-1].t
    assert "e4" not in trace.scans[-1].occupied and "f4" in trace.scans[-1].occupied
