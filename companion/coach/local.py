"""The coach's look computed in this process, to a fixed depth: the same search the advisor's
engine process runs, made repeatable for the coach's test positions, the build of them
(``tools/build_coach_positions.py``) and ``bench/coach.py``. The daemon never uses it (it
never searches in its own process: the advisor's engine does, for a time budget)."""

from __future__ import annotations

from companion.engine.budget import Limits
from companion.engine.player import make_searcher
from companion.engine.position import Position, move_text
from companion.engine.search import MATE_BOUND, WIN
from companion.rules import Board, RuleSet

from .look import Look


class LocalLooker:
    """Fixed-depth looks at positions of one rule set (a fresh search each: no table kept
    between positions, so each answer depends on its position alone)."""

    def __init__(self, rules: RuleSet, depth: int = 3) -> None:
        self.rules = rules
        self.depth = depth
        self.searcher = make_searcher(rules)

    def look(self, board: Board, depth: int | None = None) -> Look | None:
        """The best line and score (soldiers; forced results ±(1000 - plies)) for the side to
        move; None when the game is over."""
        pos = Position.from_board(board)
        if pos.outcome() is not None:
            return None
        self.searcher.new_game()
        res = self.searcher.search(pos, Limits(depth=depth or self.depth))
        if res.move is None:
            return None
        pv = res.pv if res.pv and res.pv[0] == res.move else [res.move]
        return Look(_soldiers(res.score), tuple(move_text(pos.geo, m) for m in pv))


def _soldiers(score: int) -> float:
    """A search score as an ``analysis`` evaluation (``companion.engine.otep.analysis_eval``)."""
    if score >= MATE_BOUND:
        return 1000.0 - (WIN - score)
    if score <= -MATE_BOUND:
        return -1000.0 + (WIN + score)
    return round(score / 100, 2)
