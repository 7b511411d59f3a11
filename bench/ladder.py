"""The level ladder: the levels' Elo against a fixed anchor or the level below, with intervals.

    nice -n 10 python3 bench/ladder.py --variant copenhagen --anchor level=10,time=0.2,cpu=1 \
        --anchored 5 6 7 8 9 10 --time-scale 0.05 --steps 2 3 4 5 --pairs 4
    nice -n 15 python3 bench/ladder.py --variant brandubh --pairs 30 --jobs 2
    nice -n 15 python3 bench/ladder.py --variant copenhagen --scale 0.25 --steps 5 6 7

With ``--anchor SPEC`` (a bench/selfplay.py player: the engine's full strength at a fixed time
a move, ``cpu=1`` for CPU seconds so that the load does not change it) every level of
``--anchored`` plays the anchor as it plays in a game (its own node or depth limit; a
time-limited level, 9 or 10, its seconds times ``--time-scale``, in CPU seconds), and its rating
is ``--anchor-rating`` plus its Elo against the anchor. The levels of ``--steps`` below the
lowest anchored one are chained down from it: level N-1's rating is level N's minus what N
scored against N-1 (a weak level scores nothing against the anchor, which measures nothing).
Prints every match as it finishes and a table of the ratings with their intervals.

Without ``--anchor``:

Each step ``N`` is a match of level N against level N-1 (bench/selfplay.py: paired openings,
colours swapped). The levels play on nodes alone, so a match means the same on a busy machine
and on a Pi: a node-limited level's limit is multiplied by ``--scale``; a time-limited level
(9, 10) gets its seconds times ``--nps`` (the engine's nodes per CPU second on one core here)
times ``--scale``; depth-limited levels (1-4) are played as they are. Prints one line per step as
it finishes and the table at the end, with the cumulative Elo over level 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from selfplay import Spec, parse_spec, run_match  # noqa: E402

from companion.engine.levels import get_level  # noqa: E402
from companion.rules import PRESETS  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--variant", default="brandubh", choices=sorted(PRESETS))
    ap.add_argument("--steps", type=int, nargs="+", default=list(range(2, 11)),
                    help="the upper level of each step (2-10)")
    ap.add_argument("--pairs", type=int, default=20, help="pairs of games per step")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--nps", type=int, default=80_000)
    ap.add_argument("--book", help="openings from recorded games (a corpus CSV)")
    ap.add_argument("--opening-plies", type=int, default=4)
    ap.add_argument("--max-plies", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--anchor", help="a fixed opponent (selfplay player spec) for --anchored")
    ap.add_argument("--anchor-rating", type=int, default=2000)
    ap.add_argument("--anchored", type=int, nargs="+", default=[5, 6, 7, 8, 9, 10])
    ap.add_argument("--time-scale", type=float, default=1.0,
                    help="with --anchor: levels 9-10 think their seconds times this")
    args = ap.parse_args()
    if args.anchor:
        anchor_ladder(args)
        return
    rows = []
    for upper in args.steps:
        opts = f"scale={args.scale:g},nps={args.nps}"
        a, b = parse_spec(f"level={upper},{opts}"), parse_spec(f"level={upper - 1},{opts}")
        summary = run_match(
            args.variant, a, b, args.pairs, opening_plies=args.opening_plies,
            max_plies=args.max_plies, seed=args.seed, book=args.book, jobs=args.jobs,
            verbose=False,
        )
        e, lo, hi = summary.interval()
        att = summary.side_wins["attackers"] / max(summary.games, 1)
        row = (f"{upper} vs {upper - 1}", summary.games,
               f"{summary.wins}-{summary.draws}-{summary.losses}", e, lo, hi, att,
               summary.seconds)
        rows.append(row)
        print(f"{row[0]:8} games {row[1]:3}  A {row[2]:9}  Elo {e:+5.0f} ({lo:+.0f} .. {hi:+.0f})"
              f"  attackers won {att:4.0%}  {summary.seconds:.0f} s", flush=True)
    print(f"\n{args.variant}, nodes scaled by {args.scale:g} (levels 9-10: {args.nps} nodes/s)")
    print("| step | games | won-drawn-lost | Elo (95 %) | attackers won |")
    print("|---|---|---|---|---|")
    for name, games, wdl, e, lo, hi, att, _ in rows:
        print(f"| {name} | {games} | {wdl} | {e:+.0f} ({lo:+.0f} .. {hi:+.0f}) | {att:.0%} |")


def level_spec(number: int, time_scale: float) -> Spec:
    """Level ``number`` as it plays in a game, its time in CPU seconds; a time-limited level
    (9, 10) thinks its seconds times ``time_scale``."""
    lv = get_level(number)
    extra = f",time={lv.seconds * time_scale:g}" if lv.nodes is None and lv.depth is None else ""
    return parse_spec(f"level={number},cpu=1{extra}")


def anchor_ladder(args: argparse.Namespace) -> None:
    """Every anchored level against the anchor, then the steps chained down from the lowest."""
    anchor = parse_spec(args.anchor)
    ratings: dict[int, tuple[float, float, float]] = {}
    lines = []

    def match(a: Spec, b: Spec) -> tuple[float, float, float, str]:
        summary = run_match(
            args.variant, a, b, args.pairs, opening_plies=args.opening_plies,
            max_plies=args.max_plies, seed=args.seed, book=args.book, jobs=args.jobs,
            verbose=False)
        e, lo, hi = summary.interval()
        text = (f"{a.text:28} vs {b.text:28} games {summary.games:3}  "
                f"{summary.wins}-{summary.draws}-{summary.losses}  score {summary.score:.3f}  "
                f"Elo {e:+5.0f} ({lo:+.0f} .. {hi:+.0f})  {summary.seconds:.0f} s")
        print(text, flush=True)
        lines.append(text)
        return e, lo, hi, f"{summary.wins}-{summary.draws}-{summary.losses}"

    rows = []
    for number in sorted(args.anchored, reverse=True):
        e, lo, hi, wdl = match(level_spec(number, args.time_scale), anchor)
        r = args.anchor_rating
        ratings[number] = (r + e, r + lo, r + hi)
        rows.append((number, f"anchor ({args.anchor})", 2 * args.pairs, wdl, e, lo, hi))
    for upper in sorted((s for s in args.steps if s - 1 not in ratings), reverse=True):
        if upper not in ratings:
            raise SystemExit(f"step {upper} vs {upper - 1}: level {upper} has no rating yet")
        e, lo, hi, wdl = match(level_spec(upper, args.time_scale),
                               level_spec(upper - 1, args.time_scale))
        r, r_lo, r_hi = ratings[upper]  # the lower level's interval adds the upper's
        ratings[upper - 1] = (r - e, r_lo - hi, r_hi - lo)
        rows.append((upper - 1, f"level {upper}", 2 * args.pairs, wdl, -e, -hi, -lo))
    print(f"\n{args.variant}, anchor {args.anchor} rated {args.anchor_rating}; time-limited "
          f"levels at their seconds x {args.time_scale:g}; {args.pairs} pairs a match")
    print("| level | against | games | won-drawn-lost | Elo (95 %) | rating (95 %) |")
    print("|---|---|---|---|---|---|")
    for number, against, games, wdl, e, lo, hi in sorted(rows):
        r, r_lo, r_hi = ratings[number]
        if against.startswith("level"):  # the step's result from the lower level's side
            w, d, lost = wdl.split("-")
            wdl = f"{lost}-{d}-{w}"
        print(f"| {number} | {against} | {games} | {wdl} | {e:+.0f} ({lo:+.0f} .. {hi:+.0f}) "
              f"| {r:.0f} ({r_lo:.0f} .. {r_hi:.0f}) |")
    print("RATINGS = {" + ", ".join(f"{n}: {ratings[n][0]:.0f}" for n in sorted(ratings)) + "}")


if __name__ == "__main__":
    main()
