"""Perft: the leaf count of the legal-move tree, fast.

A finished game is a leaf that is not expanded; no repetition history is assumed. The last ply
is counted without being played: soldier moves are summed a whole rank or file at a time from
cached line tables (occupancy and own pieces of one line -> number of moves), which is what
makes perft(4) of an 11×11 game feasible in pure Python.
"""

from __future__ import annotations

from . import core
from .board import Board
from .geometry import Geometry
from .ruleset import RuleSet


class PerftCounter:
    """Counts perft leaves for one rule set."""

    def __init__(self, rules: RuleSet, geo: Geometry) -> None:
        self.rules, self.geo = rules, geo
        n = geo.n
        self.n = n
        self.mask = (1 << n) - 1
        self.tbit = [1 << ((i % n) * n + i // n) for i in range(geo.count)]
        soldier = core.Mover(geo, rules, False, False)
        # per line (row r == column r by symmetry): blocked / no-stop positions
        self.line_blocked = []
        self.line_nostop = []
        for r in range(n):
            blocked = nostop = 0
            for p in range(n):
                b = geo.bit[r * n + p]
                if soldier.blocked & b:
                    blocked |= 1 << p
                if soldier.no_stop & b:
                    nostop |= 1 << p
            self.line_blocked.append(blocked)
            self.line_nostop.append(nostop)
        self.tables: list[dict[int, int]] = [{} for _ in range(n)]
        self.movers = {
            (k, t): core.Mover(geo, rules, k, t) for k in (False, True) for t in (False, True)
        }

    def _line_count(self, r: int, occ: int, own: int) -> int:
        n = self.n
        blocked, nostop = self.line_blocked[r], self.line_nostop[r]
        total = 0
        w = own
        while w:
            low = w & -w
            p = low.bit_length() - 1
            w ^= low
            for step in (1, -1):
                q = p + step
                while 0 <= q < n:
                    b = 1 << q
                    if occ & b or blocked & b:
                        break
                    if not nostop & b:
                        total += 1
                    q += step
        self.tables[r][occ | (own << n)] = total
        return total

    def count_soldier_moves(self, occ: int, occt: int, own: int, ownt: int) -> int:
        """Number of moves of the soldiers ``own`` (``ownt``: the same, transposed)."""
        n, m, tables = self.n, self.mask, self.tables
        total = 0
        shift = 0
        for r in range(n):
            w = (own >> shift) & m
            if w:
                o = (occ >> shift) & m
                v = tables[r].get(o | (w << n))
                total += v if v is not None else self._line_count(r, o, w)
            w = (ownt >> shift) & m
            if w:
                o = (occt >> shift) & m
                v = tables[r].get(o | (w << n))
                total += v if v is not None else self._line_count(r, o, w)
            shift += n
        return total

    def perft(self, board: Board, depth: int) -> int:
        """Leaf count from ``board`` to ``depth`` plies."""
        if depth == 0 or board.move_outcome() is not None:
            return 1
        geo = self.geo
        attt = sum(self.tbit[i] for i in geo.iter_bits(board.att))
        dfnt = sum(self.tbit[i] for i in geo.iter_bits(board.dfn))
        return self._node(
            board.att, board.dfn, attt, dfnt, board.king, board.turn == "attackers",
            board.king_left, depth,
        )

    def _node(
        self, att: int, dfn: int, attt: int, dfnt: int, king: int, att_moves: bool,
        king_left: bool, depth: int,
    ) -> int:
        geo, rules = self.geo, self.rules
        bit, tbit = geo.bit, self.tbit
        kbit = bit[king] if king >= 0 else 0
        occ = att | dfn | kbit
        king_open = core.king_may_stop_on_throne(rules, king_left)
        if depth == 1:
            occt = attt | dfnt | (tbit[king] if king >= 0 else 0)
            if att_moves:
                count = self.count_soldier_moves(occ, occt, att, attt)
            else:
                count = self.count_soldier_moves(occ, occt, dfn, dfnt)
                if king >= 0:
                    count += len(
                        core.piece_destinations(geo, occ, king, self.movers[(True, king_open)])
                    )
            return count or 1
        soldier = self.movers[(False, king_open)]
        total = 0
        any_move = False
        pieces = att if att_moves else dfn
        squares = list(geo.iter_bits(pieces))
        if not att_moves and king >= 0:
            squares.append(king)
        compute_captures, move_result = core.compute_captures, core.move_result
        for frm in squares:
            is_king = frm == king
            mover = self.movers[(True, king_open)] if is_king else soldier
            for to in core.piece_destinations(geo, occ, frm, mover):
                any_move = True
                a, d, at, dt, k, kl = att, dfn, attt, dfnt, king, king_left
                if att_moves:
                    a ^= bit[frm] | bit[to]
                    at ^= tbit[frm] | tbit[to]
                elif is_king:
                    k = to
                    if frm == geo.throne:
                        kl = True
                else:
                    d ^= bit[frm] | bit[to]
                    dt ^= tbit[frm] | tbit[to]
                cap = compute_captures(geo, rules, a, d, k, to, att_moves)
                if cap:
                    for s in geo.iter_bits(cap):
                        if s == k:
                            k = -1
                        elif att_moves:
                            d ^= bit[s]
                            dt ^= tbit[s]
                        else:
                            a ^= bit[s]
                            at ^= tbit[s]
                if move_result(geo, rules, a, d, k, kl, to, is_king, att_moves):
                    total += 1
                else:
                    total += self._node(a, d, at, dt, k, not att_moves, kl, depth - 1)
        return total if any_move else 1


def perft(board: Board, depth: int) -> int:
    """Leaf count of the legal-move tree of ``board`` to ``depth`` plies (a decided position
    is a leaf, and no repetition history is assumed: ``tafl-companion rules perft``).

    >>> from companion.rules import Board
    >>> perft(Board("copenhagen"), 2)
    6788
    """
    if depth < 0:
        raise ValueError("depth must be >= 0")
    return PerftCounter(board.rules, board.geo).perft(board, depth)


def perft_slow(board: Board, depth: int) -> int:
    """Reference perft through :class:`Board` push/pop (for tests; slow)."""
    if depth == 0 or board.outcome() is not None:
        return 1
    total = 0
    for move in board.legal_moves():
        board.push_unchecked(move)
        total += perft_slow(board, depth - 1)
        board.pop()
    return total
