"""A game: a Board plus its record (the moves played, with their record texts), manual endings
(draw by agreement, resignation, loss on time) and undo."""

from __future__ import annotations

from dataclasses import dataclass

from .board import Board, Move, MoveError, other
from .outcome import BY_THE_RULES, Outcome, Termination
from .ruleset import ATTACKERS, DEFENDERS, RuleSet


@dataclass(frozen=True, slots=True)
class PlayedMove:
    """One accepted move: who played it, the move, the squares it captured (ascending, the king
    included when taken) and its record text (``g3-e3xe2``: captures by name, the king not
    marked; what records and logs show)."""

    side: str
    move: Move
    captures: tuple[int, ...]
    text: str
    captured_king: int | None = None  #: the king's square if this move captured him


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

    def copy(self, *, manual: bool = True) -> Game:
        """An independent game with the same rules, start, moves and (unless ``manual`` is
        false, which reopens a draw agreement, resignation or loss on time) manual ending. The
        board is copied, not replayed."""
        twin = object.__new__(Game)
        twin.rules, twin.start_position, twin.start_turn = (
            self.rules, self.start_position, self.start_turn)
        twin.board = self.board.copy()
        twin.played = list(self.played)
        twin._manual = self._manual if manual else None
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

    def play(self, move: Move) -> PlayedMove:
        """Play a legal move (MoveError otherwise, the game unchanged)."""
        if self._manual:
            raise MoveError("the game is over")
        board = self.board
        side = board.turn
        king_before = board.king
        captured = board.push(move)
        captures = tuple(board.geo.iter_bits(captured))
        names = sorted(board.name(s) for s in captures if s != king_before)  # never the king
        text = move.text(board.size) + "".join("x" + n for n in names)
        king = king_before if board.king < 0 <= king_before else None
        played = PlayedMove(side, move, captures, text, king)
        self.played.append(played)
        return played

    def play_text(self, text: str) -> PlayedMove:
        """Play a move written ``"g3-e3"`` or ``"g3-e3xe2"`` (the text edge: records, files,
        protocol lines). Listed captures must be exactly the soldiers the rules capture
        (MoveError otherwise, the game unchanged)."""
        if self._manual:
            raise MoveError("the game is over")
        move, listed = self.board.parse_move(text)
        played = self.play(move)
        if listed is None:
            return played
        soldiers = {s for s in played.captures if s != played.captured_king}  # never the king
        if set(listed) != soldiers:
            self.undo()
            board = self.board
            got = sorted(board.name(s) for s in soldiers)
            want = sorted(board.name(s) for s in listed)
            raise MoveError(f"move {move.text(board.size)} captures {got or 'nothing'}, "
                            f"not {want}")
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
        return sum(len(p.captures) for p in self.played if p.side == side)
