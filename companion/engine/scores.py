"""What the search's scores mean, and the static scores it caches.

Scores are from the side to move's point of view, in hundredths of an attacker soldier; a win
in ``k`` plies is ``WIN - k``, a loss ``-(WIN - k)``.
"""

from __future__ import annotations

from .evaluate import Evaluator
from .position import Position

WIN = 100_000
MATE_BOUND = WIN - 1000  # scores beyond this are forced wins/losses
INF = 1_000_000


def score_text(score: int) -> str:
    """A score for people: ``+1.25`` (in soldiers) or ``win in 3`` / ``loss in 2``."""
    if score >= MATE_BOUND:
        return f"win in {WIN - score}"
    if score <= -MATE_BOUND:
        return f"loss in {WIN + score}"
    return f"{score / 100:+.2f}"


def decided_score(pos: Position, ply: int) -> int:
    """Score of a decided position for the side to move, ``ply`` plies below the root."""
    winner = pos.result[0] if pos.result else None
    if winner is None:
        return 0
    return WIN - ply if winner == pos.side else -(WIN - ply)


class StaticScores:
    """The evaluator's scores of the positions met in one game, cached by position key."""

    def __init__(self, evaluator: Evaluator) -> None:
        self.evaluator = evaluator
        self.cache: dict[int, int] = {}

    def evaluate(self, pos: Position) -> int:
        """The static score for the side to move."""
        key = pos.key
        score = self.cache.get(key)
        if score is None:
            if len(self.cache) > 300_000:
                self.cache.clear()
            score = self.cache[key] = self.evaluator.evaluate(pos)
        return score

    def clear(self) -> None:
        """Forget the scores (a new game)."""
        self.cache.clear()
