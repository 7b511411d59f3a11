"""A game: a Board plus its record (the moves played, with their record texts), manual endings
(draw by agreement, resignation, loss on time) and undo.

>>> game = Game("brandubh")
>>> game.play_text("d2-c2").text, game.moves
('d2-c2', ['d2-c2'])
>>> game.resign("defenders")
>>> game.result, game.outcome().termination
('attackers', <Termination.RESIGNATION: 'resignation'>)
"""

from __future__ import annotations

from dataclasses import dataclass

from .board import Board, Move, MoveError
from .outcome import BY_THE_RULES, Outcome, Termination
from .ruleset import ATTACKERS, DEFENDERS, RuleSet, Side, get_variant, other


@dataclass(frozen=True, slots=True)
class PlayedMove:
    """One accepted move: who played it, the move, the squares it captured (ascending, the king
    included when taken) and its record text (``g3-e3xe2``: captures by name, the king not
    marked; what records and logs show).

    >>> game = Game("brandubh", "/3t3/1tT4/7/3K3/7/7/7/")
    >>> played = game.play(Move.parse("d1-d2", 7))
    >>> played.side, played.captures, played.text
    (<Side.ATTACKERS: 'attackers'>, (9,), 'd1-d2xc2')
    """

    side: Side
    move: Move
    captures: tuple[int, ...]
    text: str
    captured_king: int | None = None  #: the king's square if this move captured him


def _opponent(side: str) -> Side:
    if side not in (ATTACKERS, DEFENDERS):
        raise ValueError(f"side must be attackers or defenders, not {side!r}")
    return other(side)


class Game:
    """A game of one rule set (or a preset's id) from a start position (the variant's by
    default).

    >>> Game("tablut").turn, Game("tablut", turn="defenders").turn
    (<Side.ATTACKERS: 'attackers'>, <Side.DEFENDERS: 'defenders'>)
    """

    def __init__(
        self, rules: RuleSet | str, position: str | None = None, turn: str | None = None,
    ) -> None:
        if isinstance(rules, str):
            rules = get_variant(rules)
        self.rules = rules
        self.start_position = position or rules.start
        self.start_turn = turn or rules.first
        self.board = Board(rules, self.start_position, self.start_turn)
        self.played: list[PlayedMove] = []
        self._manual: Outcome | None = None

    @property
    def moves(self) -> list[str]:
        """Record texts of the moves played so far.

        >>> game = Game("brandubh")
        >>> _ = game.play_text("d2-c2"), game.play_text("c4-c3")
        >>> game.moves
        ['d2-c2', 'c4-c3']
        """
        return [p.text for p in self.played]

    @property
    def turn(self) -> Side:
        """Side to move.

        >>> Game("brandubh").turn
        <Side.ATTACKERS: 'attackers'>
        """
        return self.board.turn

    def copy(self, *, manual: bool = True) -> Game:
        """An independent game with the same rules, start, moves and (unless ``manual`` is
        false, which reopens a draw agreement, resignation or loss on time) manual ending. The
        board is copied, not replayed.

        >>> game = Game("brandubh")
        >>> game.agree_draw()
        >>> game.copy().result, game.copy(manual=False).result
        ('draw', 'ongoing')
        """
        twin = object.__new__(Game)
        twin.rules, twin.start_position, twin.start_turn = (
            self.rules, self.start_position, self.start_turn)
        twin.board = self.board.copy()
        twin.played = list(self.played)
        twin._manual = self._manual if manual else None
        return twin

    @property
    def manual_outcome(self) -> Outcome | None:
        """The ending the players or the clock decided (agreement, resignation, time), if any.

        >>> game = Game("brandubh")
        >>> game.lose_on_time("attackers")
        >>> game.manual_outcome.winner
        <Side.DEFENDERS: 'defenders'>
        """
        return self._manual

    def outcome(self) -> Outcome | None:
        """The game's ending (by the rules, agreement or resignation), None while it goes on.

        >>> Game("brandubh").outcome() is None
        True
        """
        return self._manual or self.board.outcome()

    @property
    def result(self) -> str:
        """``"ongoing"``, ``"attackers"``, ``"defenders"`` or ``"draw"``.

        >>> Game("brandubh").result
        'ongoing'
        """
        outcome = self.outcome()
        return outcome.result if outcome else "ongoing"

    def is_over(self) -> bool:
        """Whether the game has ended.

        >>> game = Game("brandubh")
        >>> game.is_over(), (game.agree_draw(), game.is_over())[1]
        (False, True)
        """
        return self.outcome() is not None

    def play(self, move: Move) -> PlayedMove:
        """Play a legal move (MoveError otherwise, the game unchanged).

        >>> Game("brandubh").play(Move.parse("d2-c2", 7)).text
        'd2-c2'
        """
        if self._manual:
            raise MoveError("the game is over")
        board = self.board
        side = board.turn
        king_before = board.king
        captures = tuple(board.push(move))
        names = sorted(board.name(s) for s in captures if s != king_before)  # never the king
        text = move.text(board.size) + "".join("x" + n for n in names)
        king = king_before if board.king < 0 <= king_before else None
        played = PlayedMove(side, move, captures, text, king)
        self.played.append(played)
        return played

    def play_text(self, text: str) -> PlayedMove:
        """Play a move written ``"g3-e3"`` or ``"g3-e3xe2"`` (the text edge: records, files,
        protocol lines). Listed captures must be exactly the soldiers the rules capture
        (MoveError otherwise, the game unchanged).

        >>> game = Game("brandubh", "/3t3/1tT4/7/3K3/7/7/7/")
        >>> game.play_text("d1-d2xc3")
        Traceback (most recent call last):
        ...
        companion.rules.move.MoveError: move d1-d2 captures ['c2'], not ['c3']
        >>> game.play_text("d1-d2xc2").captures
        (9,)
        """
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
        time).

        >>> game = Game("brandubh")
        >>> game.play_text("d2-c2").text == game.undo().text, game.moves
        (True, [])
        """
        if self._manual:
            self._manual = None
        if not self.played:
            raise IndexError("no move to take back")
        self.board.pop()
        return self.played.pop()

    def end(self, outcome: Outcome) -> None:
        """End the game by a decision outside the rules: ``outcome.termination`` must be
        ``agreement`` (a draw), ``resignation`` or ``time`` (a win). MoveError if the game is
        already over, ValueError for any other ending.

        >>> game = Game("brandubh")
        >>> game.end(Outcome(None, "escape"))
        Traceback (most recent call last):
        ...
        ValueError: escape is decided by the rules, not by the players
        """
        if outcome.termination in BY_THE_RULES:
            raise ValueError(f"{outcome.termination} is decided by the rules, not by the players")
        if (outcome.winner is None) != (outcome.termination == Termination.AGREEMENT):
            raise ValueError(f"an ending by {outcome.termination} needs "
                             f"{'no winner' if outcome.winner else 'a winner'}")
        if self.is_over():
            raise MoveError("the game is over")
        self._manual = outcome

    def agree_draw(self) -> None:
        """End the game drawn by agreement.

        >>> game = Game("brandubh")
        >>> game.agree_draw()
        >>> game.result
        'draw'
        """
        self.end(Outcome(None, Termination.AGREEMENT))

    def resign(self, side: str) -> None:
        """``side`` resigns; the other side wins.

        >>> game = Game("brandubh")
        >>> game.resign("attackers")
        >>> game.result
        'defenders'
        """
        self.end(Outcome(_opponent(side), Termination.RESIGNATION))

    def lose_on_time(self, side: str) -> None:
        """``side``'s clock ran out: the other side wins (termination ``time``).

        >>> game = Game("brandubh")
        >>> game.lose_on_time("defenders")
        >>> game.outcome()
        Outcome(winner=<Side.ATTACKERS: 'attackers'>, termination=<Termination.TIME: 'time'>)
        """
        self.end(Outcome(_opponent(side), Termination.TIME))

    def captures(self, side: str) -> int:
        """How many enemy pieces ``side`` has captured (the king counts).

        >>> game = Game("brandubh", "/3t3/1tT4/7/3K3/7/7/7/")
        >>> _ = game.play_text("d1-d2xc2")
        >>> game.captures("attackers"), game.captures("defenders")
        (1, 0)
        """
        return sum(len(p.captures) for p in self.played if p.side == side)
