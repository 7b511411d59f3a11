"""How long to think: a move's time budget from a time per move or a game clock.

A :class:`Budget` has a *soft* limit (no new iteration of the search starts after about half of
it: the next one would not finish in time) and a *hard* limit (the search stops, whatever it is
doing, and plays the best move found so far). Unused time is lost with a time per move and with
an overtime period (byo-yomi), so there both limits are the whole time less a safety margin: the
engine uses the period almost whole. In main time it spends a share of what is left (1/30, about
the moves a side still makes in a long tafl game) plus most of an overtime period when periods
follow, and may stretch to three times that share on a hard move.

The margin covers answering, the pipe to the host and a busy machine's scheduling: the hard
limit is 92 % of the time less 50 ms. ``bench/timing.py`` measures the time used against the
budget through OTEP.
"""

from __future__ import annotations

from dataclasses import dataclass

MARGIN = 0.05  # seconds kept back for answering and the host's side of the pipe
HARD_SHARE = 0.92  # of a period or a time per move
MOVES_TO_GO = 30  # main time is spent as if this many moves were left
MIN_SECONDS = 0.05


@dataclass(frozen=True)
class Budget:
    """Seconds for one move: ``soft`` (no new iteration after about half of it) and ``hard``
    (stop at once)."""

    soft: float
    hard: float

    def capped(self, seconds: float) -> Budget:
        """The budget lowered to at most ``seconds`` (a level's time cap)."""
        hard = min(self.hard, seconds)
        return Budget(min(self.soft, hard), hard)


def _whole(seconds: float) -> float:
    return max(MIN_SECONDS, seconds * HARD_SHARE - MARGIN)


def per_move(seconds: float) -> Budget:
    """A fixed time per move (``--time``): used whole, less the margin."""
    hard = _whole(seconds)
    return Budget(hard, hard)


def from_clock(left: float, in_overtime: bool, period: float = 0.0,
               periods_left: int = 0) -> Budget:
    """The budget of a side with ``left`` seconds: main time left, or (``in_overtime``) what is
    left of the current overtime period of ``period`` seconds, ``periods_left`` periods."""
    left = max(left, 0.0)
    if in_overtime:
        hard = _whole(left)
        return Budget(hard, hard)
    overtime = period if period > 0 and periods_left > 0 else 0.0
    share = left / MOVES_TO_GO + 0.8 * overtime
    hard = max(MIN_SECONDS, min(3 * share, 0.3 * left + HARD_SHARE * overtime - MARGIN))
    return Budget(max(MIN_SECONDS, min(share, hard)), hard)
