"""The squares from which the king would have an open line to escape, found by line fills
over the whole board at once."""

from __future__ import annotations

from companion.rules import core
from companion.rules.ruleset import RuleSet

from .position import Position, Tables


class EscapeLines:
    """The open lines to escape of a rule set's positions, cached by occupancy. ``need_e2``:
    find the squares two lines away too (else only on request)."""

    def __init__(self, rules: RuleSet, t: Tables, need_e2: bool = False) -> None:
        self.t = t
        geo = t.geo
        n = geo.n
        self.escape = t.escape_mask
        full = geo.full
        # line fills: squares the king may pass, and may stop on, when empty
        king_mover = core.Mover(geo, rules, True, True)
        self.king_pass = full & ~king_mover.blocked & ~self.escape
        self.king_stop = full & ~king_mover.no_stop & ~self.escape
        # once he has left it, the king may not stop on the throne again in some rule sets
        closed = core.Mover(geo, rules, True, False)
        self.king_stop_closed = full & ~closed.no_stop & ~closed.blocked & ~self.escape
        steps = []
        k = 1
        while k < n:
            steps.append(k)
            k *= 2
        self.fill_plan = ((tuple(k * n for k in steps), full),
                          (tuple(steps), geo.not_file_a))
        self.fill_plan_down = ((tuple(k * n for k in steps), full),
                               (tuple(steps), geo.not_file_last))
        self.lines_cache: dict[int, tuple[int, int]] = {}
        self.need_e2 = need_e2

    def line_fill(self, seeds: int, empty: int) -> int:
        """Squares reached from ``seeds`` by rook lines through ``empty`` squares (the seeds
        themselves not included unless reached): a Kogge-Stone fill in the four directions."""
        out = 0
        for shifts, mask in self.fill_plan:
            # towards higher squares (north, east)
            g, e = seeds, empty & mask
            for k in shifts:
                g |= e & (g << k)
                e &= e << k
            out |= g
        for shifts, mask in self.fill_plan_down:
            g, e = seeds, empty & mask
            for k in shifts:
                g |= e & (g >> k)
                e &= e >> k
            out |= g
        return out & empty

    def escape_lines(self, pos: Position, need_e2: bool | None = None) -> tuple[int, int]:
        """``(E1, E2)``: the empty squares (the king's counted as empty) where the king may
        stop and would have an open line to an escape square, and those with an open line to
        an E1 square (two moves from escape; only with ``need_e2`` here or on the instance).
        Cached by occupancy."""
        occ = pos.att | pos.dfn
        closed = not self.t.may_throne and pos.king_left
        key = occ << 1 | closed
        cached = self.lines_cache.get(key)
        if cached is None or (need_e2 and cached[1] < 0):
            stop = self.king_stop_closed if closed else self.king_stop
            empty = self.king_pass & ~occ
            e1 = self.line_fill(self.escape & ~occ, empty) & stop
            e2 = -1
            if self.need_e2 or need_e2:
                e2 = self.line_fill(e1, empty) & ~e1 & stop
            if len(self.lines_cache) > 200_000:
                self.lines_cache.clear()
            cached = self.lines_cache[key] = (e1, e2)
        return cached

