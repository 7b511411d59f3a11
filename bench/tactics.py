"""The level ladder on forced wins: how many won positions each level converts.

    nice -n 10 python3 bench/tactics.py [--games 8] [--levels 1 2 3 4 5 6 7 8]

Self-play decides nearly every engine game for the defenders, so a pair of games rarely tells
two levels apart. This measures what a level does with a won position instead. The positions:
seeded games of level 6 against itself (brandubh, copenhagen) that the rules decided, taken 1,
3, 5, 7 and 9 plies before their end with the winner to move, kept when a full-strength search
(2 s of CPU) proves the win. A level *converts* a position when its move keeps the win (the
game ends at once, or a 1 s search proves the opponent lost). Budgets are CPU time (fair on a
busy machine).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.engine.player import Engine  # noqa: E402
from companion.rules import PRESETS, Board  # noqa: E402


def cpu_engine(rules, level: int, seed: int = 0) -> Engine:
    engine = Engine(rules, level, seed=seed)
    engine.searcher.use_cpu_clock()
    return engine


def positions(variant: str, games: int) -> list[tuple[Board, int]]:
    """``(position, plies to the forced win)`` pairs from seeded self-play."""
    rules = PRESETS[variant]
    out = []
    for g in range(games):
        board = Board(rules)
        a, d = cpu_engine(rules, 6, seed=100 + g), cpu_engine(rules, 6, seed=200 + g)
        first = True
        while board.outcome() is None and len(board.move_stack) < 300:
            engine = a if board.turn == "attackers" else d
            if first:  # a different opening each game
                moves = board.legal_moves()
                move = sorted(moves, key=lambda m: (m.frm * 7 + m.to * 13 + g) % 97)[0]
                board.push(move)
                first = False
                continue
            board.push(board.parse_move(engine.choose(board).move)[0])
        outcome = board.outcome()
        if outcome is None or outcome.winner is None:
            continue
        stack = list(board.move_stack)
        for back in (1, 3, 5, 7, 9):
            if back > len(stack):
                continue
            probe = Board(rules)
            for m in stack[: len(stack) - back]:
                probe.push(m)
            if probe.turn != outcome.winner:
                continue
            check = cpu_engine(rules, 10).choose(probe, seconds=2.0)
            if check.mate is not None and check.mate > 0:
                out.append((probe, check.mate))
    return out


def converts(board: Board, move: str) -> bool:
    """Whether ``move`` keeps the win of the side to move."""
    board.push(board.parse_move(move)[0])  # on the board itself: its history counts
    try:
        outcome = board.outcome()
        if outcome is not None:
            return outcome.winner is not None and outcome.winner != board.turn
        answer = cpu_engine(board.rules, 10).choose(board, seconds=1.0)
        return answer.mate is not None and answer.mate < 0
    finally:
        board.pop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--variants", nargs="+", default=["brandubh", "copenhagen"])
    ap.add_argument("--games", type=int, default=8)
    ap.add_argument("--levels", type=int, nargs="+", default=[1, 2, 3, 4, 5, 6, 7, 8])
    args = ap.parse_args()
    suite: list[tuple[str, Board, int]] = []
    for variant in args.variants:
        found = positions(variant, args.games)
        print(f"{variant}: {len(found)} won positions (wins in "
              f"{sorted(k for _, k in found)} plies)", flush=True)
        suite += [(variant, b, k) for b, k in found]
    print(f"\n{'level':>5} {'converted':>10} {'of':>4}  {'rate':>5}")
    for level in args.levels:
        good = 0
        for _variant, board, _ in suite:
            choice = cpu_engine(board.rules, level, seed=7).choose(board)
            good += converts(board, choice.move)
        print(f"{level:5} {good:10} {len(suite):4}  {good / max(len(suite), 1):5.0%}",
              flush=True)


if __name__ == "__main__":
    main()
