"""Board geometry derived from a rule set: square indices, masks, neighbours, rays.

Squares are integers ``rank * size + file`` with ``a1 == 0``; a bitboard is a Python int with
bit ``i`` set for square ``i``. One :class:`Geometry` is built per rule set and cached.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator
from functools import lru_cache
from typing import SupportsIndex

from ..squares import square_names
from .ruleset import RuleSet

# direction steps as (dfile, drank): north, south, east, west
DIRECTIONS = ((0, 1), (0, -1), (1, 0), (-1, 0))


class Geometry:
    """Precomputed tables for one rule set's board."""

    def __init__(self, rules: RuleSet) -> None:
        n = rules.size
        self.n = n
        self.count = n * n
        self.full = (1 << self.count) - 1
        self.bit = [1 << i for i in range(self.count)]
        self.names = list(square_names(n))
        file_a = sum(1 << (r * n) for r in range(n))
        self.not_file_a = self.full & ~file_a
        self.not_file_last = self.full & ~(file_a << (n - 1))
        self.edge = 0
        for i in range(self.count):
            f, r = i % n, i // n
            if f in (0, n - 1) or r in (0, n - 1):
                self.edge |= 1 << i
        self.throne = (n // 2) * n + n // 2 if rules.has_throne else -1
        self.throne_bit = (1 << self.throne) if self.throne >= 0 else 0
        self.corner = 0
        if rules.corners != "none":
            ends = (0, n - 1) if rules.corners == "single" else (0, 1, n - 2, n - 1)
            for f in ends:
                for r in ends:
                    near_f = 0 if f < n // 2 else n - 1
                    near_r = 0 if r < n // 2 else n - 1
                    # a 2x2 block: both coordinates within one of the corner
                    if abs(f - near_f) <= 1 and abs(r - near_r) <= 1:
                        self.corner |= 1 << (r * n + f)
        # rays[i][d]: squares from i (exclusive) outwards in direction d
        self.rays: list[tuple[tuple[int, ...], ...]] = []
        # neighbours[i]: (n1, n2) per direction where n1 is on the board; n2 is -1 off-board
        self.pairs: list[tuple[tuple[int, int], ...]] = []
        self.adjacent: list[tuple[int, ...]] = []
        for i in range(self.count):
            f, r = i % n, i // n
            rays = []
            pairs = []
            for df, dr in DIRECTIONS:
                ray = []
                ff, rr = f + df, r + dr
                while 0 <= ff < n and 0 <= rr < n:
                    ray.append(rr * n + ff)
                    ff, rr = ff + df, rr + dr
                rays.append(tuple(ray))
                if ray:
                    pairs.append((ray[0], ray[1] if len(ray) > 1 else -1))
            self.rays.append(tuple(rays))
            self.pairs.append(tuple(pairs))
            self.adjacent.append(tuple(p[0] for p in pairs))
        # for each square its two neighbours along each line: ((w, e), (s, n)), -1 off-board
        self.lines: list[tuple[tuple[int, int], tuple[int, int]]] = []
        for i in range(self.count):
            first = [ray[0] if ray else -1 for ray in self.rays[i]]
            self.lines.append(((first[3], first[2]), (first[1], first[0])))
        # the square one step towards the centre from an edge square (-1 on corners)
        self.inward = [-1] * self.count
        for i in range(self.count):
            f, r = i % n, i // n
            on_fe, on_re = f in (0, n - 1), r in (0, n - 1)
            if on_fe and not on_re:
                self.inward[i] = i + (1 if f == 0 else -1)
            elif on_re and not on_fe:
                self.inward[i] = i + (n if r == 0 else -n)

    def iter_bits(self, bits: SupportsIndex) -> Iterator[int]:
        """Yield the indices of the set bits of ``bits`` (an int, or a
        :class:`~companion.rules.move.SquareSet`) in ascending order."""
        bb = operator.index(bits)
        while bb:
            low = bb & -bb
            yield low.bit_length() - 1
            bb ^= low


@lru_cache(maxsize=64)
def geometry_for(rules: RuleSet) -> Geometry:
    """The (cached) geometry of a rule set."""
    return Geometry(rules)
