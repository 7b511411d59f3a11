"""The transposition table: what earlier searches learnt about positions, by position key."""

from __future__ import annotations

from .position import Position
from .scores import MATE_BOUND

# what an entry's score is: the exact score, a lower bound (it failed high), an upper bound
EXACT, LOWER, UPPER = 0, 1, 2


class TranspositionTable:
    """Entries ``key -> (depth, flag, score, best move)`` of the positions searched in one game;
    win and loss scores are stored as distances from the position, not from the root. Holds
    about ``capacity`` entries (cleared at twice that: a Pi Zero has 512 MB)."""

    def __init__(self, capacity: int = 400_000) -> None:
        self.entries: dict[int, tuple[int, int, int, int]] = {}
        self.capacity = capacity

    def new_search(self) -> None:
        """Start a search: clear the table if it has grown beyond its capacity."""
        if len(self.entries) > self.capacity:
            self.entries.clear()

    def clear(self) -> None:
        """Forget every entry (a new game)."""
        self.entries.clear()

    def best_move(self, key: int) -> int:
        """The best move stored for ``key`` (0: none)."""
        entry = self.entries.get(key)
        return entry[3] if entry else 0

    def store(self, key: int, depth: int, flag: int, score: int, move: int, ply: int) -> None:
        """Store a search's result ``ply`` plies below the root."""
        if score >= MATE_BOUND:
            score += ply
        elif score <= -MATE_BOUND:
            score -= ply
        entries = self.entries
        if len(entries) >= self.capacity * 2:
            entries.clear()
        entries[key] = (depth, flag, score, move)

    def principal_variation(self, pos: Position, first: int) -> list[int]:
        """The expected line from ``pos``: ``first``, then the stored best moves."""
        pv = [first]
        pos.make(first)
        made = 1
        seen = {pos.key}
        while made < 32 and pos.result is None:
            entry = self.entries.get(pos.key)
            if entry is None or not entry[3] or entry[3] not in pos.moves():
                break
            pos.make(entry[3])
            made += 1
            if pos.key in seen:
                break
            seen.add(pos.key)
            pv.append(entry[3])
        for _ in range(made):
            pos.unmake()
        return pv
