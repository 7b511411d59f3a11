"""Puzzle ratings: Elo, the player against the puzzle (docs/coach.md).

A solved puzzle is a win for the player, a failed one a win for the puzzle. The player starts at
:data:`PLAYER_START` and moves by :data:`K_PLAYER` times the surprise; a puzzle starts at the
rating its maker gave it and moves by :data:`K_PUZZLE` (less: a shipped puzzle's rating was
measured, one player's attempts should not move it far).

>>> update(1500, 1500, solved=True)
(1516.0, 1492.0)
>>> update(1500, 1900, solved=True)[0] > update(1500, 1500, solved=True)[0]
True
"""

from __future__ import annotations

PLAYER_START = 1500.0
K_PLAYER = 32.0
K_PUZZLE = 16.0


def expected(player: float, puzzle: float) -> float:
    """The player's expected score against the puzzle."""
    return 1.0 / (1.0 + 10 ** ((puzzle - player) / 400.0))


def update(player: float, puzzle: float, solved: bool) -> tuple[float, float]:
    """Both ratings after one attempt, rounded to a tenth."""
    e = expected(player, puzzle)
    score = 1.0 if solved else 0.0
    return (round(player + K_PLAYER * (score - e), 1),
            round(puzzle - K_PUZZLE * (score - e), 1))
