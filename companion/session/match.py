"""Two-game matches with sides swapped, and their score.

Seed 001: "Daher werden immer zwei Partien mit wechselnder Rollenverteilung gespielt." Player A
plays the attackers in game 1 and the defenders in game 2. A win scores 1, a draw ½ each.

A 1–1 (or ½–½ … any level) tie is decided by the tie rule, a list of criteria tried in order
(config ``[match] tie_break``, the API's ``tie_break``; default ``["moves", "time"]``):

* ``moves``: the player whose win took fewer moves (plies of his won game) takes the match;
* ``time``: the player who had more time left on his clock at the end of his win takes it;

and when no criterion decides (or the list is empty), the match is drawn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypedDict

from companion.store_types import MatchResult

SIDES = ("attackers", "defenders")

TIE_CRITERIA = ("moves", "time")
DEFAULT_TIE_BREAK: tuple[str, ...] = ("moves", "time")
GAMES = 2



class MatchJSON(TypedDict):
    """``match`` of the page state (docs/http-api.md)."""

    id: int
    game: int
    games: int
    score: dict[str, float]
    players: list[str]
    game_ids: list[int]
    tie_break: list[str]
    finished: bool
    next: bool
    winner: str | None
    decided_by: str | None

class MatchError(ValueError):
    """A bad tie rule or match request."""


def check_tie_break(value: object, where: str = "tie_break") -> tuple[str, ...]:
    if isinstance(value, str):
        value = [v for v in value.replace(",", " ").split() if v]
    if not isinstance(value, list | tuple) or any(v not in TIE_CRITERIA for v in value) or len(
            set(value)) != len(value):
        raise MatchError(f"{where} must be a list of {', '.join(TIE_CRITERIA)} (each at most "
                         f"once; empty: a tie is drawn), not {value!r}")
    return tuple(str(v) for v in value)


def seat_of(number: int, side: str) -> int:
    """0 for player A, 1 for player B: who plays ``side`` in game ``number`` of a match."""
    return (0 if side == "attackers" else 1) ^ (0 if number % 2 == 1 else 1)


def side_of_seat(number: int, seat: int) -> str:
    """The side player ``seat`` (0: A, 1: B) plays in game ``number`` of a match."""
    return "attackers" if seat_of(number, "attackers") == seat else "defenders"


@dataclass(frozen=True)
class GameResult:
    """What the match needs of one finished game: the winner's side (None: draw), the plies
    played and the clock readings at the end (None without a clock)."""

    result: str  # attackers | defenders | draw
    plies: int
    left: dict[str, float] | None = None


@dataclass
class Match:
    """A match: the two players' names (A first: A attacks in game 1) and the games so far."""

    id: int
    players: tuple[str, str]
    tie_break: tuple[str, ...] = DEFAULT_TIE_BREAK
    game_ids: list[int] = field(default_factory=list)
    results: list[GameResult | None] = field(default_factory=list)

    @property
    def number(self) -> int:
        """The current game's number, 1 or 2."""
        return max(1, len(self.game_ids))

    def sides(self, number: int) -> dict[str, str]:
        """Side -> player name in game ``number`` (sides swap in game 2)."""
        a, b = self.players
        return {"attackers": a, "defenders": b} if number % 2 == 1 else {
            "attackers": b, "defenders": a}

    def seat(self, number: int, side: str) -> int:
        """0 for player A, 1 for player B: who plays ``side`` in game ``number``."""
        return seat_of(number, side)

    def side_of_seat(self, number: int, seat: int) -> str:
        return side_of_seat(number, seat)

    @property
    def finished(self) -> bool:
        return len(self.results) >= GAMES and all(r is not None for r in self.results[:GAMES])

    @property
    def wants_next(self) -> bool:
        """Game 1 is over and game 2 has not started."""
        return len(self.game_ids) == 1 and len(self.results) == 1 and self.results[0] is not None

    def score(self) -> dict[str, float]:
        """Points per player name (win 1, draw ½)."""
        pts = [0.0, 0.0]
        for number, res in enumerate(self.results, 1):
            if res is None:
                continue
            if res.result == "draw":
                pts[0] += 0.5
                pts[1] += 0.5
            else:
                pts[self.seat(number, res.result)] += 1.0
        return {self.players[0]: pts[0], self.players[1]: pts[1]}

    def winner(self) -> tuple[str | None, str]:
        """``(name or None for a drawn match, how)`` once finished: how is ``score``, one of the
        tie criteria, or ``tie``."""
        pts = list(self.score().values())
        if pts[0] != pts[1]:
            return self.players[0 if pts[0] > pts[1] else 1], "score"
        wins: dict[int, tuple[int, GameResult]] = {}
        for number, res in enumerate(self.results, 1):
            if res is not None and res.result != "draw":
                wins[self.seat(number, res.result)] = (number, res)
        if len(wins) == 2:
            for criterion in self.tie_break:
                a, b = (self._measure(criterion, *wins[s]) for s in (0, 1))
                if a is not None and b is not None and a != b:
                    return self.players[0 if a > b else 1], criterion
        return None, "tie"

    @staticmethod
    def _measure(criterion: str, number: int, res: GameResult) -> float | None:
        """Bigger is better: fewer plies, more time left on the winner's clock."""
        if criterion == "moves":
            return -float(res.plies)
        if criterion == "time" and res.left is not None:
            return res.left[res.result]
        return None

    def to_json(self) -> MatchJSON:
        out: MatchJSON = {
            "id": self.id, "game": self.number, "games": GAMES, "score": self.score(),
            "players": list(self.players), "game_ids": list(self.game_ids),
            "tie_break": list(self.tie_break), "finished": self.finished,
            "next": self.wants_next, "winner": None, "decided_by": None,
        }
        if self.finished:
            out["winner"], out["decided_by"] = self.winner()
        return out

    # -- the games of the match ------------------------------------------------------------
    def game_over(self, gid: int, result: GameResult) -> MatchResult | None:
        """Record the result of game ``gid``; the match's result (``score``, ``winner``,
        ``decided_by``) when that game finished the match, else None (also when it was
        recorded already: the end of a game is seen again by the next board reading)."""
        idx = self.game_ids.index(gid) if gid in self.game_ids else len(self.game_ids) - 1
        while len(self.results) <= idx:
            self.results.append(None)
        if self.results[idx] is not None:
            return None
        self.results[idx] = result
        if not self.finished:
            return None
        winner, how = self.winner()
        return {"score": self.score(), "winner": winner, "decided_by": how}

    def reopen(self, gid: int) -> bool:
        """Game ``gid`` was reopened (a takeback): its result is open again; True when that
        reopens the finished match."""
        if gid not in self.game_ids:
            return False
        idx = self.game_ids.index(gid)
        was_over = self.finished
        if idx < len(self.results):
            self.results[idx] = None
            del self.results[idx + 1:]
        return was_over
