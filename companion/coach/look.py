"""The coach's look at a move: does it lose? (docs/coach.md, "The coach").

A move of the coached side is judged in two steps:

1. :func:`at_once`: by the rules alone, whether the opponent now wins with one move (the king
   escapes, is captured, an exit fort or encirclement closes): every reply is tried, a few
   milliseconds, so this warning is there as soon as the move is accepted.
2. :func:`judge`: from a short engine search of the position after the move (the opponent to
   move) and, for the size of a drop, of the position before it (the coached side to move),
   each a :class:`Look`. A forced win the search finds for the opponent is a warning in both
   strictnesses; otherwise the evaluation's drop from the best move to this one is compared
   with the strictness's threshold (:data:`DROP`).

Where the rules of the issue are silent, chosen here:

- a position already lost by force before the move (the search finds the forced loss there
  too) gets no warning: a takeback would not save it; a forced loss found only after the move
  does, however long the line (the search is short, so its lines are);
- a move that misses a forced win but does not lose is not warned about (the coach warns of
  losing, not of winning less); nor is a move that ends the game;
- the drop compares scores clipped to ±:data:`CLIP` soldiers, so that a lost forced win does
  not count as a drop of hundreds of soldiers.

The warning names its threat as squares (:attr:`CoachWarning.threat`): for an escape the king's
squares along the line, from where he stands to the escape square; for a capture the capturing
move's squares and the king's; otherwise the opponent's first move (and what it captures).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, TypedDict

from companion.rules import Board, Move, MoveError, Termination

#: ``|score|`` at or above this (soldiers) is a forced result, ``1000 - plies``
FORCED = 900.0
#: scores are clipped to this (soldiers) before a drop is computed
CLIP = 10.0


class Strictness(StrEnum):
    """How readily the coach speaks: ``gentle`` (forced losses and big drops), ``strict``
    (smaller drops too)."""

    GENTLE = "gentle"
    STRICT = "strict"


#: The evaluation drop (soldiers) from the best move that is warned about, per strictness.
DROP: dict[Strictness, float] = {Strictness.GENTLE: 4.0, Strictness.STRICT: 2.0}


class Kind(StrEnum):
    """What a warning is about."""

    ESCAPE = "escape"    #: the king escapes
    CAPTURE = "capture"  #: the attackers capture the king
    LOSS = "loss"        #: another forced loss (exit fort, encirclement, no moves, repetition)
    DROP = "drop"        #: no forced loss, but the evaluation falls past the threshold


class AnalysisLineLike(Protocol):
    """What an engine answer line has (``companion.engine.AnalysisLine``)."""

    @property
    def moves(self) -> list[str]: ...

    @property
    def evaluation(self) -> float: ...


@dataclass(frozen=True)
class Look:
    """An engine's view of a position: ``score`` in soldiers for the side to move (forced
    results ±(1000 - plies)) and its ``line`` (the best moves, the first the side to move's)."""

    score: float
    line: tuple[str, ...]

    @classmethod
    def of(cls, lines: Sequence[AnalysisLineLike]) -> Look | None:
        """The best line of an engine's ``analysis`` answer (None for none)."""
        if not lines or not lines[0].moves:
            return None
        return cls(float(lines[0].evaluation), tuple(lines[0].moves))

    @property
    def forced_plies(self) -> int | None:
        """Plies to a forced result (positive: the side to move wins), None if none."""
        if self.score >= FORCED:
            return round(1000 - self.score)
        if self.score <= -FORCED:
            return -round(1000 + self.score)
        return None

    @property
    def clipped(self) -> float:
        return max(-CLIP, min(CLIP, self.score))


class WarningJSON(TypedDict):
    """``coach.warning`` of the page state (docs/http-api.md)."""

    text: str
    move: str
    threat: list[str]
    kind: str
    side: str
    reply: str | None
    line: list[str]
    moves: int | None
    target: str | None
    drop: float | None
    ply: int


@dataclass(frozen=True)
class CoachWarning:
    """A move of ``side`` that loses: ``kind``, the ``move`` itself, the ``threat`` squares, the
    opponent's ``line`` (the first its reply), the opponent's ``moves`` to the forced result
    (None for a drop), the ``target`` (the escape square, or the king's square for a capture)
    and the ``drop`` in soldiers (None for a forced loss)."""

    kind: Kind
    side: str
    move: str
    threat: tuple[str, ...]
    line: tuple[str, ...]
    moves: int | None = None
    target: str | None = None
    drop: float | None = None

    @property
    def text(self) -> str:
        """The warning in English words (the page, display and voice say it in theirs)."""
        reply = self.line[0] if self.line else ""
        when = ("at once" if self.moves == 1 else f"in {self.moves}") if self.moves else ""
        match self.kind:
            case Kind.ESCAPE:
                return f"This lets the king reach {self.target} {when}, e.g. {reply}."
            case Kind.CAPTURE:
                return f"This lets the attackers capture the king {when}, e.g. {reply}."
            case Kind.LOSS:
                return f"This loses by force {when}, e.g. {reply}."
            case _:
                return (f"This costs about {self.drop:.1f} soldiers' worth: see the answer "
                        f"{reply}.")

    def to_json(self, ply: int) -> WarningJSON:
        """The warning in the page state; ``ply``: the plies played with the move."""
        return {"text": self.text, "move": self.move, "threat": list(self.threat),
                "kind": str(self.kind), "side": self.side,
                "reply": self.line[0] if self.line else None, "line": list(self.line),
                "moves": self.moves, "target": self.target,
                "drop": None if self.drop is None else round(self.drop, 2), "ply": ply}


def _after(board: Board, move: str) -> Board | None:
    """The board after ``move`` (None if it is not legal there or ends the game)."""
    after = board.copy()
    try:
        after.push(after.parse_move(move.partition("x")[0])[0])
    except MoveError:
        return None
    return None if after.outcome() is not None else after


def _threat(board: Board, line: Sequence[str]) -> tuple[Kind, tuple[str, ...], str | None,
                                                        int] | None:
    """Play the opponent's ``line`` on ``board`` (the opponent to move) to its forced result:
    ``(kind, threat squares, target, opponent's moves)``, or None when it does not end the
    game by the rules. A line that stops short (engines end a line at a threat no reply
    stops) is finished with the opponent's win at once from where it stops."""
    b = board.copy()
    winner = b.turn
    path = [b.name(b.king)] if b.king >= 0 else []
    king = path[0] if path else None
    moves = list(line)
    i = n = 0
    while True:
        if i < len(moves):
            text = moves[i]
        else:
            if b.turn != winner:  # the reply that would stop the threat: none does
                b = Board(b.rules, b.otn(), winner, b.king_left)
            finish = _win_at_once(b, winner)
            if finish is None or i >= len(line) + 1:
                return None
            text = finish.text(b.size)
            moves.append(text)
        n += b.turn == winner
        try:
            m = b.parse_move(text.partition("x")[0])[0]
            king_moves = m.frm == b.king
            king = b.name(b.king) if b.king >= 0 else king
            b.push(m)
        except MoveError:
            return None
        if king_moves and b.turn != winner:  # the opponent's king moved (the defenders)
            path.append(b.name(m.to))
        outcome = b.move_outcome() or b.outcome()
        if outcome is None:
            i += 1
            continue
        if outcome.winner != winner:
            return None
        term = outcome.termination
        if term == Termination.ESCAPE:
            return Kind.ESCAPE, tuple(path), b.name(m.to), n
        if term == Termination.EXIT_FORT:  # the king's way into his fort
            return Kind.LOSS, tuple(path) or _move_squares(board, moves[0]), None, n
        if term == Termination.KING_CAPTURED:
            squares = [b.name(m.frm), b.name(m.to)] + ([king] if king else [])
            return Kind.CAPTURE, tuple(dict.fromkeys(squares)), king, n
        return Kind.LOSS, _move_squares(board, moves[0]), None, n


def _win_at_once(board: Board, winner: str) -> Move | None:
    """A move of ``winner`` that ends the game with his win on ``board`` (with his turn
    given to him if it is not his: the threat a reply would have to stop), preferring an
    escape, then a capture of the king."""
    b = board if board.turn == winner else Board(board.rules, board.otn(), winner,
                                                  board.king_left)
    best: tuple[int, Move] | None = None
    for reply in b.legal_moves():
        b.push_unchecked(reply)
        outcome = b.move_outcome()
        b.pop()
        if outcome is None or outcome.winner != winner:
            continue
        rank = {Termination.ESCAPE: 0, Termination.KING_CAPTURED: 1}.get(outcome.termination, 2)
        if best is None or rank < best[0]:
            best = (rank, reply)
    return best[1] if best else None


def _move_squares(board: Board, move: str) -> tuple[str, ...]:
    """A move's two squares and what it captures, on ``board`` (before it)."""
    try:
        m = board.parse_move(move.partition("x")[0])[0]
        captured = board.preview(m)[0]
    except MoveError:
        return ()
    return (board.name(m.frm), board.name(m.to), *sorted(board.name(s) for s in captured))


def at_once(board: Board, move: str) -> CoachWarning | None:
    """A warning when, after ``move`` of the side to move in ``board``, the opponent wins with
    one move of his (the rules alone; every reply tried)."""
    after = _after(board, move)
    if after is None:
        return None
    side = str(board.turn)
    best = _win_at_once(after, after.turn)
    if best is None:
        return None
    text = best.text(after.size)
    found = _threat(after, [text])
    assert found is not None
    kind, threat, target, n = found
    return CoachWarning(kind, side, move, threat, (text,), n, target)


def judge(board: Board, move: str, after_look: Look | None, before_look: Look | None,
          strictness: Strictness) -> CoachWarning | None:
    """The warning for ``move`` of the side to move in ``board``, from the engine's look at
    the position after it (``after_look``, the opponent to move) and before it
    (``before_look``; None: no drop is judged), or None (see the module docstring)."""
    after = _after(board, move)
    if after is None or after_look is None:
        return None
    side = str(board.turn)
    before_plies = before_look.forced_plies if before_look is not None else None
    if before_plies is not None and before_plies < 0:
        return None  # lost before the move already
    plies = after_look.forced_plies
    if plies is not None and plies > 0:
        found = _threat(after, after_look.line)
        if found is None:  # the line stops short of the end: name its first move
            return CoachWarning(Kind.LOSS, side, move, _move_squares(after, after_look.line[0]),
                                after_look.line, (plies + 1) // 2)
        kind, threat, target, n = found
        return CoachWarning(kind, side, move, threat, after_look.line, n, target)
    if before_look is None or (before_plies is not None and before_plies > 0):
        return None  # no drop to judge, or a forced win missed (not a loss)
    drop = before_look.clipped + after_look.clipped  # after: the opponent's view
    if drop < DROP[strictness]:
        return None
    return CoachWarning(Kind.DROP, side, move, _move_squares(after, after_look.line[0]),
                        after_look.line, drop=round(drop, 2))
