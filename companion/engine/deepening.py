"""Iterative deepening at the root: searches one position one ply deeper each iteration until
a limit is reached, and reports after each iteration."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from .budget import Abort, Limits, SearchBudget
from .ordering import MoveOrder
from .position import Position, move_text
from .scores import INF, MATE_BOUND, WIN
from .transposition import EXACT, TranspositionTable


@dataclass
class Info:
    """What the search reports after each iteration (and at the end)."""

    depth: int
    score: int
    pv: list[int]
    nodes: int
    seconds: float
    texts: list[str] = field(default_factory=list)

    @property
    def nps(self) -> int:
        """Nodes per second."""
        return int(self.nodes / self.seconds) if self.seconds > 0 else 0


@dataclass
class Result:
    """The outcome of a search: best move, its score, the principal variation, and the scores
    of the root moves the last complete iteration searched exactly (multi-PV)."""

    move: int | None
    score: int
    depth: int
    nodes: int
    seconds: float
    pv: list[int]
    root_scores: dict[int, int]


class TreeSearch(Protocol):
    """The search below the root moves, and the parts the root shares with it."""

    aspiration: int
    budget: SearchBudget
    table: TranspositionTable
    ordering: MoveOrder

    def negamax(
        self, pos: Position, depth: int, alpha: int, beta: int, ply: int, allow_null: bool
    ) -> int: ...

    def extension(self, pos: Position) -> int: ...


class IterativeDeepening:
    """One search of ``pos`` within ``limits``. With ``noise`` (a weaker level) or multi-PV
    every root move is scored exactly; with ``noise`` the move is chosen among them with a
    seeded random error of that size."""

    def __init__(
        self, tree: TreeSearch, pos: Position, limits: Limits,
        on_info: Callable[[Info], None] | None = None, noise: int = 0,
    ) -> None:
        self.tree = tree
        self.pos = pos
        self.limits = limits
        self.on_info = on_info
        self.noise = noise
        self.exact_all = noise > 0 or limits.multipv > 1
        self.start = 0.0
        self.best_move = 0
        self.best_score = -INF
        self.depth_done = 0

    def run(self, rng: random.Random | None = None) -> Result:
        """Search deeper until a limit, a forced result, or (soft limit) too little time for
        another iteration; the best move of the last iteration, or of this one if it beat it."""
        tree, pos, limits = self.tree, self.pos, self.limits
        budget = tree.budget
        self.start = start = budget.start(limits)
        tree.table.new_search()
        moves = pos.moves()
        if not moves:
            return Result(None, 0, 0, 0, 0.0, [], {})
        tree.ordering.new_search()
        self.best_move = moves[0]
        pv: list[int] = [self.best_move]
        root_scores: dict[int, int] = {}
        max_depth = limits.depth or 64
        order = tree.ordering.order_root(pos, moves)
        if len(moves) == 1 and not self.exact_all:
            max_depth = min(max_depth, 1)
        try:
            for depth in range(1, max_depth + 1):
                iter_best, iter_score, root_scores = self.iteration(depth, order)
                self.best_move, self.best_score = iter_best, iter_score
                self.depth_done = depth
                tree.table.store(pos.key, depth, EXACT, iter_score, iter_best, 0)
                pv = tree.table.principal_variation(pos, iter_best)
                self.report(depth, iter_score, pv)
                if abs(iter_score) >= MATE_BOUND and WIN - abs(iter_score) <= depth:
                    break  # a forced result within the horizon: deeper cannot change it
                if limits.soft is not None and budget.clock() - start >= limits.soft * 0.5:
                    break  # the next iteration would not finish within the soft limit
        except Abort:
            pass
        best_move, best_score = self.best_move, self.best_score
        if self.noise and rng is not None and root_scores:
            noise = self.noise
            best_move = max(
                root_scores,
                key=lambda m: root_scores[m] + (0 if abs(root_scores[m]) >= MATE_BOUND
                                                else rng.gauss(0, noise)),
            )
            best_score = root_scores[best_move]
            pv = [best_move]
        elapsed = budget.clock() - start
        if best_score == -INF:
            best_score = 0
        return Result(best_move, best_score, self.depth_done, budget.nodes, elapsed, pv,
                      root_scores)

    def iteration(self, depth: int, order: list[int]) -> tuple[int, int, dict[int, int]]:
        """Search the root moves ``order`` to ``depth`` (in an aspiration window around the
        last score, widened on a fail): the best move, its score and every move's score;
        ``order`` is sorted by the scores."""
        window = self.tree.aspiration
        best_score = self.best_score
        if not window or self.exact_all or depth < 4 or abs(best_score) >= MATE_BOUND:
            lo_bound, hi_bound = -INF, INF
        else:
            lo_bound, hi_bound = best_score - window, best_score + window
        while True:
            scores: dict[int, int] = {}
            iter_best, iter_score = self.root_moves(depth, order, scores, lo_bound, hi_bound)
            if iter_score <= lo_bound and lo_bound > -INF:
                lo_bound = -INF  # failed low: search again with the window open below
            elif iter_score >= hi_bound and hi_bound < INF:
                hi_bound = INF  # failed high: open above
            else:
                break
            order.sort(key=lambda mv: -scores.get(mv, -INF))
        order.sort(key=lambda mv: -scores.get(mv, -INF))
        assert iter_best is not None
        return iter_best, iter_score, scores

    def root_moves(
        self, depth: int, order: list[int], scores: dict[int, int], lo_bound: int,
        hi_bound: int,
    ) -> tuple[int | None, int]:
        """One pass over the root moves within ``lo_bound``..``hi_bound``, each move's score
        into ``scores``: the best move and its score. A move that beats the last iteration's
        choice is kept as the best even if this pass is cut short."""
        tree, pos, multipv = self.tree, self.pos, self.limits.multipv
        negamax = tree.negamax
        alpha = lo_bound
        beta = hi_bound
        iter_best = None
        iter_score = -INF
        for i, m in enumerate(order):
            pos.make(m)
            ext = tree.extension(pos)
            if self.exact_all:
                if self.noise or len(scores) < multipv:
                    lo = -INF
                else:
                    lo = sorted(scores.values(), reverse=True)[multipv - 1] - 1
                s = -negamax(pos, depth - 1 + ext, -INF, -lo, 1, True)
            elif i == 0:
                s = -negamax(pos, depth - 1 + ext, -beta, -alpha, 1, True)
            else:
                s = -negamax(pos, depth - 1 + ext, -alpha - 1, -alpha, 1, True)
                if s > alpha and s < beta:
                    s = -negamax(pos, depth - 1 + ext, -beta, -alpha, 1, True)
            pos.unmake()
            scores[m] = s
            if s > iter_score:
                iter_score, iter_best = s, m
                if s > alpha:
                    alpha = s
                # the first move is the last iteration's choice: one that beats it is used
                # even if this iteration is cut short
                if not self.exact_all and (i > 0 or self.depth_done == 0) and s > lo_bound:
                    self.best_move, self.best_score = m, s
                if s >= beta:
                    break
        return iter_best, iter_score

    def report(self, depth: int, score: int, pv: list[int]) -> None:
        """Tell ``on_info`` about a finished iteration."""
        if self.on_info is not None:
            budget = self.tree.budget
            self.on_info(Info(depth, score, pv, budget.nodes, budget.clock() - self.start,
                              [move_text(self.pos.geo, m) for m in pv]))
