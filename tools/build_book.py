"""Build the opening explorer's shipped books from the corpus of real games.

    python tools/build_book.py   # tests/data/{copenhagen,brandubh}.csv -> companion/coach/book/

Each game's first BOOK_PLIES plies are replayed with the rules core (a game stops counting at a
move the rules refuse); positions are keyed by placement and side to move. Prints the figures
(games read, positions, moves, bytes written).
"""

from __future__ import annotations

import csv
import gzip
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.coach.explorer import Book  # noqa: E402

STATUS = {"White": "defenders", "Black": "attackers", "Draw": "draw"}


def games(path: Path):
    with path.open(newline="") as fh:
        for row in csv.reader(fh):
            if not row or row[0].startswith("#"):
                continue
            moves = [m for m in row[0].split() if m != "timeout"]
            yield moves, STATUS.get(row[-1].strip(), "unfinished")


def main() -> None:
    out = ROOT / "companion" / "coach" / "book"
    out.mkdir(parents=True, exist_ok=True)
    for variant in ("copenhagen", "brandubh"):
        book = Book.build(variant, games(ROOT / "tests" / "data" / f"{variant}.csv"))
        data = gzip.compress(json.dumps(book.to_json(), separators=(",", ":"),
                                        sort_keys=True).encode(), 9, mtime=0)
        (out / f"{variant}.json.gz").write_bytes(data)
        moves = sum(len(m) for m in book.table.values())
        print(f"{variant}: {book.games} games, {len(book.table)} positions, {moves} position-moves,"
              f" {len(data)} bytes")


if __name__ == "__main__":
    main()
