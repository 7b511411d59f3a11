"""The search: iterative deepening (:mod:`.deepening`), principal-variation alpha-beta with a
transposition table (:mod:`.transposition`), move ordering (:mod:`.ordering`: TT move,
captures, killers, history), late-move reductions, null-move pruning, frontier pruning, and a
tafl quiescence search (:mod:`.quiescence`).

The main search extends a move that gives the king an open line to escape by one ply; the
attackers facing such a line may only block it or take the king (see :mod:`.quiescence`).

Scores are from the side to move's point of view; a win in ``k`` plies is ``WIN - k``.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from companion.rules.ruleset import RuleSet

from .budget import Abort, Limits, SearchBudget
from .deepening import Info, IterativeDeepening, Result
from .evaluate import Evaluator, Weights
from .ordering import MoveOrder
from .position import ATT, DEF, Position
from .quiescence import Quiescence
from .scores import INF, MATE_BOUND, WIN, StaticScores, decided_score, score_text
from .tactics import TacticalSquares
from .transposition import EXACT, LOWER, UPPER, TranspositionTable

# frontier pruning: quiet moves searched at depth 1, 2, 3 before the rest are skipped, and the
# margins under alpha from which only the first quiet move is tried
LMP = (0, 8, 16, 30)
FUTILITY = (0, 150, 350)


class Searcher:
    """Searches positions of one rule set. Keeps its transposition table and history between
    searches of one game (call :meth:`new_game` between games). The pruning switches are
    attributes (benchmarks turn them off to measure what each is worth)."""

    def __init__(
        self, rules: RuleSet, weights: Weights | None = None, tt_entries: int = 400_000,
        qdepth: int = 6,
    ) -> None:
        self.rules = rules
        self.evaluator = Evaluator(rules, weights)
        self.t = self.evaluator.t
        self.tactics = TacticalSquares(rules, self.t)
        self.table = TranspositionTable(tt_entries)
        self.ordering = MoveOrder(self.tactics, self.table)
        self.budget = SearchBudget()
        self.scores = StaticScores(self.evaluator)
        self.quiescence = Quiescence(self.evaluator, self.tactics, self.scores, self.budget,
                                     qdepth)
        # pruning switches
        self.lmp: tuple[int, ...] = LMP
        self.futility: tuple[int, ...] = FUTILITY
        self.null_move = True
        self.lmr = True
        self.tt_cutoffs = True  # off only to compare searches exactly (tests)
        # Three switches, off by default: none gained in self-play (Brandubh, 8,000 nodes a
        # move, 60 games each: guard moves -23 Elo (-90..+42), qthreat 2 +0 (-46..+46),
        # aspiration 50 +23 (-22..+69); docs/engine.md). bench/selfplay.py turns them on with
        # s.guard=on, s.qthreat=N, s.aspiration=N.
        # attackers' moves onto the king's lines or the squares with an open line to escape
        # are ordered first among quiet moves and neither pruned nor reduced much
        self.guard_moves = False
        # (qthreat: see :class:`Quiescence`)
        # aspiration window at the root (hundredths of a soldier; 0: off) from depth 4 on
        self.aspiration = 0
        # the calls made at every node, bound once
        self.evaluate = self.scores.evaluate
        self.escape_info = self.tactics.king_escape_info
        self.capture_squares = self.tactics.capture_squares
        self.quiesce = self.quiescence.quiesce

    @property
    def qdepth(self) -> int:
        """The quiescence search's depth in plies."""
        return self.quiescence.qdepth

    @qdepth.setter
    def qdepth(self, plies: int) -> None:
        self.quiescence.qdepth = plies

    @property
    def qthreat(self) -> int:
        """Quiescence plies below which attackers facing a raichi threat stand pat only after
        the defenders' free move is searched (0: off)."""
        return self.quiescence.qthreat

    @qthreat.setter
    def qthreat(self, plies: int) -> None:
        self.quiescence.qthreat = plies

    @property
    def clock(self) -> Callable[[], float]:
        """The clock the time limit is measured on."""
        return self.budget.clock

    @clock.setter
    def clock(self, clock: Callable[[], float]) -> None:
        self.budget.clock = clock

    @property
    def nodes(self) -> int:
        """The nodes the last search visited."""
        return self.budget.nodes

    def use_cpu_clock(self, scale: float = 1.0) -> None:
        """Measure the time limit in CPU seconds times ``scale`` (benchmarks: a busy machine,
        or a slower one emulated)."""
        self.budget.use_cpu_clock(scale)

    def new_game(self) -> None:
        """Forget what was learnt about the previous game."""
        self.table.clear()
        self.scores.clear()
        self.tactics.clear()
        self.ordering.new_game()

    def search(
        self, pos: Position, limits: Limits, on_info: Callable[[Info], None] | None = None,
        rng: random.Random | None = None, noise: int = 0,
    ) -> Result:
        """Iterative deepening from ``pos`` within ``limits``. With ``noise`` (a weaker level)
        every root move is scored exactly and the choice is made among them with a seeded
        random error of that size."""
        return IterativeDeepening(self, pos, limits, on_info, noise).run(rng)

    def principal_variation(self, pos: Position, first: int) -> list[int]:
        """The expected line from the transposition table, starting with ``first``."""
        return self.table.principal_variation(pos, first)

    def extension(self, pos: Position) -> int:
        """One ply more after a move that gives the king an open line to escape."""
        if pos.result is not None or pos.side != ATT or pos.king < 0:
            return 0
        _, esc = self.escape_info(pos)
        return 1 if esc else 0

    def negamax(
        self, pos: Position, depth: int, alpha: int, beta: int, ply: int, allow_null: bool
    ) -> int:
        """The score of ``pos`` (``ply`` plies below the root) searched to ``depth`` within
        ``alpha``..``beta``."""
        budget = self.budget
        budget.nodes += 1
        if not budget.nodes & 127:
            budget.check()
        if pos.result is not None:
            return decided_score(pos, ply)
        if depth <= 0:
            return self.quiesce(pos, alpha, beta, ply, 0)
        side = pos.side
        king = pos.king
        kd, esc = self.escape_info(pos)
        if esc and side == DEF:
            return WIN - ply - 1  # the king escapes now
        alpha0 = alpha
        pv_node = beta - alpha > 1
        key = pos.key
        entry = self.table.entries.get(key)
        tt_move = 0
        if entry is not None:
            e_depth, flag, score, tt_move = entry
            if e_depth >= depth and not pv_node and self.tt_cutoffs:
                if score >= MATE_BOUND:
                    score -= ply
                elif score <= -MATE_BOUND:
                    score += ply
                if flag == EXACT:
                    return score
                if flag == LOWER and score >= beta:
                    return score
                if flag == UPPER and score <= alpha:
                    return score
        threatened = bool(esc)  # attackers to move facing an open escape line
        # null move: let the opponent move twice; if that still fails high, prune
        if (
            allow_null and self.null_move and not pv_node and depth >= 3 and not threatened
            and beta < MATE_BOUND and alpha > -MATE_BOUND
            and self.evaluate(pos) >= beta
        ):
            pos.make_null()
            r = 2 if depth < 6 else 3
            s = -self.negamax(pos, depth - 1 - r, -beta, -beta + 1, ply + 1, False)
            pos.unmake()
            if s >= beta:
                return beta if s >= MATE_BOUND else s
        moves = pos.moves()
        if not moves:
            res = pos.no_moves_result()
            if res[0] is None:
                return 0
            return WIN - ply if res[0] == side else -(WIN - ply)
        if threatened:
            block = self.tactics.stop_escape_mask(pos, esc)
            forcing = [m for m in moves if block >> (m & 511) & 1]
            if not forcing:
                return -(WIN - ply - 2)
            moves = forcing
        caps = self.capture_squares(pos)
        guard_sq = 0
        if self.guard_moves and side == ATT and king >= 0:
            guard_sq = self.evaluator.escape_lines(pos)[0] | kd
        ordered, n_front = self.ordering.order(moves, tt_move, caps, ply, guard_sq)
        # frontier pruning: at depth 1-3 skip quiet moves that cannot matter (a lost cause by
        # the static score, or late in the order), keeping the king's moves and the attackers'
        # moves onto his lines or beside him
        prune = 0
        if (
            depth <= 3 and self.lmp and not pv_node and not threatened
            and -MATE_BOUND < alpha < MATE_BOUND
        ):
            prune = self.lmp[depth]
            if depth <= 2 and self.futility and self.evaluate(pos) + self.futility[depth] <= alpha:
                prune = 1
            keep = kd | self.tactics.adjacent_bb[king] | guard_sq if king >= 0 else 0
        best = -INF
        best_move = 0
        quiet_seen = 0
        for i, m in enumerate(ordered):
            if prune and i >= n_front:
                quiet_seen += 1
                if quiet_seen > prune and best > -MATE_BOUND:
                    frm, to = m >> 9, m & 511
                    if not (frm == king or keep >> to & 1):
                        continue
            pos.make(m)
            ext = self.extension(pos) if side == DEF else 0
            if i == 0:
                s = -self.negamax(pos, depth - 1 + ext, -beta, -alpha, ply + 1, True)
            else:
                red = 0
                if self.lmr and depth >= 3 and i >= n_front + 2 and not ext and not threatened:
                    red = 1 if i < n_front + 10 else (2 if i < n_front + 30 else 3)
                    if guard_sq >> (m & 511) & 1:
                        red = min(red, 1)
                    if red > depth - 2:
                        red = depth - 2
                s = -self.negamax(pos, depth - 1 - red + ext, -alpha - 1, -alpha, ply + 1, True)
                if s > alpha and (red or pv_node):
                    s = -self.negamax(pos, depth - 1 + ext, -beta, -alpha, ply + 1, True)
            pos.unmake()
            if s > best:
                best = s
                best_move = m
                if s > alpha:
                    alpha = s
                    if s >= beta:
                        if not caps >> (m & 511) & 1:
                            self.ordering.refuted(m, ply, depth)
                        break
        if best == -INF:  # every move pruned: the static score stands
            best = alpha
        flag = EXACT if alpha0 < best < beta else (LOWER if best >= beta else UPPER)
        self.table.store(key, depth, flag, best, best_move, ply)
        return best


__all__ = [
    "FUTILITY", "INF", "LMP", "MATE_BOUND", "WIN", "Abort", "Info", "Limits", "Result",
    "Searcher", "score_text",
]
