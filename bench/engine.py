"""Engine speed and depth: nodes per second, depth reached and time used per move at fixed
times per move, from a fixed set of positions of copenhagen, brandubh and tablut.

    nice -n 10 python3 bench/engine.py            # 1 s and 5 s per move
    nice -n 10 python3 bench/engine.py --times 1  # quicker
    nice -n 15 python3 bench/engine.py --level 6 --slowdown 10  # a Pi Zero 2 W's worst case

The positions are the start and two middlegame positions per variant, reached by seeded
self-play of level 4 (so the benchmark needs no data files and is the same every run). The
time per move is wall-clock time, as in a game; ``cpu`` is the CPU time the search got (on a
busy machine it is less), and ``/cpu-s`` the nodes per CPU second, the engine's own speed.
With ``--cpu`` the time per move is CPU time instead: the figures one free core would give.

``--level N`` instead plays the level as it plays in a game (its own limits) from the start and
two middlegame positions of every preset and prints the time of each move and the worst;
``--slowdown F`` emulates a machine F times slower than one core here (a Raspberry Pi Zero 2 W
is about 10): the engine's clock is the CPU time times F, so its time cap binds as it would
there, every figure is CPU seconds times F, and the first move of a preset includes building its
tables, the engine process's start to ``hello`` is added to the worst.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.engine import native as native_module  # noqa: E402
from companion.engine import position as position_module  # noqa: E402
from companion.engine.player import Engine  # noqa: E402
from companion.engine.search import score_text  # noqa: E402
from companion.rules import PRESETS, Board  # noqa: E402
from companion.rules.geometry import geometry_for  # noqa: E402

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


def engine_start_cpu(level: int) -> float:
    """CPU seconds (user + system) of starting ``python3 -m companion.engine`` to its
    ``hello`` and ending it: what a new game costs before the first search."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "companion.engine", "--level", str(level)],
                   input="goodbye\n", capture_output=True, text=True, check=True,
                   cwd=Path(__file__).resolve().parent.parent)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


NATIVE: bool | None = None  # --native: the native core, pure Python, or where available


def level_times(level: int, variants: list[str], slowdown: float) -> float:
    """The time per move of ``level`` in every position of ``variants`` on a machine
    ``slowdown`` times slower than one core here, emulated: the engine's clock is this process's
    CPU time times ``slowdown`` (so its time cap binds as it would there) and every figure is
    CPU seconds times ``slowdown``. The first move of each preset includes building its tables
    (a new game). Returns the worst time."""
    position_module._TABLES.clear()
    worst = (0.0, "")
    cap = Engine(PRESETS["brandubh"], level).level.seconds
    print(f"level {level}, emulated {slowdown:g}x slower than one core here (time cap {cap:g} s)")
    print(f"{'variant':16} {'position':8} {'setup':>6} {'move s':>6} {'depth':>5} {'nodes':>8}  "
          "move")
    for variant in variants:
        rules = PRESETS[variant]
        boards = positions(variant)
        position_module._TABLES.pop(rules, None)
        geometry_for.cache_clear()
        use_native = NATIVE
        if NATIVE and native_module.supported(rules) is not None:
            use_native = None  # --native on: a preset the native core cannot play plays Python
            variant = f"{variant} (py)"
        for i, (label, board) in enumerate(boards):
            cpu0 = time.process_time()
            engine = Engine(rules, level, native=use_native)
            engine.searcher.use_cpu_clock(slowdown)
            setup = (time.process_time() - cpu0) * slowdown if i == 0 else 0.0
            cpu1 = time.process_time()
            choice = engine.choose(board)
            used = (time.process_time() - cpu1) * slowdown
            print(f"{variant:16} {label:8} {setup:6.2f} {used:6.2f} {choice.depth:5} "
                  f"{choice.nodes:8}  {choice.move}", flush=True)
            worst = max(worst, (setup + used, f"{variant} {label}"))
    start = engine_start_cpu(level) * slowdown
    print(f"engine process start to hello: {start:.2f} s")
    print(f"worst move: {worst[0]:.2f} s ({worst[1]}; with setup); with the process start "
          f"{worst[0] + start:.2f} s, emulated {slowdown:g}x slower (cap {cap:g} s + 10 %)")
    return worst[0] + start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--times", type=float, nargs="+", default=[1.0, 5.0])
    ap.add_argument("--variants", nargs="+", default=list(VARIANTS))
    ap.add_argument("--cpu", action="store_true",
                    help="measure the time per move in CPU time: what one free core gives")
    ap.add_argument("--level", type=int, help="time the moves of this level, every preset")
    ap.add_argument("--slowdown", type=float, default=1.0,
                    help="with --level: emulate a machine this many times slower (a Pi Zero 2 W: "
                         "10)")
    ap.add_argument("--native", choices=("auto", "on", "off"), default="auto",
                    help="the native core (default: where it is available) or pure Python")
    args = ap.parse_args()
    global NATIVE
    NATIVE = {"auto": None, "on": True, "off": False}[args.native]
    if args.level:
        level_times(args.level, sorted(PRESETS) if args.variants == list(VARIANTS)
                    else args.variants, args.slowdown)
        return
    print(f"{'variant':12} {'position':8} {'budget':>6} {'used':>6} {'cpu':>6} {'depth':>5} "
          f"{'nodes':>8} {'nodes/s':>8} {'/cpu-s':>8}  score   move")
    for variant in args.variants:
        rules = PRESETS[variant]
        for label, board in positions(variant):
            for budget in args.times:
                engine = Engine(rules, 10, native=NATIVE)
                if args.cpu:
                    engine.searcher.use_cpu_clock()
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
