"""Time used per move against the time given, through OTEP as a host sees it.

    nice -n 10 python3 bench/timing.py [--moves 20] [--variant copenhagen]

Drives ``python -m companion.engine`` (no level: full strength for the time given) through
:class:`companion.engine.OtepHost`, a game against itself, under each of several time controls:
an overtime period of 1 s and 2 s per move (``clock 2000* 2000* 2 99 99``, as OpenTafl and the
matches send it), main time (60 s, then 30 s left, no overtime), main time with overtime
periods to follow, and ``--time 2``. For each it prints the budget the engine gives itself
(``companion.engine.timing``), the time per move the host measured (mean, median, p95, max,
the request's sending to the move's arrival) and how many moves went over the time allowed.
Print the load average with it: on a busy machine a niced engine may not be scheduled on time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.engine.otep_host import EngineClock, OtepHost  # noqa: E402
from companion.engine.timing import from_clock, per_move  # noqa: E402
from companion.rules import PRESETS, Board  # noqa: E402

ENGINE = [sys.executable, "-m", "companion.engine"]


def run(label: str, argv: list[str], clock: EngineClock | None, allowed: float,
        budget: float, variant: str, moves: int) -> None:
    host = OtepHost(argv, name=label)
    board = Board(PRESETS[variant])
    times = []
    try:
        host.request_move(board, clock=clock).result(60)  # start the process (not counted)
        for _ in range(moves):
            if board.outcome() is not None:
                break
            started = time.monotonic()
            answer = host.request_move(board, clock=clock).result(60)
            times.append(time.monotonic() - started)
            assert answer.move is not None
            board.push(board.parse_move(answer.move)[0])
    finally:
        host.close()
    times.sort()
    over = sum(1 for t in times if t > allowed)
    print(f"{label:34} budget {budget:5.2f} s  used mean {sum(times) / len(times):5.2f}  "
          f"median {times[len(times) // 2]:5.2f}  p95 {times[int(len(times) * 0.95)]:5.2f}  "
          f"max {times[-1]:5.2f}  over {allowed:g} s: {over}/{len(times)}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--moves", type=int, default=20)
    ap.add_argument("--variant", default="copenhagen", choices=sorted(PRESETS))
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}, {args.variant}, {args.moves} moves each")
    for period in (1.0, 2.0):
        clock = EngineClock(period, period, True, True, period, 99, 99)
        run(f"overtime period {period:g} s", ENGINE, clock, period,
            from_clock(period, True, period, 99).hard, args.variant, args.moves)
    for main_left in (60.0, 30.0):
        clock = EngineClock(main_left, main_left)
        b = from_clock(main_left, False)
        run(f"main time {main_left:g} s left", ENGINE, clock, b.hard, b.soft, args.variant,
            args.moves)
    clock = EngineClock(30.0, 30.0, False, False, 5.0, 3, 3)
    b = from_clock(30.0, False, 5.0, 3)
    run("main 30 s + 3 periods of 5 s", ENGINE, clock, b.hard, b.soft, args.variant, args.moves)
    run("--time 2", [*ENGINE, "--time", "2"], None, 2.0, per_move(2.0).hard, args.variant,
        args.moves)


if __name__ == "__main__":
    main()
