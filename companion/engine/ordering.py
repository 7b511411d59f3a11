"""Move ordering: which moves the search tries first (the best move stored for the position,
captures, killer moves, then quiet moves by history)."""

from __future__ import annotations

from .position import DEF, Position
from .tactics import TacticalSquares
from .transposition import TranspositionTable

MAX_PLY = 128  # plies with killer moves


class MoveOrder:
    """The killer moves (two quiet moves per ply that refuted a sibling, this search) and the
    history (how often and how deep each quiet move refuted a position, this game, aged by
    each new search)."""

    def __init__(self, tactics: TacticalSquares, table: TranspositionTable) -> None:
        self.tactics = tactics
        self.table = table
        self.moves = tactics.t.count << 9  # moves are from << 9 | to
        self.history = [0] * self.moves
        self.killers: list[list[int]] = [[0, 0] for _ in range(MAX_PLY)]

    def new_search(self) -> None:
        """Start a search: forget the killers, age the history."""
        for k in self.killers:
            k[0] = k[1] = 0
        self.history = [h >> 3 for h in self.history]

    def new_game(self) -> None:
        """Forget the history."""
        self.history = [0] * self.moves

    def order_root(self, pos: Position, moves: list[int]) -> list[int]:
        """The root moves in order: the stored best move, the king's moves to escape, captures,
        then by history."""
        tt_move = self.table.best_move(pos.key)
        caps = self.tactics.capture_squares(pos)
        kd, esc = self.tactics.king_escape_info(pos)
        history = self.history

        def key(m: int) -> int:
            if m == tt_move:
                return -10**9
            to = m & 511
            s = 0
            if esc and pos.side == DEF and (m >> 9) == pos.king and esc >> to & 1:
                s -= 10**8
            if caps >> to & 1:
                s -= 10**6
            return s - history[m]

        return sorted(moves, key=key)

    def order(
        self, moves: list[int], tt_move: int, caps: int, ply: int, guard_sq: int
    ) -> tuple[list[int], int]:
        """``moves`` in order and how many come before the quiet ones: the stored best move
        ``tt_move``, the captures (moves onto ``caps``), the killers of ``ply``, then the
        quiet moves by history (moves onto ``guard_sq`` first)."""
        hist = self.history
        front: list[int] = []
        quiet: list[int] = []
        for m in moves:
            if m == tt_move:
                continue
            if caps >> (m & 511) & 1:
                front.append(m)
            else:
                quiet.append(m)
        if guard_sq:
            quiet.sort(key=lambda m: hist[m] + (1 << 40 if guard_sq >> (m & 511) & 1 else 0),
                       reverse=True)
        else:
            quiet.sort(key=hist.__getitem__, reverse=True)
        k0, k1 = self.killers[ply] if ply < MAX_PLY else (0, 0)
        ordered = [tt_move] if tt_move and tt_move in moves else []
        ordered += front
        if k0 and k0 in quiet:
            quiet.remove(k0)
            ordered.append(k0)
        if k1 and k1 in quiet:
            quiet.remove(k1)
            ordered.append(k1)
        n_front = len(ordered)
        ordered += quiet
        return ordered, n_front

    def refuted(self, move: int, ply: int, depth: int) -> None:
        """The quiet ``move`` refuted the position at ``ply`` searched to ``depth``."""
        if ply < MAX_PLY:
            killers = self.killers[ply]
            if killers[0] != move:
                killers[1] = killers[0]
                killers[0] = move
            self.history[move] += depth * depth
