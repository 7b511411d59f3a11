"""A game: a Board plus its record (move texts), manual endings (draw by agreement,
resignation, loss on time) and undo."""

from __future__ import annotations

from dataclasses import dataclass

from .board import Board, Move, MoveError, other
from .outcome import BY_THE_RULES, Outcome, Termination
from .ruleset import ATTACKERS, DEFENDERS, RuleSet


@dataclass(frozen=True, slots=True)
class PlayedMove:
    """One accepted move: who played it, from/to names, captured squares (the king included
    when taken) and its record text (``g3-e3xe2``, the king not marked)."""

    side: str
    frm: str
    to: str
    captured: tuple[str, ...]
    text: str


def _opponent(side: str) -> str:
    if side not in (ATTACKERS, DEFENDERS):
        raise ValueError(f"side must be attackers or defenders, not {side!r}")
    return other(side)


class Game:
    """A game of one rule set from a start position (the variant's by default)."""

    def __init__(self, rules: RuleSet, position: str | None = None, turn: str | None = None):
        self.rules = rules
        self.start_position = position or rules.start
        self.start_turn = turn or rules.first
        self.board = Board(rules, self.start_position, self.start_turn)
        self.played: list[PlayedMove] = []
        self._manual: Outcome | None = None

    @property
    def moves(self) -> list[str]:
        """Record texts of the moves played so far."""
        return [p.text for p in self.played]

    @property
    def turn(self) -> str:
        """Side to move."""
        return self.board.turn

    def copy(self) -> Game:
        """An independent game with the same rules, start, moves and manual ending."""
        twin = Game(self.rules, self.start_position, self.start_turn)
        board = twin.board
        for p in self.played:
            twin.play(Move(board.square(p.frm), board.square(p.to)))
        if self._manual is not None:
            twin.end(self._manual)
        return twin

    @property
    def manual_outcome(self) -> Outcome | None:
        """The ending the players or the clock decided (agreement, resignation, time), if any."""
        return self._manual

    def outcome(self) -> Outcome | None:
        """The game's ending (by the rules, agreement or resignation), None while it goes on."""
        return self._manual or self.board.outcome()

    @property
    def result(self) -> str:
        """``"ongoing"``, ``"attackers"``, ``"defenders"`` or ``"draw"``."""
        outcome = self.outcome()
        return outcome.result if outcome else "ongoing"

    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.outcome() is not None

    def play(self, move: Move | str) -> PlayedMove:
        """Play a move (a Move or ``"g3-e3"`` text; listed captures must match the rules)."""
        if self._manual:
            raise MoveError("the game is over")
        listed = None
        if isinstance(move, str):
            move, listed = self.board.parse_move(move)
        board = self.board
        side = board.turn
        king_before = board.king
        captured = board.push(move)
        names = sorted(board.geo.names[s] for s in board.geo.iter_bits(captured))
        king = board.geo.names[king_before] if board.king < 0 else None  # taken by this move
        soldiers = [n for n in names if n != king]  # the record never marks the king
        frm, to = board.name(move.frm), board.name(move.to)
        if listed is not None and {board.geo.names[s] for s in listed} != set(soldiers):
            board.pop()
            want = sorted(board.geo.names[s] for s in listed)
            raise MoveError(f"move {frm}-{to} captures {soldiers or 'nothing'}, not {want}")
        text = f"{frm}-{to}" + "".join("x" + n for n in soldiers)
        played = PlayedMove(side, frm, to, tuple(names), text)
        self.played.append(played)
        return played

    def undo(self) -> PlayedMove:
        """Take back the last move (also clears a draw agreement, resignation or loss on
        time)."""
        if self._manual:
            self._manual = None
        if not self.played:
            raise IndexError("no move to take back")
        self.board.pop()
        return self.played.pop()

    def end(self, outcome: Outcome) -> None:
        """End the game by a decision outside the rules: ``outcome.termination`` must be
        ``agreement`` (a draw), ``resignation`` or ``time`` (a win). MoveError if the game is
        already over, ValueError for any other ending."""
        if outcome.termination in BY_THE_RULES:
            raise ValueError(f"{outcome.termination} is decided by the rules, not by the players")
        if (outcome.winner is None) != (outcome.termination == Termination.AGREEMENT):
            raise ValueError(f"an ending by {outcome.termination} needs "
                             f"{'no winner' if outcome.winner else 'a winner'}")
        if self.is_over():
            raise MoveError("the game is over")
        self._manual = outcome

    def agree_draw(self) -> None:
        """End the game drawn by agreement."""
        self.end(Outcome(None, Termination.AGREEMENT))

    def resign(self, side: str) -> None:
        """``side`` resigns; the other side wins."""
        self.end(Outcome(_opponent(side), Termination.RESIGNATION))

    def lose_on_time(self, side: str) -> None:
        """``side``'s clock ran out: the other side wins (termination ``time``)."""
        self.end(Outcome(_opponent(side), Termination.TIME))

    def captures(self, side: str) -> int:
        """How many enemy pieces ``side`` has captured (the king counts)."""
        return sum(len(p.captured) for p in self.played if p.side == side)
