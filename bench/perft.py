"""Perft speed of the rules core: nodes per second for Copenhagen perft(3) and perft(4).

    python bench/perft.py            # perft(3) and perft(4)
    python bench/perft.py --depth 5  # deeper (slow)

The baseline to compare with is the Python package pyhnefatafl 0.3.2, measured side by side by
``bench/pyhnefatafl_perft.py`` in its own virtual environment (it needs Python < 3.12 and
numpy < 2). Prints figures only; this is not a timed test.
"""

from __future__ import annotations

import argparse
import time

from companion.rules import Board, get_variant, perft

EXPECTED = {1: 116, 2: 6_788, 3: 806_344, 4: 50_456_804}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="copenhagen")
    parser.add_argument("--depth", type=int, default=4, help="deepest perft to run (from 3)")
    args = parser.parse_args()
    board = Board(get_variant(args.variant))
    for depth in range(3, args.depth + 1):
        start = time.perf_counter()
        cpu0 = time.process_time()
        nodes = perft(board, depth)
        wall = time.perf_counter() - start
        cpu = time.process_time() - cpu0
        check = ""
        if args.variant == "copenhagen" and depth in EXPECTED:
            check = "ok" if nodes == EXPECTED[depth] else f"WRONG (expected {EXPECTED[depth]})"
        print(
            f"{args.variant} perft({depth}) = {nodes:,} leaves in {wall:.2f} s "
            f"(cpu {cpu:.2f} s): {nodes / wall:,.0f} nodes/s {check}"
        )


if __name__ == "__main__":
    main()
