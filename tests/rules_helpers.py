"""Test helpers for the rules tests: OTN as a grid of cells, the 8 symmetries of the square, and
seeded random playouts. Written independently of the core's OTN code, so they can check it."""

from __future__ import annotations

import random

from companion.rules import Board


def cells(position: str, n: int) -> list[list[str]]:
    """OTN -> rows of cells (``"."`` empty), first row = rank 1."""
    rows = position.strip().strip("/").split("/")
    assert len(rows) == n
    out = []
    for row in rows:
        line: list[str] = []
        run = ""
        for ch in row:
            if ch.isdigit():
                run += ch
                continue
            line += ["."] * int(run or 0) + [ch]
            run = ""
        line += ["."] * int(run or 0)
        assert len(line) == n, row
        out.append(line)
    return out


def write(grid: list[list[str]]) -> str:
    """Rows of cells -> OTN."""
    rows = []
    for line in grid:
        text, run = "", 0
        for ch in line:
            if ch == ".":
                run += 1
            else:
                text += (str(run) if run else "") + ch
                run = 0
        rows.append(text + (str(run) if run else ""))
    return "/" + "/".join(rows) + "/"


def transform(position: str, n: int, k: int) -> str:
    """The position under symmetry ``k`` (0..7): bit 0 mirrors the files, bit 1 the ranks,
    bit 2 swaps files and ranks (together: the dihedral group of the square)."""
    src = cells(position, n)
    dst = [["."] * n for _ in range(n)]
    for r in range(n):
        for f in range(n):
            x, y = f, r
            if k & 1:
                x = n - 1 - x
            if k & 2:
                y = n - 1 - y
            if k & 4:
                x, y = y, x
            dst[y][x] = src[r][f]
    return write(dst)


def playout(rules, seed: int, plies: int) -> Board:
    """A reachable position: ``plies`` seeded random moves from the start (stopping before the
    game ends)."""
    rng = random.Random(seed)
    b = Board(rules)
    for _ in range(plies):
        moves = b.legal_moves()
        if not moves:
            break
        b.push(rng.choice(moves))
        if b.outcome() is not None:
            b.pop()
            break
    return b
