"""Build the shipped puzzle library from positions of the corpus of real games.

    python tools/build_puzzles.py [--minutes 12] [--last 12] [--every 0]
        # tests/data/{copenhagen,brandubh}.csv -> companion/coach/puzzles/<variant>.json.gz

Each game is replayed with the rules core (it stops at a move the rules refuse); the positions of
its last ``--last`` plies (and, with ``--every N``, every N-th position before them) where the
side that went on to win is to move (either side in a drawn or unfinished game) are examined by
:class:`companion.coach.puzzle_maker.Maker`: a forced escape, capture of the king or other
win in 1-5 moves by the side to move, the first move unique, verified by the engine with its
pruning off. The run stops scanning after ``--minutes`` (the cap; the time is split between the
variants by their games). Prints the figures: positions scanned, candidates, puzzles kept by
length, dropped (not unique, over the node budget), the deepest verification, nodes, time and
bytes written.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.coach.puzzle_maker import (  # noqa: E402
    MAX_MOVES,
    PROBE_NODES,
    VERIFY_NODES,
    Maker,
    check_line,
)
from companion.coach.puzzles import SHIPPED, Puzzle, dumps  # noqa: E402
from companion.rules import get_variant  # noqa: E402
from companion.rules.game import Game  # noqa: E402

WINNER = {"White": "defenders", "Black": "attackers"}


def games(path: Path) -> list[tuple[list[str], str | None]]:
    """Each game's moves and its winner (None: drawn or unfinished)."""
    out = []
    with path.open(newline="") as fh:
        for row in csv.reader(fh):
            if row and not row[0].startswith("#"):
                out.append(([m for m in row[0].split() if m != "timeout"],
                            WINNER.get(row[-1].strip())))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=12.0)
    ap.add_argument("--last", type=int, default=12)
    ap.add_argument("--every", type=int, default=0)
    ap.add_argument("--out", type=Path, default=ROOT / "companion" / "coach" / "puzzles")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    records = {v: games(ROOT / "tests" / "data" / f"{v}.csv") for v in SHIPPED}
    total_games = sum(len(g) for g in records.values())
    print(f"cap {args.minutes:g} min; the last {args.last} plies of each game"
          f"{f', every {args.every}th before' if args.every else ''}; at most {MAX_MOVES} "
          f"moves; probe {PROBE_NODES:,} nodes, verification {VERIFY_NODES:,} nodes a move")
    for variant in SHIPPED:
        rules = get_variant(variant)
        maker = Maker(rules, variant)
        budget = args.minutes * 60 * len(records[variant]) / total_games
        start = time.monotonic()
        cpu = time.process_time()
        found: dict[str, Puzzle] = {}
        seen: set[str] = set()
        stopped = False
        for number, (moves, winner) in enumerate(records[variant], 1):
            game = Game(rules)
            positions = []
            for text in moves:
                positions.append(game.copy())
                try:
                    game.play_text(text)
                except ValueError:
                    break
            n = len(positions)
            chosen = [i for i in range(n) if i >= n - args.last
                      or (args.every and i % args.every == 0)]
            for i in chosen:
                g = positions[i]
                if winner is not None and g.turn != winner:
                    continue  # the side that went on to win is to move
                key = f"{g.board.otn()} {g.turn}"
                if key in seen:
                    continue
                seen.add(key)
                puzzle = maker.examine(g, source=f"corpus game {number}, ply {i + 1}")
                if puzzle is not None:
                    problem = check_line(puzzle)
                    if problem is None:
                        found.setdefault(puzzle.id, puzzle)
                    else:
                        print(f"  refused {puzzle.id}: {problem}")
                if time.monotonic() - start > budget:
                    stopped = True
                    break
            if stopped:
                print(f"  {variant}: the cap stopped the scan after game {number} of "
                      f"{len(records[variant])}")
                break
        puzzles = sorted(found.values(), key=lambda p: (p.rating, p.id))
        data = dumps(puzzles)
        (args.out / f"{variant}.json.gz").write_bytes(data)
        f = maker.figures
        lengths = ", ".join(f"{k}: {v}" for k, v in sorted(f.by_moves.items()))
        deepest = 2 * max(f.by_moves, default=0) - 1
        goals = {g: sum(1 for p in puzzles if p.goal == g) for g in ("escape", "capture", "win")}
        print(f"{variant}: {f.scanned} positions scanned, {f.candidates} candidates, "
              f"{len(puzzles)} puzzles kept (by moves {lengths}; {goals}); dropped: "
              f"{f.not_unique} not unique, {f.over_budget} over the node budget, {f.refused} "
              f"not confirmed; verified full width to {max(deepest, 0)} plies at most (a win in N "
              f"moves to 2N-1); {f.nodes:,} nodes; {time.monotonic() - start:.0f} s "
              f"({time.process_time() - cpu:.0f} s CPU); {len(data):,} bytes")


if __name__ == "__main__":
    main()
