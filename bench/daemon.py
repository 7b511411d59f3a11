"""The running daemon's footprint and live-update latency, with a 100 Hz simulated board.

    python bench/daemon.py              # 20 s idle measurement, 20 moves for latency
    python bench/daemon.py --idle 60 --moves 50

Starts ``tafl-companion run`` for real (simulated board scanned at 100 Hz, the real tracker,
SQLite in a temporary directory) and reports, as JSON:

* idle CPU share of one core (user + system time from /proc over the wall time), with no page
  open and with one live page (an SSE client) connected; goal <= 2 %;
* resident memory (VmRSS, and the peak VmHWM) after start-up and after the moves; goal <= 60 MB;
* SSE latency: from a move's acceptance (the ``accepted_at`` stamp of the state, taken before
  the move is stored) to the event reaching a client, and from the click that completes the
  move to the event (this one includes the tracker's 0.2 s settling time, by design).
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import cpu_seconds, memory_mb  # noqa: E402  (bench/load.py)

PIN = "1357"


def game_moves(n: int, seed: int = 5) -> list[tuple[str, str, tuple[str, ...]]]:
    """``n`` moves of a seeded random Copenhagen game that does not end: (from, to, captured)."""
    import random

    from companion.rules import get_variant
    from companion.rules.game import Game

    rng = random.Random(seed)
    game = Game(get_variant("copenhagen"))
    out = []
    for _ in range(n):
        board = game.board
        moves = [m for m in board.legal_moves() if board.preview(m)[1] is None]
        m = rng.choice(moves)
        played = game.play(m)
        out.append((board.name(m.frm), board.name(m.to),
                    tuple(sorted(board.name(c) for c in played.captures))))
    return out


def cpu_share(pid: int, seconds: float) -> float:
    c0, t0 = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    return round(100 * (cpu_seconds(pid) - c0) / (time.monotonic() - t0), 2)


def post(base: str, path: str, body: dict) -> None:
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json",
                                          "X-Tafl-Request": "1", "X-Tafl-Pin": PIN})
    urllib.request.urlopen(req, timeout=5).read()


class SseClient:
    """A raw SSE client recording (arrival time, state) for every event."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        self.events: list[tuple[float, dict]] = []
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        buf = b""
        while True:
            try:
                chunk = self.sock.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            now = time.time()
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if line.startswith(b"data: "):
                    with self.cond:
                        self.events.append((now, json.loads(line[6:])))
                        self.cond.notify_all()

    def wait_moves(self, n: int, timeout: float = 5) -> tuple[float, dict]:
        with self.cond:
            ok = self.cond.wait_for(
                lambda: self.events and len(self.events[-1][1]["moves"]) >= n, timeout)
            if not ok:
                raise TimeoutError(f"no state with {n} moves")
            return next(e for e in self.events if len(e[1]["moves"]) >= n)

    def close(self) -> None:
        self.sock.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--idle", type=float, default=20.0, help="seconds per idle measurement")
    p.add_argument("--moves", type=int, default=20)
    a = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tafl-bench-"))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = work / "config.toml"
    config.write_text(f'pin = "{PIN}"\n[web]\nhost = "127.0.0.1"\nport = {port}\n'
                      '[board]\nkind = "sim"\nscan_hz = 100\n')
    proc = subprocess.Popen([sys.executable, "-m", "companion", "run", "--config", str(config),
                             "--data-dir", str(work / "data")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(base + "api/state", timeout=1).read()
                break
            except OSError:
                time.sleep(0.05)
        time.sleep(2)  # let start-up settle
        report: dict = {"scan_hz": 100, "python": sys.version.split()[0]}
        report["rss_mb_start"], _ = memory_mb(proc.pid)
        report["idle_cpu_percent"] = cpu_share(proc.pid, a.idle)
        sse = SseClient(port)
        time.sleep(0.5)
        report["idle_cpu_percent_one_page_open"] = cpu_share(proc.pid, a.idle)
        accept_ms, click_ms = [], []
        for i, (frm, to, captured) in enumerate(game_moves(a.moves)):
            post(base, "api/click", {"square": frm})
            time.sleep(0.05)
            post(base, "api/click", {"square": to})
            placed = time.time()
            arrived, state = sse.wait_moves(i + 1)
            accept_ms.append(1000 * (arrived - state["accepted_at"]))
            click_ms.append(1000 * (arrived - placed))
            for sq in captured:  # lift the captured pieces, as the page asks
                post(base, "api/click", {"square": sq})
            time.sleep(0.3)
        sse.close()
        report["sse_latency_ms_accept_to_client"] = {
            "median": round(statistics.median(accept_ms), 2),
            "max": round(max(accept_ms), 2)}
        report["sse_latency_ms_placement_to_client"] = {
            "median": round(statistics.median(click_ms), 1), "max": round(max(click_ms), 1),
            "note": "includes the tracker's settle time (0.2 s)"}
        report["rss_mb_after_moves"], report["rss_mb_peak"] = memory_mb(proc.pid)
        print(json.dumps(report, indent=1))
    finally:
        proc.terminate()
        proc.wait(timeout=15)


if __name__ == "__main__":
    main()
