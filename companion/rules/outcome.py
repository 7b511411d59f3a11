"""How a game ends: :class:`Termination` (why) and :class:`Outcome` (who won, and why), modelled
on python-chess's ``Termination`` and ``Outcome``.

``Termination`` is a ``StrEnum``: each member *is* its string value, so JSON, the store and every
comparison with the old plain strings (``outcome.reason == "escape"``) are unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .ruleset import ATTACKERS, DEFENDERS, Side


class Termination(StrEnum):
    """Why a game ended; each member is its string.

    >>> Termination("escape") is Termination.ESCAPE, Termination.ESCAPE == "escape"
    (True, True)
    """

    KING_CAPTURED = "king_captured"  #: the attackers captured the king
    ESCAPE = "escape"                #: the king reached a corner (or the edge)
    EXIT_FORT = "exit_fort"          #: the king built an unbreakable fort on the edge
    ENCIRCLEMENT = "encirclement"    #: no defender can reach the edge any more
    REPETITION = "repetition"        #: a position occurred for the third time
    NO_MOVES = "no_moves"            #: the side to move had no legal move
    AGREEMENT = "agreement"          #: both players agreed to a draw
    RESIGNATION = "resignation"      #: a player resigned
    TIME = "time"                    #: a player's clock ran out


#: Terminations that the rules decide by themselves (the others are decided by the players or
#: the clock, and a game record does not show them).
BY_THE_RULES = frozenset({
    Termination.KING_CAPTURED, Termination.ESCAPE, Termination.EXIT_FORT,
    Termination.ENCIRCLEMENT, Termination.REPETITION, Termination.NO_MOVES,
})

#: One English phrase per termination (the records' and the log's wording).
REASON_TEXT: dict[str, str] = {
    Termination.KING_CAPTURED: "the king is captured",
    Termination.ESCAPE: "the king escaped",
    Termination.EXIT_FORT: "the king built an unbreakable exit fort",
    Termination.ENCIRCLEMENT: "the attackers encircled every defender",
    Termination.REPETITION: "the position occurred a third time",
    Termination.NO_MOVES: "the side to move has no legal move",
    Termination.AGREEMENT: "both players agreed to a draw",
    Termination.RESIGNATION: "a player resigned",
    Termination.TIME: "a player ran out of time",
}


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: ``winner`` is ``"attackers"``, ``"defenders"`` or None for a draw;
    ``termination`` says why (plain strings are converted, and refused if unknown).

    >>> outcome = Outcome("defenders", "escape")
    >>> outcome.winner, outcome.termination
    (<Side.DEFENDERS: 'defenders'>, <Termination.ESCAPE: 'escape'>)
    >>> Outcome(None, "resigned")
    Traceback (most recent call last):
    ...
    ValueError: 'resigned' is not a valid Termination
    """

    winner: Side | None
    termination: Termination

    def __post_init__(self) -> None:
        if self.winner not in (ATTACKERS, DEFENDERS, None):
            raise ValueError(f"winner must be attackers, defenders or None, not {self.winner!r}")
        if self.winner is not None:
            object.__setattr__(self, "winner", Side(self.winner))
        object.__setattr__(self, "termination", Termination(self.termination))

    @property
    def result(self) -> str:
        """``"attackers"``, ``"defenders"`` or ``"draw"``.

        >>> Outcome(None, "agreement").result
        'draw'
        """
        return str(self.winner) if self.winner else "draw"

    @property
    def reason(self) -> Termination:
        """The termination (its older name; the value is the same string).

        >>> Outcome("attackers", "time").reason == "time"
        True
        """
        return self.termination

    def to_json(self) -> dict[str, str]:
        """``{"result": ..., "reason": ...}``: the form events and the page use.

        >>> Outcome("attackers", "king_captured").to_json()
        {'result': 'attackers', 'reason': 'king_captured'}
        """
        return {"result": self.result, "reason": str(self.termination)}  # plain strings
