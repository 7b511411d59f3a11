"""Which variant CSV game records were played in, for an import that does not say.

A CSV record (docs/interfaces.md) lists moves only; the variant is what a person chooses on the
import form, else it is found here:

1. the project's own exports carry a ``# variant: ID`` header line: that preset;
2. otherwise every preset whose board holds the squares the moves name, and under whose rules
   every record replays (legal moves, the captures listed, the final status), in the order of
   ``PRESETS`` (Copenhagen before Fetlar: two variants on one board with the same start often
   both fit a game, and then the first is taken and the others named, so the page can offer
   them).

Nothing here reads the network: the caller (``POST /api/import``) has parsed and bounded the
records already.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from companion.rules import PRESETS
from companion.rules.records import Record, replay_record

_HEADER = re.compile(r"^#\s*variant:\s*([a-z0-9-]+)", re.MULTILINE)
_SQUARE = re.compile(r"([a-z])(\d{1,2})")


@dataclass(frozen=True)
class Found:
    """The variant found for some records: ``variant`` (None: none fits), how (``"header"`` or
    ``"moves"``), every preset that fits, and, when none does, the nearest one's problem."""

    variant: str | None
    how: str
    fits: tuple[str, ...] = ()
    nearest: str | None = None
    problem: str = ""


def header_variant(text: str) -> str | None:
    """The preset a ``# variant: ID`` header line names (the project's exports), or None."""
    m = _HEADER.search(text)
    return m.group(1) if m and m.group(1) in PRESETS else None


def board_needed(records: list[Record]) -> int:
    """The smallest board size that holds every square the records' moves name."""
    size = 1
    for record in records:
        for move in record.moves:
            for letter, rank in _SQUARE.findall(move):
                size = max(size, ord(letter) - ord("a") + 1, int(rank))
    return size


def find_variant(text: str, records: list[Record]) -> Found:
    """The variant of ``records`` (the CSV file's ``text`` for its header)."""
    said = header_variant(text)
    if said is not None:
        return Found(said, "header", (said,))
    need = board_needed(records)
    fits: list[str] = []
    best: tuple[int, str, str] | None = None  # (moves replayed, variant, problem)
    for vid, rules in PRESETS.items():
        if rules.size < need:
            continue
        replayed, problem = 0, ""
        for i, record in enumerate(records, 1):
            _game, wrong = replay_record(rules, record)
            if wrong is not None:
                replayed += wrong[0] - 1
                problem = f"game {i}, move {wrong[0]}: {wrong[1]}"
                break
            replayed += len(record.moves)
        if not problem:
            fits.append(vid)
        elif best is None or replayed > best[0]:
            best = (replayed, vid, problem)
    if fits:
        return Found(fits[0], "moves", tuple(fits))
    if best is None:
        return Found(None, "moves", problem=f"no variant has a board of {need}x{need} or more")
    return Found(None, "moves", nearest=best[1], problem=best[2])
