"""Tracker speed and acceptance latency over a simulated trace corpus.

    python bench/tracker.py [--games N] [--noise typical] [--hz 100]

Prints one JSON document: CPU microseconds per scan (the daemon scans at ``--hz`` and calls
``feed`` on a change, ``tick`` otherwise; both are counted, per variant), the slowest single call,
and the acceptance latency after the moved piece settles (p50/p95/max, seconds of trace time).
Latency is measured from the trace itself: settling is the last scan change before the move
event on the move's path (its squares from one before the start to one past the destination:
the piece is down and nothing along its way changed since). Moves accepted only after an
illegal move was flagged (a move made while captured pieces still stood) are excluded, since they
are accepted when the fault is cleared, not when the piece settles.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.replay import acceptance_latencies  # noqa: E402
from companion.rules import get_variant  # noqa: E402
from companion.rules.game import Game  # noqa: E402
from companion.rules.records import read_records, replay_record  # noqa: E402
from companion.simulator import simulate_record  # noqa: E402
from companion.trace import Trace, parse_trace  # noqa: E402
from companion.tracker import Event, Tracker  # noqa: E402

CORPUS = [ROOT / "tests" / "data" / "tracker", ROOT.parent / "shared" / "corpus"]


def corpus(variant: str) -> Path:
    """The record file of a variant (the tests' copy first)."""
    for d in CORPUS:
        if (d / f"{variant}.csv").exists():
            return d / f"{variant}.csv"
    raise SystemExit(f"no {variant}.csv in {', '.join(map(str, CORPUS))}")


def timed_run(trace: Trace, hz: float) -> tuple[float, int, float, list[Event], list[float]]:
    """Run a trace as the daemon would at ``hz``: returns CPU seconds, scans, slowest call,
    events, and the CPU seconds of each ``feed`` (a scan that changed)."""
    tracker = Tracker(Game(trace.rules))
    clock = time.process_time
    events: list[Event] = []
    cpu = 0.0
    worst = 0.0
    scans = 0
    feeds: list[float] = []
    i = 0
    n = math.floor(trace.end * hz) + 1
    for k in range(n):
        t = k / hz
        batch = None
        while i < len(trace.scans) and trace.scans[i].t <= t + 1e-9:
            batch = trace.scans[i]
            i += 1
        t0 = clock()
        if batch is not None:
            out = tracker.feed(batch)
        else:
            out = tracker.tick(t)
        dt = clock() - t0
        if batch is not None:
            feeds.append(dt)
        cpu += dt
        worst = max(worst, dt)
        events += out
        scans += 1
    return cpu, scans, worst, events, feeds


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (nearest rank)."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))] if s else float("nan")


def main() -> None:
    """Simulate, run and print the report."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20, help="games per variant")
    ap.add_argument("--noise", default="typical")
    ap.add_argument("--hz", type=float, default=100.0)
    args = ap.parse_args()
    report: dict = {"noise": args.noise, "scan_hz": args.hz, "variants": {}}
    lat: list[float] = []
    for variant in ("copenhagen", "brandubh"):
        rules = get_variant(variant)
        records = read_records(corpus(variant).read_text(encoding="utf-8"))
        cpu = worst = 0.0
        scans = games = moves = 0
        feeds: list[float] = []
        for seed, record in enumerate(records):
            if games >= args.games:
                break
            if len(record.moves) < 20 or replay_record(rules, record)[1]:
                continue
            lines = simulate_record(rules, record, seed=seed, noise=args.noise)
            trace = parse_trace(lines)
            c, n, w, events, f = timed_run(trace, args.hz)
            feeds += f
            cpu, scans, worst = cpu + c, scans + n, max(worst, w)
            moves += sum(e.kind == "move" for e in events)
            lat += [latency for _, latency in acceptance_latencies(trace, events)]
            games += 1
        report["variants"][variant] = {
            "games": games, "moves": moves, "scans": scans,
            "us_per_scan": round(cpu / scans * 1e6, 1),
            "changed_scans": len(feeds),
            "us_per_changed_scan": round(sum(feeds) / len(feeds) * 1e6, 1),
            "p99_changed_scan_us": round(pct(feeds, 0.99) * 1e6, 1),
            "max_call_us": round(worst * 1e6, 1),
        }
    report["latency_s"] = {
        "moves": len(lat), "p50": round(pct(lat, 0.5), 3), "p95": round(pct(lat, 0.95), 3),
        "max": round(max(lat), 3) if lat else None,
    }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
