"""Encirclement: where the king and the defenders could still walk, step by step through
squares without attackers (the king sealed in, the defenders cut off from the edge)."""

from __future__ import annotations

from .position import Tables


class Encirclement:
    """Walks on a rule set's board through the squares without attackers."""

    def __init__(self, t: Tables) -> None:
        self.t = t
        geo = t.geo
        self.escape = t.escape_mask
        self.full = geo.full
        self.not_a = geo.not_file_a
        self.not_last = geo.not_file_last

    def flood(self, seeds: int, att: int) -> int:
        """The squares reached from ``seeds`` by steps through squares without attackers."""
        free = self.full & ~att
        n, not_a, not_last = self.t.n, self.not_a, self.not_last
        reach = seeds & free
        while True:
            grown = (
                reach | ((reach << 1) & not_a) | ((reach >> 1) & not_last) | (reach << n)
                | (reach >> n)
            ) & free
            if grown == reach:
                return reach
            reach = grown

    def escapes_reached(self, att: int, king: int) -> int:
        """How many escape squares the king could walk to (through squares without
        attackers; 0: he is sealed in)."""
        return (self.flood(1 << king, att) & self.escape).bit_count()

    def defenders_room(self, att: int, dfn: int, king: int) -> int:
        """The squares the defenders (the king with them) could walk to, their own included."""
        return self.flood(dfn | (1 << king if king >= 0 else 0), att)

    def reaches_escape(self, att: int, king: int) -> bool:
        """Whether the king could walk to an escape square through non-attacker squares."""
        free = self.full & ~att
        reach = 1 << king
        target = self.escape
        n, not_a, not_last = self.t.n, self.not_a, self.not_last
        while True:
            if reach & target:
                return True
            grown = (
                reach | ((reach << 1) & not_a) | ((reach >> 1) & not_last) | (reach << n)
                | (reach >> n)
            ) & free
            if grown == reach:
                return False
            reach = grown
