"""The board's menu: the next game's opponent, the computer's level and side, the variant,
the position it starts from (the variant's set-up, the pieces on the board and the side to
move, or a puzzle of the library: its goal, length and rating) and the clock, chosen with the
buttons and shown on the display.

A :class:`Menu` is a value walked by four roles: ``ok`` (the next item; on "Start game" it
starts), ``next`` and ``prev`` (change the value), ``close``. Which button plays which role is
the panel's business (``companion.panel.panel``). :meth:`Menu.request` is the ``new_game``
request the session takes (the same as ``POST /api/new``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, NotRequired, TypedDict

from companion.panel.words import short_name, words
from companion.rules import PRESETS

LEVELS = tuple(range(1, 11))
CLOCKS = ("none", "3+2", "5+3", "10+5", "15+10", "25+10")
OPPONENTS = ("person", "computer")
SIDES = ("attackers", "defenders")
ORIGINS = ("start", "board", "puzzle")  # the variant's set-up, the board's position, a puzzle
#: A puzzle the menu offers: id, goal (escape, capture, win), the solver's moves, rating.
PuzzleChoice = tuple[str, str, int, int]
COACHES = ("none", "attackers", "defenders")  # the side coached (docs/coach.md)


class PlayerRequest(TypedDict):
    """A side's player in a new-game request: at the board, or the computer at a level."""

    kind: str
    level: NotRequired[int]


class NewGameRequest(TypedDict):
    """The new-game request the menu makes (``POST /api/new``'s body, docs/http-api.md): the
    variant, the time control, the players and, for a game from the board, its position and
    the side to move; the side coached (None: nobody)."""

    variant: str
    time_control: str
    players: dict[str, PlayerRequest]
    coach: str | None
    position: NotRequired[str]
    turn: NotRequired[str]


@dataclass(frozen=True)
class Menu:
    """The choices for the next game and the item being edited."""

    variants: tuple[tuple[str, str], ...]  # (id, name) of the variants this board can play
    opponent: str = "person"
    level: int = 6
    computer_side: str = "defenders"
    variant: str = "copenhagen"
    clock: str = "none"
    item: int = 0
    origin: str = "start"
    turn: str = "attackers"  # to move first in a position from the board
    refused: tuple[str, str] | None = None  # why the rules refused that position (two lines)
    puzzles: tuple[PuzzleChoice, ...] = ()  # the variant's puzzles (the panel fills them)
    puzzles_of: str = ""  # the variant they were read for
    puzzle: int = 0
    coach: str = "none"  # the side the coach warns of losing moves (COACHES)

    @classmethod
    def from_state(cls, st: Mapping[str, Any], variants: Sequence[tuple[str, str]]) -> Menu:
        """The menu as the current game was set up (its players, variant and clock)."""
        players = st.get("players") or {}
        opponent, level, side = "person", 6, "defenders"
        for s in SIDES:
            p = players.get(s) or {}
            if p.get("kind") == "computer":
                opponent, side = "computer", s
                level = int(p.get("level") or 6)
        control = ((st.get("clock") or {}).get("control") or {}).get("text")
        variant = str(st.get("variant") or (variants[0][0] if variants else "copenhagen"))
        ids = [v for v, _ in variants]
        variant = variant if variant in ids else (ids[0] if ids else variant)
        first = PRESETS[variant].first if variant in PRESETS else "attackers"
        coached = (st.get("coach") or {}).get("side") or "none"
        return cls(tuple(variants), opponent, level if level in LEVELS else 6, side, variant,
                   control if control in CLOCKS else "none", turn=first,
                   coach=coached if coached in COACHES else "none")

    def items(self) -> list[str]:
        """The items shown, in order: the computer's only when it plays."""
        out = ["opponent"]
        if self.opponent == "computer":
            out += ["level", "plays"]
        out += ["variant", "from"]
        if self.origin == "board":
            out.append("turn")
        if self.origin == "puzzle":  # a puzzle has no clock and no coach
            return out + ["puzzle", "start"]
        return out + ["clock", "coach", "start"]

    @property
    def puzzle_id(self) -> str | None:
        """The chosen puzzle's id (None: the variant has none)."""
        return self.puzzles[self.puzzle % len(self.puzzles)][0] if self.puzzles else None

    @property
    def current(self) -> str:
        items = self.items()
        return items[min(self.item, len(items) - 1)]

    def ok(self) -> Menu:
        """The next item (after "Start game": the first again)."""
        return replace(self, item=(self.item + 1) % len(self.items()), refused=None)

    def step(self, delta: int) -> Menu:
        """The current item's value moved by ``delta`` (wrapping)."""
        name = self.current

        def turn(options: Sequence[Any], value: Any) -> Any:
            i = list(options).index(value) if value in options else 0
            return options[(i + delta) % len(options)]

        if name == "opponent":
            return replace(self, opponent=turn(OPPONENTS, self.opponent))
        if name == "level":
            return replace(self, level=turn(LEVELS, self.level))
        if name == "plays":
            return replace(self, computer_side=turn(SIDES, self.computer_side))
        if name == "variant":
            return replace(self, variant=turn([v for v, _ in self.variants], self.variant))
        if name == "clock":
            return replace(self, clock=turn(CLOCKS, self.clock))
        if name == "from":
            return replace(self, origin=turn(ORIGINS, self.origin))
        if name == "turn":
            return replace(self, turn=turn(SIDES, self.turn))
        if name == "puzzle" and self.puzzles:
            return replace(self, puzzle=(self.puzzle + delta) % len(self.puzzles))
        if name == "coach":
            return replace(self, coach=turn(COACHES, self.coach))
        return self

    def request(self, position: str | None = None) -> NewGameRequest:
        """The session's new-game request for these choices; from the board, ``position`` is
        the OTN placement the board reads (:mod:`companion.panel.setup_from_board`)."""
        players: dict[str, PlayerRequest] = {s: {"kind": "board"} for s in SIDES}
        if self.opponent == "computer":
            players[self.computer_side] = {"kind": "computer", "level": self.level}
        out: NewGameRequest = {"variant": self.variant, "time_control": self.clock,
                               "players": players,
                               "coach": None if self.coach == "none" else self.coach}
        if self.origin == "board":
            if position is None:
                raise ValueError("a game from the board needs the board's position")
            out["position"], out["turn"] = position, self.turn
        return out

    def _variant_name(self, lang: str) -> str:
        return short_name(self.variant, lang, dict(self.variants).get(self.variant, ""))

    def lines(self, lang: str = "en") -> list[str]:
        """The display's four lines: the menu, the item, its value, what OK does."""
        w = words(lang)
        name = self.current
        if name == "start" and self.refused:
            return [w["not_legal"], *self.refused, w["try_again"]]
        if name == "start" and self.origin == "puzzle":
            return [w["puzzle"], w["start"], self._variant_name(lang), w["start_hint"]]
        if name == "start":
            who = w["person"] if self.opponent == "person" else (
                f"{w['computer']} {self.level}")
            # the opponent, then the variant on a line of its own
            return [who, w["start"], self._variant_name(lang), w["start_hint"]]
        value: str
        if name == "opponent":
            value = w["person"] if self.opponent == "person" else w["computer"]
        elif name == "level":
            value = str(self.level)
        elif name == "plays":
            value = w[self.computer_side]
        elif name == "variant":
            value = self._variant_name(lang)
        elif name == "from":
            value = w["from_" + self.origin]
        elif name == "turn":
            value = w[self.turn]
        elif name == "puzzle":
            if not self.puzzles:
                return [w["menu"], w["puzzle"], w["no_puzzles"], w["ok_next"]]
            _, goal, moves, rating = self.puzzles[self.puzzle % len(self.puzzles)]
            value = w["pz_choice"].format(goal=w["goal_" + goal], n=moves, r=rating)
        elif name == "coach":
            value = w["coach_none"] if self.coach == "none" else w[self.coach]
        else:
            value = w["none"] if self.clock == "none" else self.clock
        return [w["menu"], w[name], f"◀ {value} ▶", w["ok_next"]]
