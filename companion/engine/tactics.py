"""The tactical squares of a position, which the search orders and prunes moves by: where a
move captures, where the king has an open line to escape, and where an attacker stops him."""

from __future__ import annotations

from companion.rules import core
from companion.rules.ruleset import RuleSet

from .position import ATT, Position, Tables


class TacticalSquares:
    """Bitboards of a rule set's tactical squares, from tables built once (the squares between
    two squares of a line, each square's neighbours); the king's moves cached by position."""

    def __init__(self, rules: RuleSet, t: Tables) -> None:
        self.rules = rules
        self.t = t
        geo = t.geo
        n = geo.n
        # between[a << 9 | b]: the squares strictly between a and b on one line
        self.between: dict[int, int] = {}
        for a in range(geo.count):
            for ray in geo.rays[a]:
                acc = 0
                for s in ray:
                    self.between[a << 9 | s] = acc
                    acc |= 1 << s
        self.adjacent_bb = [sum(1 << a for a in geo.adjacent[s]) for s in range(geo.count)]
        self.full = geo.full
        self.fmask_e2 = 0  # squares whose file allows a +2 step east
        self.fmask_w2 = 0
        for s in range(geo.count):
            if s % n <= n - 3:
                self.fmask_e2 |= 1 << s
            if s % n >= 2:
                self.fmask_w2 |= 1 << s
        self.kd_cache: dict[int, tuple[int, int]] = {}

    def clear(self) -> None:
        """Forget the cached king moves (a new game)."""
        self.kd_cache.clear()

    def capture_squares(self, pos: Position) -> int:
        """Empty squares where an arriving piece of the side to move captures a soldier (the
        ordinary custodial pattern; used to order moves)."""
        t = self.t
        n = t.n
        occ = pos.occupied
        throne_empty = not occ & t.geo.throne_bit
        if pos.side == ATT:
            victims = pos.dfn
            closer = pos.att | ((t.corner_vs_def | (t.throne_vs_def if throne_empty else 0))
                                & ~occ)
        else:
            victims = pos.att
            closer = pos.dfn | (1 << pos.king if pos.king >= 0 and self.rules.king_armed
                                else 0)
            closer |= (t.corner_vs_att | (t.throne_vs_att if throne_empty else 0)) & ~occ
        sq = ((victims >> 1) & (closer >> 2) & self.fmask_e2)
        sq |= ((victims << 1) & (closer << 2) & self.fmask_w2)
        sq |= (victims >> n) & (closer >> (2 * n))
        sq |= (victims << n) & (closer << (2 * n))
        return sq & self.full & ~occ

    def king_escape_info(self, pos: Position) -> tuple[int, int]:
        """``(king destinations, escape squares among them)`` (0, 0 without a king); cached
        by position key."""
        key = pos.key
        info = self.kd_cache.get(key)
        if info is None:
            king = pos.king
            if king < 0:
                info = (0, 0)
            else:
                kd = pos.destinations_bb(king, pos.king_lines(), pos.occupied, pos.occT())
                info = (kd, kd & self.t.escape_mask)
            if len(self.kd_cache) > 300_000:
                self.kd_cache.clear()
            self.kd_cache[key] = info
        return info

    def block_mask(self, king: int, esc: int) -> int:
        """Squares that block every open line from the king to the escape squares ``esc``."""
        mask = 0
        while esc:
            low = esc & -esc
            esc ^= low
            e = low.bit_length() - 1
            mask |= self.between[king << 9 | e] | low
        return mask

    def king_capture_squares(self, pos: Position) -> int:
        """The empty squares beside the king where an attacker arriving would capture him
        (with the rarer captures of the king, every empty square beside him)."""
        king = pos.king
        if king < 0:
            return 0
        geo = self.t.geo
        occ = pos.occupied
        if self.t.special_capture:
            return self.adjacent_bb[king] & ~occ
        out = 0
        for a in geo.adjacent[king]:
            b = 1 << a
            if not occ & b and core.king_is_captured(geo, self.rules, pos.att | b, occ | b,
                                                     king, a):
                out |= b
        return out

    def stop_escape_mask(self, pos: Position, esc: int) -> int:
        """Where an attacker stops the king's escape to ``esc``: every square of his one open
        line (with two or more open, no single move blocks them all), and the squares where
        an attacker captures him."""
        mask = self.king_capture_squares(pos)
        if esc and not esc & (esc - 1):
            mask |= self.block_mask(pos.king, esc)
        return mask

    def guard_squares(self, pos: Position, threats: int) -> int:
        """Squares where an attacker stops the king's raichi threats ``threats`` (squares he
        can move to with an open line from there): the threat squares, the king's path to them
        and their lines to the escape squares."""
        king = pos.king
        lines = pos.king_lines()
        occ = pos.occupied ^ 1 << king
        occT = pos.occT() ^ self.t.tbit[king]
        escape = self.t.escape_mask
        between = self.between
        mask = threats
        rest = threats
        while rest:
            low = rest & -rest
            rest ^= low
            d = low.bit_length() - 1
            mask |= between[king << 9 | d]
            mask |= self.block_mask(d, pos.destinations_bb(d, lines, occ, occT) & escape)
        return mask & ~escape
