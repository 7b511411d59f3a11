"""The coach: its false alarms on quiet moves, the losing moves it finds, and the time to a
warning, as the daemon asks it (the built-in engine as the advisor's process over OTEP, the
time budget per look of ``[coach] seconds``).

    nice -n 10 python3 bench/coach.py [--seconds 0.5] [--limit N]

The positions are the coach's test set (tests/data/coach_positions.json, from real games):
``quiet`` moves (a depth-5 search finds no forced loss and a drop under 0.5 soldier), and moves
that lost the game at once or in two moves. For each move: the rules' check at once
(``look.at_once``), then the engine's look before the move and after it, judged gentle and
strict. Prints one JSON document: per set, warnings per strictness, and the wall time from the
move to the warning (the rules' check alone for a loss at once; otherwise the after look, the
before look being made while the person thinks, plus the judging), p50/p95/max.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.coach.look import Look, Strictness, at_once, judge  # noqa: E402
from companion.engine import OtepHost, builtin_engine_command  # noqa: E402
from companion.rules import PRESETS, Board  # noqa: E402


def quantiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    v = sorted(values)
    p95 = v[max(0, math.ceil(0.95 * len(v)) - 1)]  # nearest rank
    return {"p50": round(statistics.median(v), 3), "p95": round(p95, 3), "max": round(v[-1], 3),
            "n": len(v)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=0.5, help="each look (default 0.5)")
    ap.add_argument("--limit", type=int, default=0, help="at most N positions a set")
    args = ap.parse_args()
    data = json.loads((ROOT / "tests" / "data" / "coach_positions.json").read_text())
    host = OtepHost(builtin_engine_command(level=10), name="coach-bench")
    host.start()
    out: dict[str, object] = {"seconds": args.seconds}
    try:
        for label in ("quiet", "at_once", "in_two"):
            entries = data[label][: args.limit or None]
            warned = {s.value: 0 for s in Strictness}
            kinds: dict[str, int] = {}
            times: list[float] = []
            for e in entries:
                board = Board(PRESETS[e["variant"]], e["position"], e["turn"])
                t0 = time.monotonic()
                now = at_once(board, e["move"])
                if now is not None:
                    times.append(time.monotonic() - t0)
                    for s in warned:
                        warned[s] += 1
                    kinds[now.kind.value] = kinds.get(now.kind.value, 0) + 1
                    continue
                before = Look.of(host.analyze(board, 1, args.seconds).result(60))
                after_board = board.copy()
                after_board.push(after_board.parse_move(e["move"])[0])
                t1 = time.monotonic()
                after = Look.of(host.analyze(after_board, 1, args.seconds).result(60))
                for s in Strictness:
                    w = judge(board, e["move"], after, before, s)
                    if s == Strictness.GENTLE and w is not None:
                        times.append(time.monotonic() - t1)
                        kinds[w.kind.value] = kinds.get(w.kind.value, 0) + 1
                    warned[s.value] += w is not None
            n = len(entries)
            out[label] = {"positions": n, "warned": warned,
                          "rate": {s: round(k / max(1, n), 3) for s, k in warned.items()},
                          "kinds (gentle)": kinds, "time_to_warning_s": quantiles(times)}
    finally:
        host.close()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
