"""The scan loop's rate and the control round trip, with the daemon busy in every way the page
can make it busy.

    python bench/loop.py                  # 3 s windows
    python bench/loop.py --window 10

Runs an in-process daemon (simulated board at 100 Hz, the real tracker, SQLite in a temporary
directory, a real web server on loopback) and times every loop iteration in windows:

* idle;
* the computer thinking at full strength (its own process);
* a finished game analysed (the worker's engine) while a hint is looked for (the advisor's);
* a flood of page reads from 8 threads: of the published snapshot (``/api/state``,
  ``/api/legal``), then of the store (``/api/games``, a review, an export: read-only
  connections); neither waits for the loop, but every request's Python work shares the
  interpreter with it (the web layer's per-device budgets keep such floods away);
* a flood of controls from 4 threads (clicks: each a command the loop applies between scans).

For each it prints the loop's rate (Hz) and its longest gap between two iterations (ms), and
for the controls the round trip of a control (p50/p95 ms: enqueued, applied by the loop,
published, answered). Goal: the rate stays within 15 % of idle and the longest gap under
3x idle's in every window (the issue 17 figures).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from loop_timer import LoopTimer  # noqa: E402  (bench/loop_timer.py)

PIN = "2468"
HEADERS = {"Content-Type": "application/json", "X-Tafl-Request": "1", "X-Tafl-Pin": PIN}


def post(base: str, path: str, body: dict[str, object]) -> int:
    req = urllib.request.Request(base + path, json.dumps(body).encode(), HEADERS, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            resp.read()
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def get(base: str, path: str) -> bytes:
    with urllib.request.urlopen(base + path, timeout=10) as resp:
        return bytes(resp.read())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--window", type=float, default=3.0, help="seconds per measurement")
    args = p.parse_args()

    from companion.config import DaemonConfig, with_overrides
    from companion.daemon import Daemon

    data = Path(tempfile.mkdtemp(prefix="tafl-loop-"))
    cfg = with_overrides(DaemonConfig(), data_dir=str(data), port=0, host="127.0.0.1", pin=PIN)
    from dataclasses import replace

    cfg = replace(cfg, board=replace(cfg.board, idle_after=0.0))  # the full rate: it is measured
    d = Daemon(cfg)
    d.start()
    base = f"http://127.0.0.1:{d.port}/"
    timer = LoopTimer(d)

    def window() -> dict[str, float]:
        return timer.window(args.window)

    def flood(work: list[threading.Thread]) -> dict[str, float]:
        for t in work:
            t.start()
        out = window()
        stop.set()
        for t in work:
            t.join()
        stop.clear()
        return out

    report: dict[str, object] = {}
    stop = threading.Event()
    try:
        report["idle"] = window()
        post(base, "api/new", {"players": {"attackers": {"kind": "computer", "level": 10,
                                                         "seconds": 30}}})
        while not (json.loads(get(base, "api/state"))["thinking"] or {}).get("depth"):
            time.sleep(0.05)
        report["computer_thinking"] = window()
        post(base, "api/new", {"players": {"attackers": {"kind": "board"}}})
        for square in ("d1", "d4", "f4", "e4"):
            post(base, "api/click", {"square": square})
            time.sleep(0.5)
        gid = json.loads(get(base, "api/state"))["game"]
        post(base, "api/resign", {"side": "attackers"})
        post(base, "api/new", {})
        post(base, f"api/games/{gid}/analysis", {"seconds": args.window})
        post(base, "api/hint", {"seconds": args.window})
        report["analysing_and_hinting"] = window()

        served = [0]

        def reader(n: int, reads: list[str]) -> None:
            i = n
            while not stop.is_set():
                get(base, reads[i % len(reads)])
                served[0] += 1
                i += 1

        for name, reads in (("snapshot_reads", ["api/state", "api/legal"]),
                            ("store_reads", ["api/games", f"api/review/{gid}",
                                             f"api/games/{gid}/record.csv"])):
            served[0] = 0
            report[f"{name}_8_threads"] = flood(
                [threading.Thread(target=reader, args=(n, reads)) for n in range(8)])
            report[f"{name}_per_s"] = round(served[0] / args.window)

        trips: list[float] = []

        def clicker(square: str) -> None:
            while not stop.is_set():
                t0 = time.monotonic()
                post(base, "api/click", {"square": square})
                trips.append(time.monotonic() - t0)

        report["controls_4_threads"] = flood(
            [threading.Thread(target=clicker, args=(sq,)) for sq in ("a1", "b1", "c1", "k11")])
        trips.sort()
        report["control_round_trip_ms"] = {
            "n": len(trips), "p50": round(statistics.median(trips) * 1000, 1),
            "p95": round(trips[int(len(trips) * 0.95)] * 1000, 1)}
    finally:
        d.stop()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
