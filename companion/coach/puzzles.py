"""Puzzles on the real board (docs/coach.md): a position, the side to move, a goal (the king
escapes, the king is captured, or another win) reached in a few moves, the solution line with the
best defence, and for each move of the solver the engine's answer to a wrong move (its
refutation).

The library shipped with the project (``companion/coach/puzzles/<variant>.json.gz``) is made by
``tools/build_puzzles.py`` from positions of the corpus of real games; puzzles read from OpenTafl
files are stored with the board's games (:func:`from_record`).

>>> p = Puzzle.from_json({"id": "x", "variant": "brandubh", "position": "7/7/7/3K3/7/7/7",
...     "side": "defenders", "goal": "escape", "moves": 1, "rating": 900,
...     "line": ["d4-d7"]})
>>> p.listing()["goal"], p.listing()["moves"]
('escape', 1)
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Literal, TypedDict, cast

from companion.rules import core
from companion.rules.game import Game

Goal = Literal["escape", "capture", "win"]
GOALS: tuple[Goal, ...] = ("escape", "capture", "win")
#: The variants a library ships for (the corpus has games of these).
SHIPPED = ("copenhagen", "brandubh")
#: A puzzle's rating before anyone tried it, when its maker gave none.
DEFAULT_RATING = 1500


class PuzzleListing(TypedDict):
    """One puzzle in ``GET /api/puzzles``."""

    id: str
    variant: str
    side: str
    goal: str
    moves: int
    rating: int


class PuzzlePlayer(TypedDict):
    """The player's puzzle rating (None before the first attempt) and progress."""

    rating: float | None
    attempts: int
    solved: int


class PuzzleCatalogue(TypedDict):
    """``GET /api/puzzles``: a variant's puzzles, easiest first, and the player's standing."""

    variant: str
    puzzles: list[PuzzleListing]
    player: PuzzlePlayer


class PuzzleJSON(TypedDict, total=False):
    """A puzzle as it is shipped and stored."""

    id: str
    variant: str
    position: str
    side: str
    goal: str
    moves: int
    rating: int
    line: list[str]
    refutations: list[dict[str, list[str]]]
    source: str
    comment: str
    nodes: int
    alternatives: int


def goal_of(game: Game) -> Goal | None:
    """How ``game`` ended for the side that won it by the rules (None while it goes on or
    when it was drawn)."""
    outcome = game.board.outcome()
    if outcome is None or outcome.winner is None:
        return None
    if outcome.termination == core.ESCAPE:
        return "escape"
    if outcome.termination == core.KING_CAPTURED:
        return "capture"
    return "win"


def puzzle_id(variant: str, position: str, side: str) -> str:
    """A short stable id from the position (``copenhagen-3f2a9c1d``)."""
    digest = hashlib.sha1(f"{variant} {position} {side}".encode()).hexdigest()[:8]
    return f"{variant}-{digest}"


@dataclass(frozen=True)
class Puzzle:
    """One puzzle (see the module docstring). ``line`` alternates the solver's moves and the
    defence, and ends with the solver's move that reaches the goal; ``refutations[i]`` gives,
    for the solver's ``i``-th move, the answer to each wrong move (``{answer: [wrong moves]}``,
    grouped, as shipped)."""

    id: str
    variant: str
    position: str
    side: str
    goal: Goal
    moves: int
    rating: int
    line: tuple[str, ...]
    refutations: tuple[Mapping[str, Sequence[str]], ...] = ()
    source: str = ""
    comment: str = ""
    nodes: int = 0
    alternatives: int = 0
    _answers: dict[int, dict[str, str]] = field(default_factory=dict, compare=False,
                                                repr=False)

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Puzzle:
        goal = str(data.get("goal", "win"))
        line = data.get("line") or []
        refs = data.get("refutations") or []
        return cls(
            id=str(data["id"]), variant=str(data["variant"]), position=str(data["position"]),
            side=str(data["side"]), goal=goal if goal in GOALS else "win",
            moves=int(cast(int, data.get("moves", 1))),
            rating=int(cast(int, data.get("rating", DEFAULT_RATING))),
            line=tuple(str(m) for m in cast(Sequence[str], line)),
            refutations=tuple(cast(Sequence[Mapping[str, Sequence[str]]], refs)),
            source=str(data.get("source", "")), comment=str(data.get("comment", "")),
            nodes=int(cast(int, data.get("nodes", 0))),
            alternatives=int(cast(int, data.get("alternatives", 0))))

    def to_json(self) -> PuzzleJSON:
        out: PuzzleJSON = {
            "id": self.id, "variant": self.variant, "position": self.position,
            "side": self.side, "goal": self.goal, "moves": self.moves, "rating": self.rating,
            "line": list(self.line),
            "refutations": [{k: list(v) for k, v in r.items()} for r in self.refutations]}
        for key in ("source", "comment"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.nodes:
            out["nodes"] = self.nodes
        if self.alternatives:
            out["alternatives"] = self.alternatives
        return out

    def listing(self, rating: int | None = None) -> PuzzleListing:
        return {"id": self.id, "variant": self.variant, "side": self.side, "goal": self.goal,
                "moves": self.moves, "rating": self.rating if rating is None else rating}

    def game(self) -> Game:
        """The game from the puzzle's position, the solver to move."""
        return Game(self.variant, self.position, self.side)

    def answer_to(self, index: int, wrong: str) -> str | None:
        """The engine's answer to the wrong move ``wrong`` as the solver's ``index``-th move,
        if the maker stored one."""
        if index >= len(self.refutations):
            return None
        answers = self._answers.get(index)
        if answers is None:
            answers = {m: reply for reply, ms in self.refutations[index].items() for m in ms}
            self._answers[index] = answers
        return answers.get(wrong)


def dumps(puzzles: Sequence[Puzzle]) -> bytes:
    """A library file's bytes (gzip'd JSON, reproducible)."""
    body = {"puzzles": [p.to_json() for p in puzzles]}
    return gzip.compress(json.dumps(body, separators=(",", ":"), sort_keys=True).encode(), 9,
                         mtime=0)


@functools.cache
def shipped(variant: str) -> tuple[Puzzle, ...]:
    """The puzzles the project ships for ``variant`` (none where it has no library)."""
    try:
        data = resources.files("companion.coach").joinpath(f"puzzles/{variant}.json.gz")
        raw = json.loads(gzip.decompress(data.read_bytes()))
    except (FileNotFoundError, OSError):
        return ()
    return tuple(Puzzle.from_json(p) for p in raw["puzzles"])


def find_shipped(pid: str) -> Puzzle | None:
    """The shipped puzzle ``pid`` (its id starts with its variant's name)."""
    variant = pid.rsplit("-", 1)[0]
    return next((p for p in shipped(variant) if p.id == pid), None)


def imported_rating(moves: int) -> int:
    """The starting rating of a puzzle read from a file (its length alone is known)."""
    return 800 + 250 * (moves - 1)


def from_record(game: Game, start: int, comment: str = "", source: str = "") -> Puzzle | None:
    """The puzzle of an OpenTafl record (``puzzle-start``: the ply it starts after): the side
    that wins the main line by the rules solves it from the first position where it is to move,
    the rest of the line is the solution. None when the line ends otherwise (no win by the
    rules, a variant of its own, nothing left to play)."""
    from companion.rules import PRESETS

    if game.rules.id not in PRESETS or game.board.outcome() is None or goal_of(game) is None:
        return None
    winner = game.result
    at = Game(game.rules, game.start_position, game.start_turn)
    played = game.played
    k = max(0, min(start, len(played)))
    for p in played[:k]:
        at.play(p.move)
    if at.turn != winner and k < len(played):
        at.play(played[k].move)  # the puzzle's first move is the other side's: made for him
        k += 1
    line = tuple(p.text for p in played[k:])
    if not line or at.turn != winner:
        return None
    position, side = at.board.otn(), str(at.turn)
    moves = (len(line) + 1) // 2
    return Puzzle(id=puzzle_id(game.rules.id, position, side), variant=game.rules.id,
                  position=position, side=side, goal=goal_of(game) or "win", moves=moves,
                  rating=imported_rating(moves), line=line, source=source, comment=comment)
