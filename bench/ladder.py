"""The level ladder: every level against the one below it, on nodes, with Elo intervals.

    nice -n 15 python3 bench/ladder.py --variant brandubh --pairs 30 --jobs 2
    nice -n 15 python3 bench/ladder.py --variant copenhagen --scale 0.25 --steps 5 6 7

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

from selfplay import parse_spec, run_match  # noqa: E402

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
    args = ap.parse_args()
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


if __name__ == "__main__":
    main()
