"""One device floods costly requests while the board plays: does the board notice?

Issue 17, defect 2: 16 parallel ``GET /api/qr.svg?text=<400 chars>`` from one address took the
scan loop from 100 to 22-33 Hz and a move's acceptance from 0.22 to 0.47-0.8 s. This starts
``tafl-companion run`` (simulated board at 100 Hz, the real tracker; ``bench/load.py``'s child,
which counts the scan loop's reads) with a stored game of ``--plies`` moves (2,204 by default),
then plays ``--moves`` moves twice: on a quiet board, and while one device (one loopback
address) runs ``--threads`` connections that ask for costly answers as fast as they are given:
QR codes of random 400-character links, the review and the replay of the long game, its CSV and
``.otg`` exports. Meanwhile another device loads the page and its state every 0.2 s.

Per phase it reports: a move's acceptance (from the click that puts the piece down to the
daemon's ``accepted_at``; the tracker waits for the piece to rest, so ~0.2 s on a quiet board),
the page's answer times from the other device, the scan loop's rate, the daemon's RSS and CPU,
and what the flood got (answers, refusals). The issue's bound: acceptance within 1.5x of the
quiet board's, page p95 <= 150 ms. ``--root DIR`` runs another checkout (e.g. an older one,
for a before/after). Run with ``nice -n 10 python3 bench/flood.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import string
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from load import (  # noqa: E402  (bench/load.py: the daemon child and its figures)
    PIN,
    ROOT,
    Daemon,
    cpu_seconds,
    memory_mb,
    moves_without_captures,
    percentile,
)

sys.path.append(str(HERE.parent / "tests"))
from web_load_support import quiet_game, request  # noqa: E402  (tests/web_load_support.py)

FLOOD_SRC = "127.0.20.1"
PAGE_SRC = "127.0.21.1"


def store_long_game(data_dir: Path, plies: int, root: Path) -> int:
    """Put a game of ``plies`` quiet moves into the store the daemon will open."""
    sys.path.insert(0, str(root))
    from companion.store import Store

    game = quiet_game(plies, seed=11)
    data_dir.mkdir(parents=True, exist_ok=True)
    store = Store(data_dir / "games.sqlite3")
    try:
        return store.import_game(game, ("Long", "Game"), time.time(), {"format": "bench"})
    finally:
        store.close()


class Flood:
    """``threads`` connections from one address asking for costly answers back to back."""

    def __init__(self, port: int, gid: int, threads: int) -> None:
        self.port = port
        self.paths = [f"/api/review/{gid}", f"/api/games/{gid}", f"/api/games/{gid}/record.csv",
                      f"/api/games/{gid}/game.otg"]
        self.stop = threading.Event()
        self.counts: dict[int, int] = {}
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._run, args=(i,), daemon=True)
                        for i in range(threads)]

    def _run(self, i: int) -> None:
        rng = random.Random(i)
        while not self.stop.is_set():
            if rng.random() < 0.5:
                text = "http://" + "".join(rng.choices(string.ascii_letters, k=393))
                path = f"/api/qr.svg?text={text}"
            else:
                path = rng.choice(self.paths)
            try:
                status = request(self.port, path, FLOOD_SRC)[0]
            except OSError:
                status = 0
            with self.lock:
                self.counts[status] = self.counts.get(status, 0) + 1

    def __enter__(self) -> Flood:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(30)


class PageWatcher:
    """Another device loading the page and its state every 0.2 s."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.times: list[float] = []
        self.failed = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        paths = ["/", "/api/state"]
        i = 0
        while not self.stop.is_set():
            t0 = time.monotonic()
            try:
                status = request(self.port, paths[i % 2], PAGE_SRC)[0]
                if status == 200:
                    self.times.append(time.monotonic() - t0)
                else:
                    self.failed += 1
            except OSError:
                self.failed += 1
            i += 1
            self.stop.wait(max(0.0, 0.2 - (time.monotonic() - t0)))

    def __enter__(self) -> PageWatcher:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(30)


def click(port: int, square: str) -> None:
    status, _, body = request(port, "/api/click", method="POST",
                              body=json.dumps({"square": square}).encode(),
                              headers={"Content-Type": "application/json",
                                       "X-Tafl-Request": "1", "X-Tafl-Pin": PIN})
    if status != 200:
        raise RuntimeError(f"click {square}: {status} {body[:200]!r}")


def state(port: int) -> dict:
    return json.loads(request(port, "/api/state")[2])


def play(d: Daemon, moves: list[tuple[str, str]], pause: float) -> list[float]:
    """Play ``moves``; each move's acceptance (click down -> ``accepted_at``), seconds."""
    out = []
    for frm, to in moves:
        n = len(state(d.port)["moves"])
        click(d.port, frm)
        time.sleep(0.1)
        t_down = time.time()
        click(d.port, to)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            s = state(d.port)
            if len(s["moves"]) > n:
                out.append(float(s["accepted_at"]) - t_down)
                break
            time.sleep(0.01)
        else:
            raise RuntimeError(f"move {frm}-{to} was not accepted within 10 s")
        time.sleep(pause)
    return out


def phase(d: Daemon, name: str, moves: list[tuple[str, str]], pause: float,
          flood: Flood | None) -> dict:
    with PageWatcher(d.port) as page:
        time.sleep(0.5)
        scans0, t0 = d.scans()
        cpu0, wall0 = cpu_seconds(d.proc.pid), time.monotonic()
        rss_max = 0.0
        accept = play(d, moves, pause)
        scans1, t1 = d.scans()
        cpu = (cpu_seconds(d.proc.pid) - cpu0) / (time.monotonic() - wall0)
        rss_max = max(rss_max, memory_mb(d.proc.pid)[0])
    rss, peak = memory_mb(d.proc.pid)
    return {
        "phase": name, "moves": len(accept),
        "accept_p50_ms": round(1000 * percentile(accept, 50)),
        "accept_p95_ms": round(1000 * percentile(accept, 95)),
        "accept_max_ms": round(1000 * max(accept)),
        "page_ok": len(page.times), "page_failed": page.failed,
        "page_p50_ms": round(1000 * percentile(page.times, 50), 1) if page.times else None,
        "page_p95_ms": round(1000 * percentile(page.times, 95), 1) if page.times else None,
        "scan_hz": round((scans1 - scans0) / (t1 - t0), 1),
        "cpu_pct": round(100 * cpu, 1), "rss_mb": rss, "peak_rss_mb": peak,
        "flood": dict(sorted(flood.counts.items())) if flood else None,
        "load": round(os.getloadavg()[0], 1),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--moves", type=int, default=20, help="moves per phase (default 20)")
    p.add_argument("--pause", type=float, default=0.3, help="seconds between moves")
    p.add_argument("--threads", type=int, default=16, help="flooding connections (default 16)")
    p.add_argument("--plies", type=int, default=2204, help="moves of the stored long game")
    p.add_argument("--root", type=Path, default=ROOT, help="the checkout to run (default: this)")
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    root = a.root.resolve()
    plan = moves_without_captures(2 * a.moves)
    with tempfile.TemporaryDirectory(prefix="tafl-flood-") as work:
        gid = store_long_game(Path(work) / "data", a.plies, root)
        d = Daemon(Path(work), root=root)
        try:
            rows = [phase(d, "quiet", plan[:a.moves], a.pause, None)]
            with Flood(d.port, gid, a.threads) as flood:
                time.sleep(1.0)
                rows.append(phase(d, "flood", plan[a.moves:], a.pause, flood))
        finally:
            d.stop()
    quiet, flooded = rows
    ratio = flooded["accept_p50_ms"] / max(1, quiet["accept_p50_ms"])
    print(f"{root}: a stored game of {a.plies} moves; {a.moves} moves per phase; flood: "
          f"{a.threads} connections from one address (QR codes of random 400-character links, "
          f"the long game's review, replay and exports); page: GET / and /api/state every "
          f"0.2 s from another address; load average at the end {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} CPUs")
    print(f"{'phase':>6} {'accept p50':>10} {'p95':>6} {'max':>6} {'page ok':>7} {'failed':>6} "
          f"{'page p50':>8} {'p95':>6} {'scan Hz':>7} {'CPU %':>6} {'RSS':>6} {'peak':>6} "
          f"{'load':>5}  flood answers")
    for r in rows:
        print(f"{r['phase']:>6} {r['accept_p50_ms']:>10} {r['accept_p95_ms']:>6} "
              f"{r['accept_max_ms']:>6} {r['page_ok']:>7} {r['page_failed']:>6} "
              f"{r['page_p50_ms']:>8} {r['page_p95_ms']:>6} {r['scan_hz']:>7} "
              f"{r['cpu_pct']:>6} {r['rss_mb']:>6} {r['peak_rss_mb']:>6} {r['load']:>5}  "
              f"{r['flood'] or ''}")
    print(f"acceptance under the flood: {ratio:.2f}x the quiet board's (bound 1.5x); page p95 "
          f"under the flood {flooded['page_p95_ms']} ms (bound 150 ms)")
    if a.json:
        print(json.dumps({"rows": rows, "acceptance_ratio": round(ratio, 2)}))


if __name__ == "__main__":
    main()
