"""Helpers of the club's end-to-end tests: daemons of a club on a real broker (simulated
boards, the real HTTP API with the PIN headers), moves made as a hand would make them, and
``tafl-companion club`` as a real process."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

from club_broker import CLUB_KEY, CLUB_TOML
from test_daemon_support import (
    PATIENCE,
    PIN,
    DaemonProcess,
    control,
    spawn_daemon,
    state,
    wait_for,
)

#: the fields of a board's own /api/state that the room must show exactly
SAME = ("game", "variant", "turn", "moves", "result", "reason", "position", "players")


def board(tmp: Path, broker: str, club: str, name: str, *args: str,
          extra: str = "") -> tuple[DaemonProcess, str]:
    """A daemon of ``club`` named ``name`` on a simulated Brandubh board (``args``: more
    ``run`` options, e.g. ``--defenders club:table-2``)."""
    cfg = tmp / f"{name}.toml"
    cfg.write_text(f'pin = "{PIN}"\nvariant = "brandubh"\n[web]\nhost = "127.0.0.1"\n'
                   f'port = 0\n[club]\nbroker = "{broker}"\nname = "{club}"\n'
                   f'board = "{name}"\n{CLUB_TOML}{extra}')
    return spawn_daemon(["--config", str(cfg), "--data-dir", str(tmp / name), *args])


def click(base: str, square: str) -> None:
    status, body = control(base, "/api/click", {"square": square})
    assert status == 200, body


def club_link(base: str) -> str:
    """The board's club link state as its own page shows it (GET /api/club/status)."""
    with urllib.request.urlopen(base + "api/club/status", timeout=PATIENCE) as r:
        return str(json.loads(r.read())["link"])


def play(base: str, move: str, timeout: float = PATIENCE) -> None:
    """Make ``move`` on the simulated board as a hand would (lift, place, lift the captured)
    and wait until the board accepted it."""
    wait_for(lambda: state(base)["tracking"] == "ready", timeout=timeout,
             what=f"the board at {base} set up")
    n = len(state(base)["moves"])
    frm, to = move.split("x")[0].split("-")
    click(base, frm)
    click(base, to)
    for taken in move.split("x")[1:]:
        wait_for(lambda: len(state(base)["moves"]) == n + 1, timeout=timeout,
                 what=f"{move} accepted")
        click(base, taken)
    wait_for(lambda: len(state(base)["moves"]) == n + 1, timeout=timeout,
             what=f"{move} accepted at {base}")


def move_to_make(base: str, move: str, timeout: float = PATIENCE) -> dict:
    """Wait until ``move`` is the move to make at ``base``, chosen by the other board."""
    def shown() -> dict | None:
        m = state(base)["move_to_make"]
        return m if m and m["move"] == move.split("x")[0] else None

    m = wait_for(shown, timeout=timeout, what=f"{move} as the move to make at {base}")
    assert isinstance(m, dict) and m["by"] == "club", m
    return m


def carry_out(base: str, move: str, timeout: float = PATIENCE) -> None:
    """The other board's ``move`` shows here as the move to make; the person here makes it."""
    m = move_to_make(base, move, timeout)
    n = len(state(base)["moves"])
    click(base, m["from"])
    click(base, m["to"])
    for taken in m.get("captures") or ():
        click(base, taken)
    wait_for(lambda: len(state(base)["moves"]) == n + 1, timeout=timeout,
             what=f"{move} made at {base}")


class Room:
    """``tafl-companion club`` as a real process."""

    def __init__(self, broker: str, club: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "club", "--broker", broker, "--club", club,
             "--host", "127.0.0.1", "--port", "0", "--allow-anonymous-broker"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "TAFL_CLUB_KEY": CLUB_KEY})
        self.url = ""
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            m = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
            if m:
                self.url = m.group(1)
                break
        assert self.url, "the room did not start"
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()

    def club(self) -> dict:
        with urllib.request.urlopen(self.url + "api/club", timeout=PATIENCE) as r:
            return json.loads(r.read())

    def board(self, name: str) -> dict | None:
        for b in self.club()["boards"]:
            if b["board"] == name:
                return b["state"]
        return None

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(10)


def equal_to_board(room: Room, name: str, base: str) -> bool:
    """The room shows board ``name`` as the board shows itself."""
    shown, own = room.board(name), state(base)
    return shown is not None and all(shown.get(k) == own.get(k) for k in SAME if k != "players"
                                     ) and all(shown["players"][s]["name"] ==
                                               own["players"][s]["name"]
                                               for s in ("attackers", "defenders"))
