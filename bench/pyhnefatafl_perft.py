"""Perft baseline for the third-party ``pyhnefatafl`` engine (Copenhagen 11x11 start).

Counts the leaves of the legal-move tree from the standard 11x11 start position
(attackers, which pyhnefatafl calls BLACK, move first) at depths 1..N and prints, per
depth, the leaf count, the wall-clock seconds and the leaves per second. A position whose
game is over (``Board.outcome()`` is not ``None``) is a leaf and is not expanded further.
This is only a speed baseline for our own rules engine; it is not part of the package
and is not run by the test suite.

Setup (outside the repo; pyhnefatafl 0.3.2 needs Python < 3.12 and numpy < 2; the
distribution is ``pyhnefatafl`` but the module it installs is ``hnefatafl``)::

    python3.11 -m venv /tmp/pyhnef-venv
    /tmp/pyhnef-venv/bin/pip install pyhnefatafl==0.3.2 "numpy<2"

Run with the venv's interpreter::

    /tmp/pyhnef-venv/bin/python bench/pyhnefatafl_perft.py [DEPTH] [--start N] [--bulk]

DEPTH defaults to 3. ``--start`` skips the shallower depths. By default every move,
including those at the last ply, is made with ``Board.push`` and unmade with
``Board.pop``; ``--bulk`` instead counts the legal moves at depth-1 nodes without
making them (the usual "bulk counting" shortcut; same counts, far fewer pushes).

pyhnefatafl API used (from ``hnefatafl/__init__.py`` in the venv's site-packages):

* ``hnefatafl.Board()``: the start position, BLACK (attackers) to move. Of its
  subclasses, ``KingCapturedEasierBoard`` and ``KingEscapeAndCaptureEasierBoard`` are
  easier variants (two-sided king capture, edge escape) and are not used here.
* ``Board.generate_legal_moves()``: yields ``hnefatafl.Move(from_square, to_square)``.
* ``Board.push(move)`` / ``Board.pop()``: make / unmake (pop restores a saved state).
* ``Board.outcome()``: ``None`` while the game goes on; otherwise king captured,
  king escaped to a corner, or "stalemate" (no legal moves, or ``Board.move_limit``
  = 100 full moves reached).

Rules pyhnefatafl does not implement, compared with Copenhagen: shieldwall captures,
edge forts (exit forts), the attackers' win by encircling all defenders, the loss by
perpetual repetition, and the loss for a side with no legal move (it is a draw there).
None of these can occur within the first four plies from the start position.
"""

from __future__ import annotations

import argparse
import sys
import time

try:
    import hnefatafl
except ImportError:  # pragma: no cover - only when run with the wrong interpreter
    sys.exit(
        "pyhnefatafl is not importable here; run this with /tmp/pyhnef-venv/bin/python "
        "(see the module docstring for the setup)"
    )

# Copenhagen Hnefatafl 11x11 perft from the start position, attackers first.
EXPECTED = {1: 116, 2: 6_788, 3: 806_344, 4: 50_456_804}


def perft(board: hnefatafl.Board, depth: int) -> int:
    """Leaf count with a push/pop for every move, the last ply included."""
    if depth == 0:
        return 1
    if board.outcome() is not None:
        return 1
    moves = list(board.generate_legal_moves())
    if depth == 1:
        for move in moves:
            board.push(move)
            board.pop()
        return len(moves)
    nodes = 0
    for move in moves:
        board.push(move)
        nodes += perft(board, depth - 1)
        board.pop()
    return nodes


def perft_bulk(board: hnefatafl.Board, depth: int) -> int:
    """Leaf count that counts the moves at depth-1 nodes without making them."""
    if depth == 0:
        return 1
    if board.outcome() is not None:
        return 1
    if depth == 1:
        return sum(1 for _ in board.generate_legal_moves())
    nodes = 0
    for move in list(board.generate_legal_moves()):
        board.push(move)
        nodes += perft_bulk(board, depth - 1)
        board.pop()
    return nodes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("depth", nargs="?", type=int, default=3, help="deepest depth (3)")
    parser.add_argument("--start", type=int, default=1, help="shallowest depth (1)")
    parser.add_argument(
        "--bulk", action="store_true", help="count the last ply's moves without making them"
    )
    args = parser.parse_args(argv)
    if args.depth < 1 or not 1 <= args.start <= args.depth:
        parser.error("need 1 <= --start <= DEPTH")

    count = perft_bulk if args.bulk else perft
    print(
        f"pyhnefatafl perft, {'bulk counting' if args.bulk else 'push/pop every move'}, "
        f"Python {sys.version.split()[0]}",
        flush=True,
    )
    print(f"{'depth':>5} {'nodes':>12} {'expected':>12} {'seconds':>10} {'nodes/s':>12}")
    mismatches = 0
    for depth in range(args.start, args.depth + 1):
        board = hnefatafl.Board()
        start = time.perf_counter()
        nodes = count(board, depth)
        seconds = time.perf_counter() - start
        expected = EXPECTED.get(depth)
        mark = "" if expected is None or expected == nodes else "  MISMATCH"
        mismatches += bool(mark)
        exp_text = f"{expected:,}" if expected is not None else "-"
        print(
            f"{depth:>5} {nodes:>12,} {exp_text:>12} {seconds:>10.3f} "
            f"{nodes / seconds:>12,.0f}{mark}",
            flush=True,
        )
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
