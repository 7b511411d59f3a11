"""Puzzles from imported OpenTafl records (docs/coach.md): a record with ``puzzle-mode`` and
``puzzle-start`` (kept in its origin by ``companion.web.imports``) becomes a puzzle of the
store's library, its comment the one at the puzzle's start."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from companion.coach.puzzles import from_record
from companion.session.api import ImportedGame
from companion.store_rows import StoredPuzzle


def puzzles_of(games: Sequence[ImportedGame]) -> list[StoredPuzzle]:
    """The puzzles among ``games`` (for ``Store.save_puzzles``)."""
    out: list[StoredPuzzle] = []
    for g in games:
        marker = g.origin.get("puzzle")
        if not isinstance(marker, Mapping):
            continue
        start = marker.get("start", 0)
        comments = g.origin.get("comments") or {}
        comment = ""
        if isinstance(comments, Mapping):
            comment = str(comments.get(str(start)) or comments.get("0") or "")
        name = str(g.origin.get("name", ""))
        puzzle = from_record(g.game, int(start) if isinstance(start, int) else 0, comment,
                             f"OpenTafl file {name}" if name else "OpenTafl file")
        if puzzle is not None:
            out.append(StoredPuzzle(puzzle.id, puzzle.variant, dict(puzzle.to_json())))
    return out
