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

``--daemon N``: the same for N of the Brandubh moves that lost in two through a real daemon on
the simulated board (the coach on the mover's side, the clicks of a hand, ``/api/state`` polled
every 5 ms): from the wall time the move was accepted (``accepted_at``) to the first state with
the warning.
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


def through_daemon(entries: list[dict[str, object]], seconds: float) -> dict[str, object]:
    """Time from a move's acceptance to the warning in the state, on a real daemon."""
    import dataclasses
    import tempfile
    import urllib.request

    from companion.coach.config import CoachConfig
    from companion.config import DaemonConfig, with_overrides
    from companion.daemon import Daemon

    pin = "2468"

    def call(base: str, path: str, body: object = None) -> dict[str, object]:
        req = urllib.request.Request(base + path, method="POST" if body is not None else "GET",
                                     data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Content-Type": "application/json",
                                              "X-Tafl-Request": "1", "X-Tafl-Pin": pin})
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())  # type: ignore[no-any-return]

    def until(pred, limit: float = 60.0):  # type: ignore[no-untyped-def]
        end = time.monotonic() + limit
        while time.monotonic() < end:
            got = pred()
            if got:
                return got
            time.sleep(0.005)
        return None

    with tempfile.TemporaryDirectory() as tmp:
        cfg = with_overrides(DaemonConfig(), data_dir=tmp, port=0, host="127.0.0.1", pin=pin,
                             variant="brandubh")
        d = Daemon(dataclasses.replace(cfg, coach=CoachConfig(seconds=seconds)))
        d.start()
        base = f"http://127.0.0.1:{d.port}/"
        times: list[float] = []
        missed = 0
        try:
            for e in entries:
                call(base, "api/new", {"variant": "brandubh", "position": e["position"],
                                       "turn": e["turn"], "coach": e["turn"]})
                until(lambda: call(base, "api/state")["tracking"] == "ready")
                time.sleep(2 * seconds)  # the look before the move, as while a person thinks
                frm, _, to = str(e["move"]).partition("-")
                for sq in (frm, to):
                    call(base, "api/click", {"square": sq})
                st = until(lambda: (s := call(base, "api/state"))["coach"]["warning"] and s)  # type: ignore[index]
                if not st:
                    missed += 1
                    continue
                times.append(time.time() - float(st["accepted_at"]))  # type: ignore[arg-type]
        finally:
            d.stop()
    return {"positions": len(entries), "missed": missed,
            "accepted_to_warning_s (upper bound: the poll's time included)": quantiles(times)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=0.5, help="each look (default 0.5)")
    ap.add_argument("--limit", type=int, default=0, help="at most N positions a set")
    ap.add_argument("--daemon", type=int, default=0, metavar="N",
                    help="time N Brandubh warnings through a real daemon instead")
    args = ap.parse_args()
    data = json.loads((ROOT / "tests" / "data" / "coach_positions.json").read_text())
    if args.daemon:
        chosen = [e for e in data["in_two"] if e["variant"] == "brandubh"][: args.daemon]
        print(json.dumps({"seconds": args.seconds, **through_daemon(chosen, args.seconds)},
                         indent=1))
        return
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
