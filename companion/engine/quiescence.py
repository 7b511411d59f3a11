"""The tafl quiescence search: below the main search's horizon, only the forcing moves.

Tafl's forcing moves are the king's: a king with an open line to an escape square must be
answered at once. So (1) a defender to move with an open escape line has won in one, (2) the
attackers may answer an escape threat only with moves that block the line or take the king
(none: a loss in two), (3) the defenders try the king's moves that open such a line (a
*raichi*; two lines at once, a *tuichi*, is won), and (4) captures.
"""

from __future__ import annotations

from .budget import SearchBudget
from .evaluate import Evaluator
from .position import ATT, DEF, Position
from .scores import INF, WIN, StaticScores, decided_score
from .tactics import TacticalSquares


class Quiescence:
    """Searches the forcing moves of a position to ``qdepth`` plies (counting its nodes in the
    search's budget)."""

    def __init__(
        self, evaluator: Evaluator, tactics: TacticalSquares, scores: StaticScores,
        budget: SearchBudget, qdepth: int = 6,
    ) -> None:
        self.evaluator = evaluator
        self.tactics = tactics
        self.budget = budget
        self.qdepth = qdepth
        # attackers facing a raichi threat may stand pat only after the defenders' free move
        # is searched, at quiescence plies below this (0: off; see Searcher)
        self.qthreat = 0
        # the calls made at every node, bound once
        self.evaluate = scores.evaluate
        self.escape_info = tactics.king_escape_info
        self.capture_squares = tactics.capture_squares

    def quiesce(self, pos: Position, alpha: int, beta: int, ply: int, qd: int) -> int:
        """The score of ``pos`` (``ply`` plies below the root, ``qd`` in quiescence) within
        ``alpha``..``beta``."""
        budget = self.budget
        budget.nodes += 1
        if not budget.nodes & 127:
            budget.check()
        if pos.result is not None:
            return decided_score(pos, ply)
        side = pos.side
        king = pos.king
        kd, esc = self.escape_info(pos)
        if esc:
            if side == DEF:
                return WIN - ply - 1
            # attackers must block the line(s) or take the king
            moves = pos.moves()
            if not moves:
                res = pos.no_moves_result()
                return 0 if res[0] is None else (WIN - ply if res[0] == side else -(WIN - ply))
            block = self.tactics.stop_escape_mask(pos, esc)
            forcing = [m for m in moves if block >> (m & 511) & 1]
            if not forcing:
                return -(WIN - ply - 2)
            if qd >= self.qdepth:
                return self.evaluate(pos)
            return self.best_of(pos, forcing, -INF, alpha, beta, ply, qd)
        stand = self.evaluate(pos)
        if qd >= self.qdepth:
            return stand
        guard = 0
        if side == ATT and king >= 0 and qd < self.qthreat:
            # the king threatens to move where he has an open line (a raichi next move):
            # standing pat is worth what the defenders make of a free move
            threats = kd & self.evaluator.escape_lines(pos)[0]
            if threats:
                pos.make_null()
                stand = min(stand, -self.quiesce(pos, -beta, -alpha, ply + 1, qd + 1))
                pos.unmake()
                if stand >= beta:
                    return stand
                guard = self.tactics.guard_squares(pos, threats)
        if stand >= beta:
            return stand
        if stand > alpha:
            alpha = stand
        best = stand
        caps = self.capture_squares(pos)
        targets = caps | guard
        if side == ATT and king >= 0:
            targets |= self.tactics.king_capture_squares(pos)
        candidates: list[int] = []
        if targets:
            for m in pos.moves():
                if targets >> (m & 511) & 1:
                    candidates.append(m)
        if side == DEF and king >= 0 and qd < 2:
            _, threats = self.evaluator.king_threat_squares(pos)
            if threats:
                candidates += [king << 9 | d for d in pos.geo.iter_bits(threats)]
        return self.best_of(pos, candidates, best, alpha, beta, ply, qd)

    def best_of(self, pos: Position, moves: list[int], best: int, alpha: int, beta: int,
                ply: int, qd: int) -> int:
        """The best of ``best`` and the scores of ``moves`` from ``pos`` (each searched in
        quiescence, in order, until one reaches ``beta``)."""
        for m in moves:
            pos.make(m)
            s = -self.quiesce(pos, -beta, -alpha, ply + 1, qd + 1)
            pos.unmake()
            if s > best:
                best = s
                if s > alpha:
                    alpha = s
                    if s >= beta:
                        break
        return best
