"""Engine speed and depth: nodes per second, depth reached and time used per move at fixed
times per move, from a fixed set of positions of copenhagen, brandubh and tablut.

    nice -n 10 python3 bench/engine.py            # 1 s and 5 s per move
    nice -n 10 python3 bench/engine.py --times 1  # quicker

The positions are the start and two middlegame positions per variant, reached by seeded
self-play of level 4 (so the benchmark needs no data files and is the same every run). The
time per move is wall-clock time, as in a game; ``cpu`` is the CPU time the search got (on a
busy machine it is less), and ``/cpu-s`` the nodes per CPU second, the engine's own speed.
With ``--cpu`` the time per move is CPU time instead: the figures one free core would give.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.engine.player import Engine  # noqa: E402
from companion.engine.search import score_text  # noqa: E402
from companion.rules import PRESETS, Board  # noqa: E402

VARIANTS = ("copenhagen", "brandubh", "tablut")
PLIES = (0, 12, 30)


def positions(variant: str) -> list[tuple[str, Board]]:
    """The benchmark positions of a variant."""
    rules = PRESETS[variant]
    out = []
    board = Board(rules)
    engine = Engine(rules, 4, seed=11)
    for ply in range(max(PLIES) + 1):
        if ply in PLIES:
            snap = Board(rules, board.otn(), board.turn)
            out.append((f"ply {ply}", snap))
        if board.outcome() is not None:
            break
        board.push(board.parse_move(engine.choose(board).move)[0])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--times", type=float, nargs="+", default=[1.0, 5.0])
    ap.add_argument("--variants", nargs="+", default=list(VARIANTS))
    ap.add_argument("--cpu", action="store_true",
                    help="measure the time per move in CPU time: what one free core gives")
    args = ap.parse_args()
    print(f"{'variant':12} {'position':8} {'budget':>6} {'used':>6} {'cpu':>6} {'depth':>5} "
          f"{'nodes':>8} {'nodes/s':>8} {'/cpu-s':>8}  score   move")
    for variant in args.variants:
        rules = PRESETS[variant]
        for label, board in positions(variant):
            for budget in args.times:
                engine = Engine(rules, 10)
                if args.cpu:
                    engine.searcher.clock = time.process_time
                start, cpu0 = time.monotonic(), time.process_time()
                choice = engine.choose(board, seconds=budget)
                used, cpu = time.monotonic() - start, time.process_time() - cpu0
                nps = choice.nodes / used if used else 0
                cps = choice.nodes / cpu if cpu else 0
                print(f"{variant:12} {label:8} {budget:6.1f} {used:6.2f} {cpu:6.2f} "
                      f"{choice.depth:5} {choice.nodes:8} {nps:8.0f} {cps:8.0f}  "
                      f"{score_text(choice.score):7} {choice.move}", flush=True)


if __name__ == "__main__":
    main()
