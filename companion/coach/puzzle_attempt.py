"""One attempt at a puzzle, judged move by move against the solution (docs/coach.md).

The attempt is fed the game after each ply (:meth:`Attempt.follow`). A move of the solver is
**right** when it is the solution's move (the computer then answers with the solution's
defence, the engine's best), **solved** when it reaches the goal (any move that wins at once is
taken), **wrong** otherwise: the computer answers with the engine's refutation of that move,
and what that answer does is said (the king escapes or is captured, or the defence holds).
A move of the other side that is not the answer asked for ends the attempt (``left``).

>>> from companion.coach.puzzles import Puzzle
>>> p = Puzzle("b-1", "brandubh", "7/7/7/3K3/7/7/7", "defenders", "escape", 1, 900, ("d4-d7",))
>>> a = Attempt(p)
>>> g = p.game(); _ = g.play_text("d4-d7")
>>> [v.kind for v in a.follow(g)], a.status
(['solved'], 'solved')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from companion.rules.game import Game

from .puzzles import Puzzle, goal_of

Status = Literal["playing", "solved", "failed", "left"]
Kind = Literal["right", "solved", "wrong"]
#: What the computer's answer to a wrong move does: the other side wins by ``escape``,
#: ``capture`` or ``win``, or ``holds``: no forced win is left in the moves of the puzzle.
Why = Literal["escape", "capture", "win", "holds"]


@dataclass(frozen=True)
class Verdict:
    """The judgement of one move of the solver; ``answer``: the computer's reply to make at
    the board (the defence, or the refutation of a wrong move), None when there is none."""

    kind: Kind
    move: str
    index: int
    answer: str | None = None
    why: Why | None = None
    solution: str | None = None  # for a wrong move: the move that was right


def _simple(text: str) -> str:
    return text.split("x")[0]


@dataclass
class Attempt:
    """An attempt at ``puzzle`` (see the module docstring)."""

    puzzle: Puzzle
    status: Status = "playing"
    judged: int = 0  #: plies of the game judged so far
    verdicts: list[Verdict] = field(default_factory=list)
    expected: str | None = None  #: the answer the other side should make now

    @property
    def last(self) -> Verdict | None:
        return self.verdicts[-1] if self.verdicts else None

    @property
    def over(self) -> bool:
        return self.status != "playing"

    def follow(self, game: Game) -> list[Verdict]:
        """Judge the plies of ``game`` not judged yet (the game from the puzzle's position)."""
        out: list[Verdict] = []
        while self.judged < len(game.played) and not self.over:
            ply = self.judged
            self.judged += 1
            text = game.played[ply].text
            if ply % 2:  # the other side's answer
                if self.expected is not None and _simple(text) != _simple(self.expected):
                    self.status = "left"
                self.expected = None
                continue
            after = self._replay(game, ply + 1)
            verdict = self._judge(after, ply // 2, text)
            self.verdicts.append(verdict)
            out.append(verdict)
        return out

    def _replay(self, game: Game, plies: int) -> Game:
        g = self.puzzle.game()
        for p in game.played[:plies]:
            g.play(p.move)
        return g

    def _judge(self, after: Game, index: int, text: str) -> Verdict:
        p = self.puzzle
        if after.result == p.side and goal_of(after) is not None:
            self.status = "solved"
            return Verdict("solved", text, index)
        line = p.line
        right = line[2 * index] if 2 * index < len(line) else None
        if right is not None and _simple(text) == _simple(right) and not after.is_over():
            answer = line[2 * index + 1] if 2 * index + 1 < len(line) else None
            self.expected = answer
            return Verdict("right", text, index, answer)
        self.status = "failed"
        answer = p.answer_to(index, _simple(text)) if not after.is_over() else None
        if answer is None and not after.is_over():
            answer = immediate_win(after)
        why: Why | None = None
        if answer is not None:
            try:
                twin = after.copy()
                twin.play_text(answer)
                answer = twin.played[-1].text
                goal = goal_of(twin) if twin.result not in ("ongoing", p.side) else None
                why = goal or "holds"
            except ValueError:
                answer = None
        self.expected = answer
        return Verdict("wrong", text, index, answer, why, right)


def immediate_win(game: Game) -> str | None:
    """A move that wins at once for the side to move of ``game``, if there is one."""
    side = game.turn
    for move in game.board.legal_moves():
        twin = game.copy()
        twin.play(move)
        if twin.result == side:
            return twin.played[-1].text
    return None
