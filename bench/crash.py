"""Crash safety of the daemon: kill -9 at random points while a sensor trace is fed in.

    python bench/crash.py                 # 200 kill points, prints a JSON report
    python bench/crash.py --kills 20 --seed 7
    python bench/crash.py --session       # mid-match and mid-clock: a two-game match with a
                                          # 30+5 clock; every restart must bring back the match,
                                          # the game, the clocks as stored and the players

The daemon runs for real (``tafl-companion run --board replay:TRACE --speed X``) on a data
directory that survives the kills. While it runs, a poller reads ``/api/state`` as fast as it
can and the daemon's log is read too: every move seen there has been *announced*. After each
``kill -9`` the SQLite file is opened directly and must hold every announced move of every game.
The next start resumes the game: the replayed trace starts again from the opening, the tracker
guides the "set-up" until the board reaches the stored position, then play continues. When a
game is complete in the store, a fresh data directory starts the next cycle. At the end one run
without a kill must store the whole trace's game.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from companion.rules import get_variant
from companion.rules.game import Game
from companion.simulator import tidy_trace

MOVE_LOG = re.compile(r"game (\d+): move move=(\S+)")
URL_LOG = re.compile(r"tafl-companion on (http://\S+/)")


def random_game(seed: int, plies: int, variant: str = "copenhagen") -> list[str]:
    """Move texts of a seeded random legal game (stops early if the game ends)."""
    rng = random.Random(seed)
    game = Game(get_variant(variant))
    for _ in range(plies):
        moves = game.board.legal_moves()
        if not moves or game.is_over():
            break
        # prefer captures now and then, so the trace has pieces to lift
        caps = [m for m in moves if game.board.preview(m)[0]]
        move = rng.choice(caps if caps and rng.random() < 0.7 else moves)
        game.play(move)
    return game.moves


def write_trace(path: Path, moves: list[str], variant: str = "copenhagen") -> float:
    """The trace of a tidy player (one move a second of trace time); returns its end time."""
    lines, end = tidy_trace(get_variant(variant), moves, step=0.5)
    path.write_text("".join(line + "\n" for line in lines))
    return end


class Run:
    """One daemon process, its log reader and a fast /api/state poller."""

    def __init__(self, args: list[str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "run", *args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.lines: list[str] = []
        self.url: str | None = None
        self.listening = threading.Event()
        self.seen: dict[int, list[str]] = {}  # game -> longest move list seen on the page
        self.first_state: dict | None = None  # the first state the page showed after start
        self.first_read = threading.Event()  # set once first_state is there
        self.stop = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._poll, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line)
            m = URL_LOG.search(line)
            if m:
                self.url = m.group(1)
                self.listening.set()

    def _poll(self) -> None:
        self.listening.wait(30)
        while not self.stop.is_set() and self.url:
            try:
                with urllib.request.urlopen(self.url + "api/state", timeout=1) as resp:
                    s = json.loads(resp.read())
                if self.first_state is None:
                    self.first_state = s
                    self.first_read.set()
                moves = s["moves"]
                if len(moves) > len(self.seen.get(s["game"], [])):
                    self.seen[s["game"]] = moves
            except Exception:
                if self.proc.poll() is not None:
                    return
                time.sleep(0.005)

    def state(self) -> dict:
        with urllib.request.urlopen(self.url + "api/state", timeout=2) as resp:
            return json.loads(resp.read())

    def kill(self, sig: int = signal.SIGKILL) -> None:
        self.proc.send_signal(sig)
        self.proc.wait(timeout=20)
        self.stop.set()

    def announced(self) -> dict[int, list[str]]:
        """Moves announced on the page or in the log, per game."""
        out = {g: list(m) for g, m in self.seen.items()}
        logged: dict[int, list[str]] = {}
        for line in self.lines:
            m = MOVE_LOG.search(line)
            if m:
                logged.setdefault(int(m.group(1)), []).append(m.group(2))
        for g, moves in logged.items():
            if len(moves) > len(out.get(g, [])):
                out[g] = moves
        return out


def stored_moves(db: Path, gid: int) -> list[str]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return [r[0] for r in con.execute(
            "SELECT text FROM moves WHERE game_id = ? ORDER BY ply", (gid,))]
    finally:
        con.close()


def stored_session(db: Path) -> dict | None:
    """What a restart must bring back: the latest game, its match, players and the clocks as
    stored at its last move."""
    if not db.exists():
        return None
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        row = con.execute("SELECT id, match_id, players FROM games WHERE ended IS NULL "
                          "ORDER BY id DESC LIMIT 1").fetchone()
        if row is None:
            return None
        last = con.execute("SELECT left_attackers, left_defenders FROM moves WHERE game_id = ? "
                           "ORDER BY ply DESC LIMIT 1", (row[0],)).fetchone()
        names = {s: p["name"] for s, p in json.loads(row[2]).items()}
        plies = con.execute("SELECT COUNT(*) FROM moves WHERE game_id = ?", (row[0],)).fetchone()
        return {"game": row[0], "match": row[1], "players": names,
                "left": list(last) if last else None, "plies": plies[0]}
    finally:
        con.close()


def moved_on(expect: dict, shown: dict) -> bool:
    """Whether the first state seen after a restart is already past the stored position (the
    replayed board made a move before the first poll answered, as on a busy machine): the
    clocks shown are then those after that move, not the stored ones, so that restart cannot
    be checked (the moves still are)."""
    return shown["game"] == expect["game"] and len(shown.get("moves") or []) > expect["plies"]


def restore_problems(expect: dict, shown: dict) -> list[str]:
    """Differences between the stored session and the first state after a restart."""
    out = []
    if shown["game"] == expect["game"] and len(shown.get("moves") or []) < expect["plies"]:
        out.append(f"{len(shown.get('moves') or [])} moves shown, {expect['plies']} stored")
    if shown["game"] != expect["game"]:
        out.append(f"game {shown['game']} != stored {expect['game']}")
    if expect["match"] is not None and (shown.get("match") or {}).get("id") != expect["match"]:
        out.append(f"match {shown.get('match')} != stored {expect['match']}")
    names = {s: p["name"] for s, p in shown["players"].items()}
    if names != expect["players"]:
        out.append(f"players {names} != stored {expect['players']}")
    if expect["left"] is not None:
        clock = shown.get("clock") or {}
        got = [clock.get("attackers"), clock.get("defenders")]
        if any(g is None or abs(g - e) > 0.05 for g, e in zip(got, expect["left"])):
            out.append(f"clocks {got} != stored {expect['left']}")
    return out


def crash_run(kills: int, seed: int = 1, speed: float = 20.0, plies: int = 40,
              workdir: Path | None = None, max_delay: float = 2.5, log=print,
              session: bool = False, min_checked: int = 0) -> dict:
    """Run ``kills`` kill -9 points; returns the report (``lost`` must be empty). With
    ``session`` the daemon plays a two-game match with a clock, and every restart with a game
    stored is checked to bring back the match, the game, the players and the clocks as stored:
    its kill point is counted from the first state it showed, and more kill points follow
    (up to four times ``kills``) until ``min_checked`` restarts were checked. How many
    restarts find a game stored depends on how far each run got, i.e. on the machine's speed;
    what is checked does not."""
    rng = random.Random(seed)
    work = Path(workdir or tempfile.mkdtemp(prefix="tafl-crash-"))
    moves = random_game(seed, plies)
    trace = work / "trace.jsonl"
    end = write_trace(trace, moves)
    config = work / "config.toml"
    text = 'pin = "0000"\n[web]\nhost = "127.0.0.1"\nport = 0\n'
    if session:
        text = ('time_control = "30+5"\n' + text + '[players]\nattackers_name = "Ann"\n'
                'defenders_name = "Bo"\n[match]\nenabled = true\n')
    config.write_text(text)
    cycle = 0
    data = work / f"data{cycle}"
    args = lambda: ["--config", str(config), "--board", f"replay:{trace}",  # noqa: E731
                    "--speed", str(speed), "--data-dir", str(data)]
    report: dict = {"kills": 0, "announced_moves_checked": 0, "lost": [], "cycles_completed": 0,
                    "trace_moves": len(moves), "speed": speed, "session": session,
                    "restarts_checked": 0, "restarts_moved_on": 0, "restore_problems": []}
    started = time.monotonic()
    i = -1
    while report["kills"] < kills or (report["restarts_checked"] < min_checked
                                      and report["kills"] < 4 * kills):
        i += 1
        expect = stored_session(data / "games.sqlite3") if session else None
        run = Run(args())
        run.listening.wait(60)  # kill points count from the moment it serves (start-up varies)
        if expect is not None:  # ... or from its first state, when that is to be checked
            run.first_read.wait(60)
        time.sleep(rng.uniform(0.05, max_delay))
        run.kill()
        report["kills"] += 1
        if expect is not None and run.first_state is not None:
            if moved_on(expect, run.first_state):
                report["restarts_moved_on"] += 1
            else:
                report["restarts_checked"] += 1
                problems = restore_problems(expect, run.first_state)
                if problems:
                    report["restore_problems"].append({"kill": i, "problems": problems})
                    log(f"kill {i}: NOT RESTORED: {problems}")
        db = data / "games.sqlite3"
        announced = run.announced()
        for gid, seen in announced.items():
            have = stored_moves(db, gid) if db.exists() else []
            report["announced_moves_checked"] += len(seen)
            if have[: len(seen)] != seen:
                report["lost"].append({"kill": i, "game": gid, "announced": seen, "stored": have})
                log(f"kill {i}: LOST moves in game {gid}: announced {seen}, stored {have}")
        if db.exists():
            con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            n = con.execute("SELECT COUNT(*) FROM moves").fetchone()[0]
            con.close()
            if n >= len(moves):
                report["cycles_completed"] += 1
                cycle += 1
                data = work / f"data{cycle}"
        if (i + 1) % 20 == 0:
            log(f"{i + 1} kills, {report['announced_moves_checked']} announced moves checked, "
                f"{len(report['lost'])} lost")
    # one last run to the end of the trace: the resumed game must be the whole trace's game
    run = Run(args())
    run.listening.wait(60)
    # generous: it ends as soon as the game is whole; a loaded machine starts and replays slowly
    deadline = time.monotonic() + end / speed + 90
    final: list[str] = []
    while time.monotonic() < deadline:
        try:
            final = run.state()["moves"]
        except Exception:
            final = []
        if final == moves:
            break
        time.sleep(0.1)
    run.kill(signal.SIGTERM)
    report["final_game_matches_trace"] = final == moves
    if final != moves:  # what to look at when it did not
        report["final_moves"] = final
        report["final_log"] = [line.rstrip() for line in run.lines[-12:]]
    report["seconds"] = round(time.monotonic() - started, 1)
    return report


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kills", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--speed", type=float, default=20.0)
    p.add_argument("--plies", type=int, default=40)
    p.add_argument("--session", action="store_true",
                   help="mid-match and mid-clock: a two-game match with a 30+5 clock")
    a = p.parse_args()
    report = crash_run(a.kills, a.seed, a.speed, a.plies,
                       log=lambda m: print(m, file=sys.stderr), session=a.session)
    print(json.dumps(report, indent=1))
    bad = report["lost"] or report["restore_problems"] or not report["final_game_matches_trace"]
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
